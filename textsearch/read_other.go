//go:build !unix

package textsearch

import (
	"bytes"
	"os"
)

// readFile reads the file at abs into buf.
func readFile(abs string, size int64, buf []byte) ([]byte, error) {
	f, err := os.Open(abs)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	b := bytes.NewBuffer(buf)
	b.Grow(int(size) + 1)
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

// lstat returns the size and mtime (Unix ns) of the regular file at abs;
// ok is false when it is missing or not a regular file.
func lstat(abs string) (size, mtime int64, ok bool) {
	fi, err := os.Lstat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, 0, false
	}
	return fi.Size(), fi.ModTime().UnixNano(), true
}
