//go:build !unix

package workspace

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// FileReader reads the files of a workspace folder beneath it, through an
// os.Root of the folder: a symlink or ".." that would lead out fails, even
// one swapped in after the walk. It belongs to one goroutine at a time;
// Close releases it. Paths are '/'-separated and relative to the folder.
type FileReader struct {
	root string
	r    *os.Root
}

// NewFileReader returns a reader with nothing open yet.
func NewFileReader() *FileReader { return &FileReader{} }

// NewFileReader returns a reader of w's folder. Hard links are not
// recognised here (no inode numbers): it is NewFileReader.
func (w *Workspace) NewFileReader() *FileReader { return &FileReader{} }

// ReadAt reads the file rel of the folder root, appending to buf[:0];
// size is a hint for the buffer.
func (d *FileReader) ReadAt(root, rel string, size int64, buf []byte) ([]byte, error) {
	r, err := d.rootFor(root)
	if err != nil {
		return buf, err
	}
	file, err := r.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return buf, err
	}
	defer file.Close()
	if st, err := file.Stat(); err == nil {
		size = st.Size() // read no more than the size it has now
	}
	b := bytes.NewBuffer(buf[:0])
	b.Grow(int(size) + 1)
	_, err = b.ReadFrom(io.LimitReader(file, size+readSlack))
	return b.Bytes(), err
}

// Read reads the regular file rel of the folder root, appending to
// buf[:0], and returns its modification time (Unix ns). A file over
// maxSize (> 0) is refused with an error wrapping ErrTooLarge.
func (d *FileReader) Read(root, rel string, maxSize int64, buf []byte) ([]byte, int64, error) {
	r, err := d.rootFor(root)
	if err != nil {
		return buf, 0, err
	}
	file, err := r.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return buf, 0, err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return buf, 0, err
	}
	if !st.Mode().IsRegular() {
		return buf, 0, NotRegularError{Path: rel, Mode: st.Mode()}
	}
	if maxSize > 0 && st.Size() > maxSize {
		return buf, 0, fmt.Errorf("%s is %s, over the %s limit: %w", rel, humanSize(st.Size()), humanSize(maxSize), ErrTooLarge)
	}
	b := bytes.NewBuffer(buf[:0])
	b.Grow(int(st.Size()) + 1)
	_, err = b.ReadFrom(io.LimitReader(file, st.Size()+readSlack))
	return b.Bytes(), st.ModTime().UnixNano(), err
}

// Stat returns the size and mtime (Unix ns) of the regular file rel of the
// folder root; ok is false when it is missing or not a regular file.
func (d *FileReader) Stat(root, rel string) (size, mtime int64, ok bool) {
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

func (d *FileReader) rootFor(root string) (*os.Root, error) {
	if d.r != nil && d.root == root {
		return d.r, nil
	}
	d.Close()
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	d.root, d.r = root, r
	return r, nil
}

// Close releases the reader's root; it may be used again.
func (d *FileReader) Close() {
	if d.r != nil {
		d.r.Close()
	}
	d.root, d.r = "", nil
}

// ReadHead is ReadAt that reads at most maxBytes: more reports that the
// file goes on (search it in parts through Open).
func (d *FileReader) ReadHead(root, rel string, size int64, maxBytes int, buf []byte) ([]byte, bool, error) {
	file, err := d.Open(root, rel)
	if err != nil {
		return buf, false, err
	}
	defer file.Close()
	if st, err := file.Stat(); err == nil && st.Size()+readSlack < int64(maxBytes) {
		maxBytes = int(st.Size() + readSlack) // the size it has now, and no more
	}
	b := bytes.NewBuffer(buf[:0])
	n, err := b.ReadFrom(io.LimitReader(file, int64(maxBytes)+1))
	if n > int64(maxBytes) {
		return b.Bytes()[:maxBytes], true, err
	}
	return b.Bytes(), false, err
}

// Open opens the regular file rel of the folder root for reading; the
// caller closes it.
func (d *FileReader) Open(root, rel string) (*os.File, error) {
	r, err := d.rootFor(root)
	if err != nil {
		return nil, err
	}
	file, err := r.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	if st, err := file.Stat(); err != nil || !st.Mode().IsRegular() {
		file.Close()
		if err == nil {
			err = NotRegularError{Path: rel, Mode: st.Mode()}
		}
		return nil, err
	}
	return file, nil
}

// readSlack is how far past the size it had when opened a file is read: one
// that grows meanwhile is read as that prefix.
const readSlack = 64 << 10
