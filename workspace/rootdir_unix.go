//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openFollow opens rel (clean, '/'-separated, relative; "." the folder)
// beneath the folder with flags, following the symlinks that stay inside
// it: openat2 with RESOLVE_BENEATH, else os.Root (which follows them one
// by one and refuses one that leads out). The error of a path that would
// leave the folder is the system's EXDEV.
func (h *rootHandle) openFollow(rel string, flags int) (int, error) {
	fd, err := openat2(h.fd, rel, flags, resolveBeneath)
	if !errors.Is(err, errNoOpenat2) {
		return fd, err
	}
	f, err := h.r.OpenFile(relOS(rel), flags&^unix.O_DIRECTORY&^unix.O_CLOEXEC, 0)
	if err != nil {
		if isEscape(err) {
			return -1, unix.EXDEV
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return -1, pe.Err
		}
		return -1, err
	}
	defer f.Close()
	if flags&unix.O_DIRECTORY != 0 {
		if st, err := f.Stat(); err == nil && !st.IsDir() {
			return -1, unix.ENOTDIR
		}
	}
	return unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
}

// openFile opens the file rel beneath the folder for reading, never
// blocking on a FIFO: following symlinks that stay inside, or, unless
// follow, none at all (the walk found rel and never follows one). abs
// names it in errors.
func (w *Workspace) openFile(abs, rel string, follow bool) (*os.File, error) {
	h, err := w.handle()
	if err != nil {
		return nil, err
	}
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK
	var fd int
	if follow {
		fd, err = h.openFollow(rel, flags)
	} else {
		fd, err = openat2(h.fd, rel, flags|unix.O_NOFOLLOW, resolveBeneath|resolveNoSymlinks)
		if errors.Is(err, errNoOpenat2) {
			fd, err = openNoFollow(h.fd, rel, flags)
		}
	}
	if err != nil {
		if err == unix.EXDEV {
			return nil, fmt.Errorf("%w: %s leads outside the workspace root", ErrOutside, abs)
		}
		return nil, &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	return os.NewFile(uintptr(fd), abs), nil
}

// openNoFollow opens rel beneath rootFD following no symlink: its
// directory with openDirBeneath, then the file by name with O_NOFOLLOW.
func openNoFollow(rootFD int, rel string, flags int) (int, error) {
	dir, name := "", rel
	for i := len(rel) - 1; i >= 0; i-- {
		if rel[i] == '/' {
			dir, name = rel[:i], rel[i+1:]
			break
		}
	}
	dfd := rootFD
	if dir != "" {
		var err error
		if dfd, err = openDirBeneath(rootFD, dir); err != nil {
			return -1, err
		}
		defer unix.Close(dfd)
	}
	for {
		fd, err := unix.Openat(dfd, name, flags|unix.O_NOFOLLOW, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
