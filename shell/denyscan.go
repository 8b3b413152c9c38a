package shell

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// MaxScanEntries bounds the directory entries one DenyScan looks at; a
// larger tree is refused (the sandbox could not hide its denied files).
const MaxScanEntries = 2_000_000

// DenyScan finds the files and directories of a tree that the secrets deny
// list covers, so that the sandbox can hide them. The first Scan reads every
// directory; later ones re-read only the directories whose identity or
// modification time changed (adding, removing or renaming an entry changes
// its directory's mtime), so a scan of an unchanged tree costs one stat per
// directory. Safe for concurrent use.
type DenyScan struct {
	mu      sync.Mutex
	root    string
	version uint64
	dirs    map[string]*scannedDir // by root-relative path ("." for the root)
}

type scannedDir struct {
	dev, ino uint64
	mtime    time.Time
	denied   []string // absolute paths of denied entries
	subdirs  []string // root-relative paths of subdirectories to descend into
}

// Scan returns the absolute paths under root that denied reports (rel is
// '/'-separated and root-relative). version identifies the deny list: a
// different version than the last call's starts over. A denied directory is
// returned and not descended into; nor are .git directories (their config
// file is checked), nor symlinks to directories.
func (d *DenyScan) Scan(root string, version uint64, denied func(rel string) bool) ([]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dirs == nil || d.root != root || d.version != version {
		d.dirs = map[string]*scannedDir{}
		d.root, d.version = root, version
	}
	seen := map[string]bool{}
	var out []string
	entries := 0
	stack := []string{"."}
	for len(stack) > 0 {
		rel := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		seen[rel] = true
		abs := filepath.Join(root, filepath.FromSlash(rel))
		st, err := os.Lstat(abs)
		if err != nil || !st.IsDir() {
			continue // gone since its parent was read
		}
		sys, _ := st.Sys().(*syscall.Stat_t)
		var dev, ino uint64
		if sys != nil {
			dev, ino = uint64(sys.Dev), sys.Ino
		}
		sd := d.dirs[rel]
		if sd == nil || sd.dev != dev || sd.ino != ino || !sd.mtime.Equal(st.ModTime()) {
			sd, err = readScanDir(rel, abs, denied)
			if err != nil {
				return nil, err
			}
			sd.dev, sd.ino, sd.mtime = dev, ino, st.ModTime()
			d.dirs[rel] = sd
		}
		entries += len(sd.denied) + len(sd.subdirs)
		if entries > MaxScanEntries {
			return nil, fmt.Errorf("the workspace has more than %d directories and denied files; the sandbox cannot list the files it must hide", MaxScanEntries)
		}
		out = append(out, sd.denied...)
		stack = append(stack, sd.subdirs...)
	}
	for rel := range d.dirs {
		if !seen[rel] {
			delete(d.dirs, rel)
		}
	}
	return out, nil
}

// readScanDir reads one directory: its denied entries and the
// subdirectories to descend into.
func readScanDir(rel, abs string, denied func(rel string) bool) (*scannedDir, error) {
	f, err := os.Open(abs)
	if err != nil {
		return &scannedDir{}, nil // unreadable or gone: the command cannot list it either
	}
	defer f.Close()
	sd := &scannedDir{}
	for {
		ents, err := f.ReadDir(4096)
		for _, e := range ents {
			childRel := e.Name()
			if rel != "." {
				childRel = rel + "/" + e.Name()
			}
			childAbs := filepath.Join(abs, e.Name())
			if denied(childRel) {
				sd.denied = append(sd.denied, childAbs)
				continue
			}
			switch {
			case e.Name() == ".git" && e.IsDir():
				for _, name := range []string{"config", "config.worktree"} {
					if denied(childRel + "/" + name) {
						if _, err := os.Lstat(filepath.Join(childAbs, name)); err == nil {
							sd.denied = append(sd.denied, filepath.Join(childAbs, name))
						}
					}
				}
			case e.IsDir():
				sd.subdirs = append(sd.subdirs, childRel)
			case e.Type()&fs.ModeSymlink != 0:
				// A symlink is hidden only by its own name (above); what it
				// points to inside the tree is hidden under its own name.
			}
		}
		if err != nil {
			break
		}
	}
	return sd, nil
}
