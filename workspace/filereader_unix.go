//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// minReadBuf is the smallest read buffer: most source files fit.
const minReadBuf = 256 << 10

// openFlags open a file for reading: never a symlink, never blocking on a
// FIFO.
const openFlags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK

// dirFlags open a directory to resolve names in: never a symlink.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW

// FileReader reads the files of a workspace folder without ever leaving it.
// It holds a descriptor of the folder and one of the directory it read
// from last, opened beneath the folder's descriptor with no symlink
// followed (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or openat with
// O_NOFOLLOW one component at a time); a file is then opened by its name
// relative to that directory's descriptor, again without following a
// symlink. Nothing is opened by absolute path below the folder, so a
// directory swapped for a symlink after the walk saw it cannot lead a read
// outside, and the kernel resolves one component per file: the walk hands
// a worker the files of one directory in a row.
//
// A FileReader belongs to one goroutine at a time; Close releases its
// descriptors. Paths are '/'-separated, clean and relative to the folder
// (as Walk gives them).
type FileReader struct {
	root   string // the folder rootFD is open on; "" none
	rootFD int    // -1: none
	dir    string // directory of fd, relative to root ("" the root itself)
	fd     int    // -1: none; rootFD when dir == ""
}

// NewFileReader returns a reader with no descriptor open yet.
func NewFileReader() *FileReader { return &FileReader{rootFD: -1, fd: -1} }

// ReadAt reads the file rel of the folder root, appending to buf[:0];
// size is a hint for the buffer.
func (d *FileReader) ReadAt(root, rel string, size int64, buf []byte) ([]byte, error) {
	fd, err := d.open(root, rel)
	if err != nil {
		return buf, err
	}
	defer unix.Close(fd)
	return readFD(fd, size, buf[:0])
}

// ReadHead is ReadAt that reads at most maxBytes: more reports that the
// file goes on (search it in parts through Open).
func (d *FileReader) ReadHead(root, rel string, size int64, maxBytes int, buf []byte) (data []byte, more bool, err error) {
	fd, err := d.open(root, rel)
	if err != nil {
		return buf, false, err
	}
	defer unix.Close(fd)
	return readFDMax(fd, size, maxBytes, buf[:0])
}

