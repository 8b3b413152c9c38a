//go:build !unix

package textsearch

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
)

// dirReader reads the files of a workspace folder beneath it, through an
// os.Root of the folder: a symlink or ".." that would lead out fails, even
// one swapped in after the walk.
type dirReader struct {
	root string
	r    *os.Root
}

func newDirReader() *dirReader { return &dirReader{} }

// read reads the file f (Abs, Rel, Size) into buf.
func (d *dirReader) read(f File, buf []byte) ([]byte, error) {
	root, ok := rootOf(f.Abs, f.Rel)
	if !ok {
		return buf, errBadPath
	}
	return d.readAt(root, f.Rel, f.Size, buf)
}

// readAt reads the file rel ('/'-separated) of the folder root into buf;
// size is a hint for the buffer.
func (d *dirReader) readAt(root, rel string, size int64, buf []byte) ([]byte, error) {
	r, err := d.rootFor(root)
	if err != nil {
		return buf, err
	}
	file, err := r.Open(filepath.FromSlash(rel))
	if err != nil {
		return buf, err
	}
	defer file.Close()
	b := bytes.NewBuffer(buf)
	b.Grow(int(size) + 1)
	_, err = b.ReadFrom(file)
	return b.Bytes(), err
}

// stat returns the size and mtime (Unix ns) of the regular file rel of the
// folder root; ok is false when it is missing or not a regular file.
func (d *dirReader) stat(root, rel string) (size, mtime int64, ok bool) {
	r, err := d.rootFor(root)
	if err != nil {
		return 0, 0, false
	}
	fi, err := r.Lstat(filepath.FromSlash(rel))
	if err != nil || !fi.Mode().IsRegular() {
		return 0, 0, false
	}
	return fi.Size(), fi.ModTime().UnixNano(), true
}

func (d *dirReader) rootFor(root string) (*os.Root, error) {
	if d.r != nil && d.root == root {
		return d.r, nil
	}
	d.close()
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	d.root, d.r = root, r
	return r, nil
}

func (d *dirReader) close() {
	if d.r != nil {
		d.r.Close()
	}
	d.root, d.r = "", nil
}

// rootOf is the folder that abs lies in when rel ('/'-separated) is its
// path relative to that folder.
func rootOf(abs, rel string) (string, bool) {
	rel = filepath.FromSlash(rel)
	if rel == "" || !filepath.IsLocal(rel) || len(abs) < len(rel)+1 || abs[len(abs)-len(rel):] != rel || !os.IsPathSeparator(abs[len(abs)-len(rel)-1]) {
		return "", false
	}
	return filepath.Clean(abs[:len(abs)-len(rel)]), true
}

var errBadPath = fs.ErrInvalid
