//go:build unix

package textsearch

import "syscall"

// readFile reads the file at abs into buf (grown as needed), with raw system
// calls: no *os.File, no poller registration, no fstat — size comes from the
// walk. Symlinks are not followed.
func readFile(abs string, size int64, buf []byte) ([]byte, error) {
	fd, err := syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return buf, err
	}
	defer syscall.Close(fd)
	if want := int(size) + 1; cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
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
