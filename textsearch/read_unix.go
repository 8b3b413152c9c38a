//go:build unix

package textsearch

import "syscall"

// minReadBuf is the smallest read buffer: most source files fit.
const minReadBuf = 256 << 10

// readFile reads the file at abs into buf (grown as needed), with raw system
// calls: no *os.File, no poller registration, no fstat — size comes from the
// walk. Symlinks are not followed.
func readFile(abs string, size int64, buf []byte) ([]byte, error) {
	fd, err := syscall.Open(abs, openFlags, 0)
	if err != nil {
		return buf, err
	}
	defer syscall.Close(fd)
	return readFD(fd, size, buf)
}

// openFlags open a file for reading: never a symlink, never blocking on a
// FIFO.
const openFlags = syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// readFD reads the open file fd to its end into buf.
func readFD(fd int, size int64, buf []byte) ([]byte, error) {
	if want := int(size) + 1; cap(buf) < want {
		buf = make([]byte, 0, max(want, minReadBuf))
	}
	statted := false
	for {
		if len(buf) == cap(buf) {
			// Larger than the buffer: grow once to the file's size.
			want := 2 * cap(buf)
			var st syscall.Stat_t
			if !statted && syscall.Fstat(fd, &st) == nil && int(st.Size) >= len(buf) {
				want = int(st.Size) + 1
			}
			statted = true
			nb := make([]byte, len(buf), want)
			copy(nb, buf)
			buf = nb
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
