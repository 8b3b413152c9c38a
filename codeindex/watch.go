package codeindex

import (
	"os"

	"github.com/fsnotify/fsnotify"

	"github.com/agentls/agentls/workspace"
)

// WatchDisk follows the disk with fsnotify: every directory of the
// workspace that is not ignored is watched, and each event goes to
// FileChanged. For clients that cannot send workspace/didChangeWatchedFiles;
// Close stops it.
func (ix *Index) WatchDisk() error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	root := ix.ws.Root()
	if err := w.Add(root); err != nil {
		w.Close()
		return err
	}
	err = ix.ws.Walk(ix.ctx, root, workspace.WalkOptions{NoStat: true, DiskOnly: true}, func(e workspace.WalkEntry) error {
		if e.IsDir {
			w.Add(e.Abs) // a directory that cannot be watched is only not followed
		}
		return nil
	})
	if err != nil {
		w.Close()
		return err
	}
	ix.watching.Store(true)
	ix.wg.Add(1)
	go func() {
		defer ix.wg.Done()
		defer w.Close()
		for {
			select {
			case <-ix.ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Has(fsnotify.Create) {
					if st, err := os.Lstat(ev.Name); err == nil && st.IsDir() && !ix.ws.Ignored(ev.Name, true) {
						w.Add(ev.Name)
					}
				}
				if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) {
					continue
				}
				ix.FileChanged(ev.Name)
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return nil
}
