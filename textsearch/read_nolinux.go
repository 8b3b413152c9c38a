//go:build !linux

package textsearch

import "os"

// dirReader reads files by their absolute paths (see read_linux.go for the
// descriptor-relative reader).
type dirReader struct{}

func newDirReader() *dirReader { return &dirReader{} }

func (d *dirReader) read(abs string, size int64, buf []byte) ([]byte, error) {
	return readFile(abs, size, buf)
}

func (d *dirReader) close() {}

// lstat returns the size and mtime (Unix ns) of the regular file at abs;
// ok is false when it is missing or not a regular file.
func lstat(abs string) (size, mtime int64, ok bool) {
	fi, err := os.Lstat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, 0, false
	}
	return fi.Size(), fi.ModTime().UnixNano(), true
}
