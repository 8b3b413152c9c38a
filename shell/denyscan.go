package shell

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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
	ids     map[fileID]bool        // identities of the denied files at the last scan
}

type scannedDir struct {
	dev, ino  uint64
	mtime     time.Time
	denied    []string     // absolute paths of denied entries
	subdirs   []string     // root-relative paths of subdirectories to descend into
	deniedIDs []fileID     // identities of the denied files (under a denied directory too)
	linked    []linkedFile // files not denied with more than one link
}

// fileID is a file's identity on disk: (device, inode).
type fileID struct{ dev, ino uint64 }

// linkedFile is a file with more than one link: if one of the others is a
// denied file, it is the denied file under another name.
type linkedFile struct {
	abs string
	id  fileID
}

// Scan returns the absolute paths under root that denied reports (rel is
// '/'-separated and root-relative), and the hard links to denied files
// under other names (same device and inode). version identifies the deny
// list: a different version than the last call's starts over. A denied
// directory is returned and not descended into (only looked through for the
// identities of its files); nor are .git directories (their config file is
// checked), nor symlinks to directories.
func (d *DenyScan) Scan(root string, version uint64, denied func(rel string) bool) ([]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dirs == nil || d.root != root || d.version != version {
		d.dirs = map[string]*scannedDir{}
		d.root, d.version, d.ids = root, version, nil
	}
	out, ids, err := d.scan(root, denied)
	if err == nil && d.ids != nil && !subset(ids, d.ids) {
		// A denied file not seen before: a file of a directory unchanged
		// since it was read may be a link to it now (ln dir/f .env).
		d.dirs = map[string]*scannedDir{}
		out, ids, err = d.scan(root, denied)
	}
	d.ids = ids
	return out, err
}

func subset(a, b map[fileID]bool) bool {
	for id := range a {
		if !b[id] {
			return false
		}
	}
	return true
}

// scan is one pass of Scan: it reads the directories that changed, and
// returns what to hide and the identities of the denied files.
func (d *DenyScan) scan(root string, denied func(rel string) bool) ([]string, map[fileID]bool, error) {
	seen := map[string]bool{}
	var out []string
	ids := map[fileID]bool{}
	var linked []linkedFile
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
				return nil, nil, err
			}
			sd.dev, sd.ino, sd.mtime = dev, ino, st.ModTime()
			d.dirs[rel] = sd
		}
		entries += len(sd.denied) + len(sd.subdirs)
		if entries > MaxScanEntries {
			return nil, nil, fmt.Errorf("the workspace has more than %d directories and denied files; the sandbox cannot list the files it must hide", MaxScanEntries)
		}
		out = append(out, sd.denied...)
		stack = append(stack, sd.subdirs...)
		for _, id := range sd.deniedIDs {
			ids[id] = true
		}
		linked = append(linked, sd.linked...)
	}
	for _, l := range linked {
		if ids[l.id] {
			out = append(out, l.abs)
		}
	}
	for rel := range d.dirs {
		if !seen[rel] {
			delete(d.dirs, rel)
		}
	}
	return out, ids, nil
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
				sd.deniedIDs = appendIDs(sd.deniedIDs, childAbs, e)
				continue
			}
			switch {
			case e.Name() == ".git" && e.IsDir():
				for _, name := range []string{"config", "config.worktree"} {
					if denied(childRel + "/" + name) {
						if fi, err := os.Lstat(filepath.Join(childAbs, name)); err == nil {
							sd.denied = append(sd.denied, filepath.Join(childAbs, name))
							if id, _, ok := identity(fi); ok {
								sd.deniedIDs = append(sd.deniedIDs, id)
							}
						}
					}
				}
			case e.IsDir():
				sd.subdirs = append(sd.subdirs, childRel)
			case e.Type()&fs.ModeSymlink != 0:
				// A symlink is hidden only by its own name (above); what it
				// points to inside the tree is hidden under its own name.
			case e.Type().IsRegular():
				// Its link count, by its name in the open directory (one
				// component to resolve).
				var st unix.Stat_t
				if fstatat(int(f.Fd()), e.Name(), &st) == nil && st.Nlink > 1 {
					sd.linked = append(sd.linked, linkedFile{abs: childAbs, id: fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}})
				}
			}
		}
		if err != nil {
			break
		}
	}
	return sd, nil
}

// identity is the (device, inode) and link count of a file.
func identity(fi fs.FileInfo) (fileID, uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, 0, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, uint64(st.Nlink), true
}

// maxDeniedDirFiles bounds the files of a denied directory whose identities
// are collected.
const maxDeniedDirFiles = 100_000

// appendIDs appends the identities of the denied entry e at abs: a file's
// own, or those of the files under a directory.
func appendIDs(ids []fileID, abs string, e fs.DirEntry) []fileID {
	switch {
	case e.Type().IsRegular():
		if fi, err := e.Info(); err == nil {
			if id, _, ok := identity(fi); ok {
				ids = append(ids, id)
			}
		}
	case e.IsDir():
		n := 0
		filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if n++; n > maxDeniedDirFiles {
				return filepath.SkipAll
			}
			if fi, err := d.Info(); err == nil {
				if id, _, ok := identity(fi); ok {
					ids = append(ids, id)
				}
			}
			return nil
		})
	}
	return ids
}

// fstatat stats name in the directory dirfd without following a symlink.
func fstatat(dirfd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}
