package textsearch

import (
	"errors"
	"strconv"
	"strings"
	"syscall"
)

// dirReader reads files by name relative to an open descriptor of their
// directory, kept from one file to the next: the walk hands a worker the
// files of one directory in a row, and the kernel then resolves one path
// component per file instead of every component of an absolute path.
// A dirReader belongs to one goroutine at a time.
type dirReader struct {
	dir string
	fd  int // -1: none
}

func newDirReader() *dirReader { return &dirReader{fd: -1} }

func (d *dirReader) read(abs string, size int64, buf []byte) ([]byte, error) {
	i := strings.LastIndexByte(abs, '/')
	if i <= 0 {
		return readFile(abs, size, buf)
	}
	dir, name := abs[:i], abs[i+1:]
	if dir != d.dir || d.fd < 0 {
		d.close()
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != nil {
			return buf, err
		}
		// The walk checked dir, but a directory above it may have been
		// swapped for a symlink since: the descriptor must name exactly the
		// directory the walk saw, or nothing is read through it.
		if !sameDir(fd, dir) {
			syscall.Close(fd)
			return buf, errDirMoved
		}
		d.dir, d.fd = dir, fd
	}
	fd, err := syscall.Openat(d.fd, name, openFlags, 0)
	if err != nil {
		return buf, err
	}
	defer syscall.Close(fd)
	return readFD(fd, size, buf)
}

var errDirMoved = errors.New("directory changed during the search")

// sameDir reports whether the open directory fd is the directory at path
// (which has no symlinks: the walk resolves the root and never follows
// links).
func sameDir(fd int, path string) bool {
	var b [4096]byte
	n, err := syscall.Readlink("/proc/self/fd/"+strconv.Itoa(fd), b[:])
	return err == nil && string(b[:n]) == path
}

// close releases the directory descriptor.
func (d *dirReader) close() {
	if d.fd >= 0 {
		syscall.Close(d.fd)
	}
	d.dir, d.fd = "", -1
}

// lstat returns the size and mtime (Unix ns) of the regular file at abs;
// ok is false when it is missing or not a regular file. Unlike os.Lstat it
// allocates nothing but the path's bytes.
func lstat(abs string) (size, mtime int64, ok bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(abs, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return 0, 0, false
	}
	return st.Size, st.Mtim.Nano(), true
}
