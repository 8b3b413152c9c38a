//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"unsafe"

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
// It holds a descriptor of the folder (the workspace's own hold on it, see
// rootdir.go, for a reader from Workspace.NewFileReader: nothing to open)
// and one of the directory it read from last, opened beneath the folder's descriptor with no symlink
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
	ws     *Workspace
	held   *rootHandle // rootFD is ws's hold on its folder (not closed here)

	// The read buffer last prefaulted and how much of it (see prefault).
	faultedBase uintptr
	faultedLen  int
}

// NewFileReader returns a reader with no descriptor open yet. It knows no
// deny list: a tool's reads go through Workspace.NewFileReader.
func NewFileReader() *FileReader { return &FileReader{rootFD: -1, fd: -1} }

// NewFileReader returns a reader of w's folder that also refuses a hard
// link to a denied file of w under another name (as missing): a file with
// more than one link whose (device, inode) is a denied file's.
func (w *Workspace) NewFileReader() *FileReader {
	return &FileReader{rootFD: -1, fd: -1, ws: w}
}

// ReadAt reads the file rel of the folder root, appending to buf[:0]. The
// size the open file has is read and no more (size, the caller's idea of
// it, is not needed).
func (d *FileReader) ReadAt(root, rel string, size int64, buf []byte) ([]byte, error) {
	data, _, _, err := d.read(root, rel, 0, 0, buf)
	return data, err
}

// ReadHead is ReadAt that reads at most maxBytes: more reports that the
// file goes on (search it in parts through Open).
func (d *FileReader) ReadHead(root, rel string, size int64, maxBytes int, buf []byte) (data []byte, more bool, err error) {
	data, more, _, err = d.read(root, rel, 0, maxBytes, buf)
	return data, more, err
}