// Open opens the regular file rel of the folder root for reading (a FIFO
// or device is refused with NotRegularError); the caller closes it.
func (d *FileReader) Open(root, rel string) (*os.File, error) {
	fd, err := d.open(root, rel)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, NotRegularError{Path: rel, Mode: modeOfStat(uint32(st.Mode))}
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// Read reads the regular file rel of the folder root, appending to
// buf[:0], and returns its size and modification time (Unix ns) as the open
// file had them. A file over maxSize (> 0) is refused with an error
// wrapping ErrTooLarge before it is read; a FIFO or device with an error.
func (d *FileReader) Read(root, rel string, maxSize int64, buf []byte) (data []byte, mtime int64, err error) {
	fd, err := d.open(root, rel)
	if err != nil {
		return buf, 0, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return buf, 0, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return buf, 0, NotRegularError{Path: rel, Mode: modeOfStat(uint32(st.Mode))}
	}
	if maxSize > 0 && st.Size > maxSize {
		return buf, 0, fmt.Errorf("%s is %s, over the %s limit: %w", rel, humanSize(st.Size), humanSize(maxSize), ErrTooLarge)
	}
	data, err = readFD(fd, st.Size, buf[:0])
	return data, st.Mtim.Nano(), err
}

// open opens the file rel (clean, '/'-separated, relative) of the folder
// root for reading.
func (d *FileReader) open(root, rel string) (int, error) {
	dfd, name, err := d.dirOf(root, rel)
	if err != nil {
		return -1, err
	}
	for {
		fd, err := unix.Openat(dfd, name, openFlags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// Stat returns the size and mtime (Unix ns) of the regular file rel of the
// folder root; ok is false when it is missing or not a regular file.
func (d *FileReader) Stat(root, rel string) (size, mtime int64, ok bool) {
	dfd, name, err := d.dirOf(root, rel)
	if err != nil {
		return 0, 0, false
	}
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0, 0, false
	}
	return st.Size, st.Mtim.Nano(), true
}

// dirOf returns a descriptor of rel's directory, opened beneath root, and
// rel's last element.
func (d *FileReader) dirOf(root, rel string) (int, string, error) {
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	if !validName(name) {
		return -1, "", errBadPath
	}
	if d.fd >= 0 && dir == d.dir && root == d.root {
		return d.fd, name, nil
	}
	if root != d.root || d.rootFD < 0 {
		d.Close()
		fd, err := openRetry(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
		if err != nil {
			return -1, "", err
		}
		d.root, d.rootFD = root, fd
	}
	d.closeDir()
	if dir == "" {
		d.dir, d.fd = "", d.rootFD
		return d.fd, name, nil
	}
	fd, err := openDirBeneath(d.rootFD, dir)
	if err != nil {
		return -1, "", err
	}
	d.dir, d.fd = dir, fd
	return fd, name, nil
}

// openDirBeneath opens the directory rel (clean, relative, '/'-separated)
// beneath the directory rootFD, following no symlink on the way and never
// leaving rootFD: every component must be a directory inside the previous
// one.
func openDirBeneath(rootFD int, rel string) (int, error) {
	if !validRel(rel) {
		return -1, errBadPath
	}
	if fd, err := openat2Dir(rootFD, rel); !errors.Is(err, errNoOpenat2) {
		return fd, err
	}
	fd := rootFD
	for rel != "" {
		var name string
		name, rel, _ = strings.Cut(rel, "/")
		next, err := unix.Openat(fd, name, dirFlags, 0)
		for err == unix.EINTR {
			next, err = unix.Openat(fd, name, dirFlags, 0)
		}
		if fd != rootFD {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// noOpenat2 is set once openat2 turns out to be missing (Linux before 5.6)
// or refused (a seccomp filter that predates it), and on systems other than
// Linux.
var noOpenat2 atomic.Bool

// errNoOpenat2 from openat2Dir: walk component by component instead.
var errNoOpenat2 = errors.New("openat2 unavailable")

// validRel reports whether rel is a non-empty relative '/'-separated path
// of names (see validName).
func validRel(rel string) bool {
	for {
		name, rest, more := strings.Cut(rel, "/")
		if !validName(name) {
			return false
		}
		if !more {
			return true
		}
		rel = rest
	}
}

// validName reports whether name is a name in a directory: not empty, not
// "." or "..", no separator.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsRune(name, '/')
}

var errBadPath = errors.New("path is not a clean path relative to its folder")

func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// closeDir releases the directory descriptor (not the folder's).
func (d *FileReader) closeDir() {
	if d.fd >= 0 && d.fd != d.rootFD {
		unix.Close(d.fd)
	}
	d.dir, d.fd = "", -1
}

// Close releases the reader's descriptors; it may be used again.
func (d *FileReader) Close() {
	d.closeDir()
	if d.rootFD >= 0 {
		unix.Close(d.rootFD)
	}
	d.root, d.rootFD = "", -1
}

// readSlack is how far past the size fstat reported a read goes on: a file
// that a writer keeps growing is read as the prefix it had then (and this).
const readSlack = 64 << 10

// firstReadMax bounds the first buffer of a read, whatever the size hint:
// a larger file is sniffed for binary content before it is read whole.
const firstReadMax = 4 << 20

// readFD reads the open regular file fd into buf, to its end or to the
// size fstat gives when the buffer first fills plus readSlack, whichever
// comes first, so that a file growing while it is read costs its size at
// that moment and no more. A file over the first buffer whose first 8 KiB
// hold a NUL byte (binary; UTF-16 with a BOM is text) is read no further:
// the prefix is enough to call it binary, and a 2 GB sparse file is not
// read into memory to find that out.
func readFD(fd int, size int64, buf []byte) ([]byte, error) {
	data, _, err := readFDMax(fd, size, 0, buf)
	return data, err
}

// readFDMax is readFD that stops after max bytes (max > 0), reporting
// whether the file goes on.
func readFDMax(fd int, size int64, maxBytes int, buf []byte) (_ []byte, more bool, _ error) {
	want := min(int(size)+1, firstReadMax)
	if maxBytes > 0 {
		want = min(want, maxBytes+1)
	}
	if cap(buf) < want {
		buf = make([]byte, 0, max(want, minReadBuf))
	}
	limit := -1 // bytes to read at most; -1 until the buffer first fills
	for {
		if maxBytes > 0 && len(buf) > maxBytes {
			return buf[:maxBytes], true, nil
		}
		if len(buf) == cap(buf) {
			want := 2 * cap(buf)
			if limit < 0 {
				if IsBinary(buf) {
					return buf, false, nil
				}
				// Larger than the buffer: grow once to the file's size.
				limit = len(buf) + readSlack
				var st unix.Stat_t
				if unix.Fstat(fd, &st) == nil && int(st.Size) >= len(buf) {
					want, limit = int(st.Size)+1, int(st.Size)+readSlack
				}
			} else if len(buf) >= limit {
				return buf, false, nil // it grew while read: keep the prefix
			}
			if maxBytes > 0 {
				limit = min(limit, maxBytes+1)
			}
			nb := make([]byte, len(buf), min(want, limit))
			copy(nb, buf)
			buf = nb
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return buf, false, err
		}
		if n == 0 {
			return buf, false, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// modeOfStat is the fs.FileMode type bits of a stat mode (enough to name
// the kind of a file that is not regular).
func modeOfStat(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFSOCK:
		return fs.ModeSocket
	}
	return 0
}
