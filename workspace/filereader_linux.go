package workspace

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// openat2Dir opens the directory rel beneath rootFD in one system call: the
// kernel refuses any symlink on the way (RESOLVE_NO_SYMLINKS) and any
// resolution that would leave rootFD (RESOLVE_BENEATH). It returns
// errNoOpenat2 when the system call is unavailable.
func openat2Dir(rootFD int, rel string) (int, error) {
	return openat2(rootFD, rel, dirFlags, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_SYMLINKS|unix.RESOLVE_NO_MAGICLINKS)
}

// openat2 opens rel beneath dirfd with flags, resolved as resolve says
// (RESOLVE_BENEATH and more). It returns errNoOpenat2 when the system call
// is unavailable (Linux before 5.6, or a seccomp filter that predates it).
func openat2(dirfd int, rel string, flags int, resolve uint64) (int, error) {
	if noOpenat2.Load() {
		return -1, errNoOpenat2
	}
	how := unix.OpenHow{Flags: uint64(flags), Resolve: resolve}
	for range 8 {
		fd, err := unix.Openat2(dirfd, rel, &how)
		switch err {
		case nil:
			return fd, nil
		case unix.EINTR, unix.EAGAIN: // EAGAIN: a rename raced the lookup
			continue
		case unix.ENOSYS, unix.EPERM:
			noOpenat2.Store(true)
			return -1, errNoOpenat2
		}
		return -1, err
	}
	return -1, errNoOpenat2 // the fallbacks need no retry
}

// Resolve flags for openat2 (0 elsewhere).
const (
	resolveBeneath    = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS
	resolveNoSymlinks = unix.RESOLVE_NO_SYMLINKS
)

// noPopulate is set once MADV_POPULATE_WRITE turns out to be missing
// (Linux before 5.14).
var noPopulate atomic.Bool

// prefaultPages makes the pages from lo to hi (rounded out to whole pages)
// resident and writable with MADV_POPULATE_WRITE, which leaves their
// contents as they are. Errors leave the pages to fault one by one.
func prefaultPages(lo, hi uintptr) {
	if noPopulate.Load() {
		return
	}
	page := uintptr(unix.Getpagesize())
	lo &^= page - 1
	hi = (hi + page - 1) &^ (page - 1)
	_, _, errno := unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_POPULATE_WRITE)
	if errno == unix.EINVAL || errno == unix.ENOSYS {
		noPopulate.Store(true)
	}
}
