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