// Open opens the regular file rel of the folder root for reading (a FIFO
// or device is refused with NotRegularError); the caller closes it.
func (d *FileReader) Open(root, rel string) (*os.File, error) {
	fd, err := d.open(root, rel)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := d.statFD(fd, rel, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// Read reads the regular file rel of the folder root, appending to
// buf[:0], and returns its modification time (Unix ns) as the open file
// had it; the size the open file has is read and no more. A file over
// maxSize (> 0) is refused with an error wrapping ErrTooLarge before it is
// read; a FIFO or device with an error.
func (d *FileReader) Read(root, rel string, maxSize int64, buf []byte) (data []byte, mtime int64, err error) {
	data, _, mtime, err = d.read(root, rel, maxSize, 0, buf)
	return data, mtime, err
}

// read opens rel, checks it (statFD; over maxSize > 0: ErrTooLarge) and
// reads it with readFD.
func (d *FileReader) read(root, rel string, maxSize int64, maxBytes int, buf []byte) (data []byte, more bool, mtime int64, err error) {
	fd, err := d.open(root, rel)
	if err != nil {
		return buf, false, 0, err
	}
	defer sysClose(fd)
	var st unix.Stat_t
	if err := d.statFD(fd, rel, &st); err != nil {
		return buf, false, 0, err
	}
	if maxSize > 0 && st.Size > maxSize {
		return buf, false, 0, fmt.Errorf("%s is %s, over the %s limit: %w", rel, humanSize(st.Size), humanSize(maxSize), ErrTooLarge)
	}
	if testHookStat != nil {
		testHookStat()
	}
	data, more, err = readFD(fd, st.Size, maxBytes, buf[:0], d)
	return data, more, st.Mtim.Nano(), err
}

// statFD fstats the open file fd (named rel): it must be a regular file,
// and not a hard link to a denied file (see denied).
func (d *FileReader) statFD(fd int, rel string, st *unix.Stat_t) error {
	err := sysFstat(fd, st)
	for err == unix.EINTR {
		err = sysFstat(fd, st)
	}
	switch {
	case err != nil:
		return err
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return NotRegularError{Path: rel, Mode: modeOfStat(uint32(st.Mode))}
	case d.denied(st):
		return errDenied{rel: rel}
	}
	return nil
}

// denied reports whether the file st is a denied file of the reader's
// workspace by another name: only a file with more than one link can be.
func (d *FileReader) denied(st *unix.Stat_t) bool {
	return d.ws != nil && st.Nlink > 1 &&
		d.ws.deniedID(linkInfo{id: fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nlink: uint64(st.Nlink), ctime: st.Ctim.Nano()})
}

// open opens the file rel (clean, '/'-separated, relative) of the folder
// root for reading.
func (d *FileReader) open(root, rel string) (int, error) {
	dfd, name, err := d.dirOf(root, rel)
	if err != nil {
		return -1, err
	}
	for {
		fd, err := sysOpenat(dfd, name, openFlags)
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
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || d.denied(&st) {
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
		if d.ws != nil && root == d.ws.root {
			// The workspace's hold on its folder: nothing to open.
			h, err := d.ws.handle()
			if err != nil {
				return -1, "", err
			}
			d.root, d.rootFD, d.held = root, h.fd, h
		} else {
			fd, err := openRetry(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
			if err != nil {
				return -1, "", err
			}
			d.root, d.rootFD = root, fd
		}
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
		sysClose(d.fd)
	}
	d.dir, d.fd = "", -1
}

// Close releases the reader's descriptors (not the workspace's hold on
// its folder); it may be used again.
func (d *FileReader) Close() {
	d.closeDir()
	if d.rootFD >= 0 && d.held == nil {
		unix.Close(d.rootFD)
	}
	d.root, d.rootFD, d.held = "", -1, nil
}

// readSlack is how far past the size fstat reported a file reported empty
// is read: a file system that does not know a file's size (some virtual
// ones say 0) still gives its first bytes.
const readSlack = 64 << 10

// prefault makes the pages of b that this reader has not prefaulted yet
// resident in one system call (see prefaultPages) before a read(2) fills
// them: a page the kernel's copy faults in one at a time costs far more
// (17 us against 2.7 us a page, best of 20, on the virtual machines agentls
// is measured on). It remembers the buffer it last did, so a reader that
// reads every file into the same buffer prefaults each page once.
func (d *FileReader) prefault(b []byte) {
	if cap(b) == 0 {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if base != d.faultedBase {
		d.faultedBase, d.faultedLen = base, 0
	}
	if len(b) <= d.faultedLen {
		return
	}
	prefaultPages(base+uintptr(d.faultedLen), base+uintptr(len(b)))
	d.faultedLen = len(b)
}

// sniffChunk is the first read of a file longer than it, looked at for a
// NUL byte before the rest is read.
const sniffChunk = 64 << 10

// firstReadMax bounds the first buffer of a read, whatever the size: a
// larger file is sniffed for binary content before it is read whole.
const firstReadMax = 4 << 20

// readFD reads the open regular file fd, whose size was size when it was
// stat'ed, into buf: to its end or to that size, whichever comes first,
// so that a file growing while it is read costs the size it had and no
// more (it is read as that prefix), and to at most maxBytes (> 0), more
// reporting that the file goes on past them. A file over sniffChunk whose
// first 8 KiB hold a NUL byte (binary; UTF-16 with a BOM is text) is read
// no further: the prefix is enough to call it binary, and a 2 GB sparse
// file is not read into memory to find that out (nor a 200 KiB shared
// object into a search's buffer).
func readFD(fd int, size int64, maxBytes int, buf []byte, d *FileReader) (_ []byte, more bool, _ error) {
	limit := int(size)
	if size == 0 {
		limit = readSlack
	}
	if maxBytes > 0 && limit > maxBytes {
		limit, more = maxBytes, true
	}
	if first := min(limit, firstReadMax); cap(buf) < first {
		buf = make([]byte, 0, max(first, minReadBuf))
	}
	sniffed := false
	for len(buf) < limit {
		if !sniffed && len(buf) >= min(cap(buf), sniffChunk) {
			if IsBinary(buf) {
				return buf, false, nil
			}
			sniffed = true
		}
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), limit)
			copy(nb, buf)
			buf = nb
		}
		end := min(cap(buf), limit)
		if !sniffed {
			end = min(end, sniffChunk)
		}
		if d != nil {
			d.prefault(buf[:end])
		}
		n, err := sysRead(fd, buf[len(buf):end])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return buf, false, err
		}
		if n == 0 {
			return buf, false, nil // shorter than it was
		}
		buf = buf[:len(buf)+n]
	}
	return buf, more, nil
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

// testHookStat, when set, runs when a read has looked at the file's size
// (the tests grow the file then).
var testHookStat func()
