package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The workspace's one confinement primitive is its hold on the folder: the
// root directory, opened once (on first use) and kept for the workspace's
// life. Every read, walk and readlink below the root resolves its path
// beneath that descriptor — on Linux with openat2 (RESOLVE_BENEATH, and
// RESOLVE_NO_SYMLINKS for paths a walk found), elsewhere or without
// openat2 one component at a time or through os.Root — never by an
// absolute path that a directory swapped for a symlink could lead outside.
// Writes (create, rename, remove) go through the os.Root of the same hold.
//
// When the folder's path no longer names the directory held (deleted and
// made again, say by a fresh clone), the next use opens it again; users in
// flight keep the handle they took.

// rootHandle is one opening of the folder. It is never closed while in
// use: whoever holds a *rootHandle keeps its descriptors alive (os.File's
// and os.Root's cleanups close them once nothing refers to them).
type rootHandle struct {
	r  *os.Root // the folder, for os.Root's operations
	f  *os.File // the same directory (r.Open(".")), for the raw descriptor
	fd int      // f's descriptor (unix)
	id fileID   // its (device, inode), to notice a replaced folder
}

// rootDir is a Workspace's hold on its folder.
type rootDir struct {
	mu sync.Mutex
	h  *rootHandle
}

// handle returns the workspace's opening of its folder, opening it on the
// first call and again when the folder was replaced since.
func (w *Workspace) handle() (*rootHandle, error) {
	d := &w.dir
	d.mu.Lock()
	defer d.mu.Unlock()
	if h := d.h; h != nil && h.current(w.root) {
		return h, nil
	}
	r, err := os.OpenRoot(w.root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", w.root, err)
	}
	f, err := r.Open(".")
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("workspace root %s: %w", w.root, err)
	}
	h := &rootHandle{r: r, f: f, fd: int(f.Fd())}
	if st, err := f.Stat(); err == nil {
		li, _ := statID(st)
		h.id = li.id
	}
	d.h = h
	return h, nil
}

// current reports whether root still names the directory h holds (one
// stat; where files have no identity, always).
func (h *rootHandle) current(root string) bool {
	st, err := os.Stat(root)
	if err != nil {
		return true // the next open would fail too: keep what we have
	}
	li, ok := statID(st)
	return !ok || li.id == h.id
}

// osRoot returns the os.Root of the workspace's folder (opened once).
func (w *Workspace) osRoot() (*os.Root, *rootHandle, error) {
	h, err := w.handle()
	if err != nil {
		return nil, nil, err
	}
	return h.r, h, nil
}

// relOS is rel with the OS's separators.
func relOS(rel string) string { return filepath.FromSlash(rel) }

// isEscape reports whether err is os.Root's refusal of a path that would
// leave the root.
func isEscape(err error) bool { return err != nil && strings.Contains(err.Error(), "path escapes") }
