package codeindex

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/workspace"
)

// FileChanged re-reads path (absolute or relative to the root) from disk
// unless an editor buffer holds it: a file that is gone is removed, a
// directory is walked again.
func (ix *Index) FileChanged(path string) {
	rel, abs := ix.paths(path)
	if rel == "" {
		return
	}
	if st, err := os.Lstat(abs); err == nil && st.IsDir() {
		ix.wg.Add(1)
		go func() {
			defer ix.wg.Done()
			ix.dirChanged(rel, abs)
			ix.notify(rel)
		}()
		return
	}
	ix.fileChanged(rel, abs)
	ix.notify(rel)
}

// followDeny applies a change of the workspace's secrets deny list: the
// entries of files now denied go at once, and a walk in the background
// brings back files allowed again (unchanged files keep their entries).
// Queries call it first; it costs an atomic load when nothing changed. It
// settles the workspace changes queued before it first.
func (ix *Index) followDeny() {
	ix.settle()
	v := ix.ws.DenyVersion()
	old := ix.denyVer.Load()
	if v == old || !ix.denyVer.CompareAndSwap(old, v) {
		return
	}
	ix.mu.Lock()
	for rel := range ix.files {
		if ix.ws.Denied(rel) {
			ix.setFileLocked(rel, nil)
		}
	}
	ix.mu.Unlock()
	ix.FileChanged(ix.ws.Root())
}

func (ix *Index) notify(rel string) {
	if f := ix.onUpdate; f != nil && ix.ctx.Err() == nil {
		f(rel)
	}
}

// dirChanged indexes the files under a directory.
func (ix *Index) dirChanged(rel, abs string) {
	x := newExtractor()
	defer x.Close()
	ix.ws.Walk(ix.ctx, abs, workspace.WalkOptions{NoStat: true, DiskOnly: true}, func(e workspace.WalkEntry) error {
		if l := LanguageFor(e.Rel); l != nil && !e.IsDir && e.Mode.IsRegular() {
			// A file whose size and mtime did not change keeps its entry.
			ix.mu.RLock()
			c := ix.files[e.Rel]
			ix.mu.RUnlock()
			if c != nil && c.open {
				return nil
			}
			ix.indexFile(x, &job{rel: e.Rel, lang: l}, c, nil)
		}
		return nil
	})
}

func (ix *Index) fileChanged(rel, abs string) {
	ix.bufMu.Lock()
	_, open := ix.buffers[rel]
	ix.bufMu.Unlock()
	if open {
		return
	}
	st, err := os.Lstat(abs)
	if err == nil && ix.ws.Denied(rel) {
		err = fs.ErrNotExist // on the secrets deny list: as if it were gone
	}
	if err != nil {
		// Gone: the file, or everything under the directory.
		ix.mu.Lock()
		prefix := rel + "/"
		for r, f := range ix.files {
			if (r == rel || strings.HasPrefix(r, prefix)) && !f.open {
				ix.setFileLocked(r, nil)
			}
		}
		delete(ix.skipped, rel)
		delete(ix.skipStats, rel)
		ix.mu.Unlock()
		return
	}
	l := LanguageFor(rel)
	if l == nil || !st.Mode().IsRegular() || ix.ws.Ignored(abs, false) {
		return
	}
	// indexFile drops a file over the size limit and marks it skipped
	// (the reader refuses it before reading). It keeps the entry of a
	// buffer opened meanwhile (putDisk), so bufMu need not be held.
	ix.diskMu.Lock()
	if ix.diskx == nil {
		ix.diskx = newExtractor()
	}
	ix.indexFile(ix.diskx, &job{rel: rel, lang: l}, nil, nil)
	ix.diskMu.Unlock()
}

// paths returns the relative and absolute forms of path, or "" when it is
// outside the root.
func (ix *Index) paths(path string) (rel, abs string) {
	if filepath.IsAbs(path) {
		abs = filepath.Clean(path)
		if !ix.ws.Contains(abs) {
			return "", ""
		}
		return ix.ws.Rel(abs), abs
	}
	rel = filepath.ToSlash(filepath.Clean(path))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", ""
	}
	return rel, filepath.Join(ix.ws.Root(), filepath.FromSlash(rel))
}
