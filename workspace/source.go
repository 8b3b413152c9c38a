package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// A Source reads a file by absolute path. The workspace's read view is two
// Sources stacked: the overlay of open buffers answers first and hands every
// other path to Disk. ReadFile, ReadRaw and the walkers' readers all go
// through that one stack, so every tool sees the same merged view.
type Source interface {
	// Read returns the content of abs. maxSize > 0 refuses a larger file
	// with an error wrapping ErrTooLarge before reading it; maxSize <= 0
	// reads any size. A missing file gives an error wrapping
	// fs.ErrNotExist; a directory or another non-regular file an error
	// saying so. Errors name abs; callers rephrase them for the model.
	Read(abs string, maxSize int64) (Content, error)
}

// Content is one file as a Source holds it.
type Content struct {
	// Data is the file's bytes on disk, or the buffer's text (UTF-8, line
	// endings as the editor has them). It is shared: do not modify it.
	Data       []byte
	FromBuffer bool
	Version    int32 // the buffer's version when FromBuffer
	// Format, for a buffer, is the disk file's encoding and BOM and the
	// buffer's line endings; for disk content it is zero (Decode finds it).
	Format  Format
	Mode    fs.FileMode // disk only
	ModTime time.Time   // disk only
	Size    int64       // len(Data) (for disk: the size when opened)

	text string      // the buffer text with "\n" line endings (FromBuffer only)
	info fs.FileInfo // disk only: the open file's stat (for its identity)
}

// Disk is the Source of the file system. With NoFollow a symlink in the
// last component is refused rather than followed (for paths found by a
// walk, which never follows links).
//
// With Root set, abs must lie under Root and is opened beneath it (os.Root):
// a symlink or ".." that would lead out fails, even one swapped in after
// the path was checked. The workspace's read view always sets it.
type Disk struct {
	NoFollow bool
	Root     string

	w *Workspace // the workspace of Root, whose hold on the folder opens files
}

// Read implements Source.
func (d Disk) Read(abs string, maxSize int64) (Content, error) {
	var (
		f   *os.File
		err error
	)
	if d.Root != "" {
		f, err = d.openBeneath(abs)
	} else {
		flags := os.O_RDONLY | oNonBlock
		if d.NoFollow {
			flags |= oNoFollow
		}
		f, err = os.OpenFile(abs, flags, 0)
	}
	if err != nil {
		if d.NoFollow && !errors.Is(err, fs.ErrNotExist) {
			if st, lerr := os.Lstat(abs); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
				return Content{}, fmt.Errorf("%s is a symlink; it is not followed", abs)
			}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			// A socket cannot be opened at all (ENXIO): say what it is.
			if st, serr := os.Stat(abs); serr == nil && !st.Mode().IsRegular() && !st.IsDir() {
				return Content{}, NotRegularError{Path: abs, Mode: st.Mode()}
			}
		}
		return Content{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Content{}, err
	}
	switch {
	case st.IsDir():
		return Content{}, fmt.Errorf("%s: %w", abs, errIsDir)
	case !st.Mode().IsRegular():
		return Content{}, NotRegularError{Path: abs, Mode: st.Mode()}
	case maxSize > 0 && st.Size() > maxSize:
		return Content{}, fmt.Errorf("%s is %s, over the %s limit: %w", abs, humanSize(st.Size()), humanSize(maxSize), ErrTooLarge)
	}
	data := make([]byte, st.Size())
	n, err := io.ReadFull(f, data)
	if err == io.EOF || err == io.ErrUnexpectedEOF { // shrank meanwhile
		err = nil
	}
	if err != nil {
		return Content{}, err
	}
	return Content{Data: data[:n], Mode: st.Mode(), ModTime: st.ModTime(), Size: int64(n), info: st}, nil
}

var errIsDir = errors.New("is a directory")

// openBeneath opens abs for reading beneath d.Root.
func (d Disk) openBeneath(abs string) (*os.File, error) {
	rel, ok := relBeneath(d.Root, abs)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not inside %s", ErrOutside, abs, d.Root)
	}
	if d.w != nil {
		return d.w.openFile(abs, filepath.ToSlash(rel), !d.NoFollow)
	}
	root, err := os.OpenRoot(d.Root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if d.NoFollow {
		// os.Root follows a final symlink that stays inside; refuse it
		// here, as the walk that found the path would have.
		if st, err := root.Lstat(rel); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symlink; it is not followed", abs)
		}
	}
	// Non-blocking: opening a FIFO for reading would otherwise wait for a
	// writer forever. Read checks the type before reading a byte.
	f, err := root.OpenFile(rel, os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return nil, rootError(abs, err)
	}
	return f, nil
}

// NotRegularError is the error for a path that is a named pipe, socket or
// device: no tool reads or writes one (a read of a FIFO would wait for a
// writer forever). Path is as the caller named the file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, FileKind(e.Mode))
}

// FileKind names the type of a file the way a message to the model does:
// "a named pipe", "a socket", "a character device".
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// Readlink returns the target of the symlink abs (inside the root, as Walk
// reports it), read beneath the root (os.Root): a directory above it that
// was swapped for a symlink leading out since the walk fails with an error
// wrapping ErrOutside instead of reading a link outside (os.Readlink(abs)
// would follow such a directory). A denied path reads as missing.
func (w *Workspace) Readlink(abs string) (string, error) {
	rel, ok := relBeneath(w.root, abs)
	if !ok {
		return "", w.outside(abs)
	}
	if w.Denied(abs) {
		return "", errDenied{rel: w.Rel(abs)}
	}
	root, _, err := w.osRoot()
	if err != nil {
		return "", err
	}
	target, err := root.Readlink(rel)
	return target, rootError(abs, err)
}

// relBeneath is abs relative to root (OS separators, "." for root itself),
// or false when abs is not root or under it.
func relBeneath(root, abs string) (string, bool) {
	abs = filepath.Clean(abs)
	if !within(root, abs) {
		return "", false
	}
	if abs == root {
		return ".", true
	}
	return abs[len(root)+len(sepAfter(root)):], true
}

// rootError rephrases an os.Root error about a path that would leave the
// root, which happens only when the tree changed after Resolve checked it.
func rootError(abs string, err error) error {
	if isEscape(err) {
		return fmt.Errorf("%w: %s leads outside the workspace root (it changed while in use)", ErrOutside, abs)
	}
	return err
}

// overlaySource answers from the workspace's open buffers and asks next for
// every other path.
type overlaySource struct {
	w    *Workspace
	next Source
}

func (s overlaySource) Read(abs string, maxSize int64) (Content, error) {
	o, ok := s.w.overlay(abs)
	if !ok {
		return s.next.Read(abs, maxSize)
	}
	return Content{
		Data:       []byte(o.buf.Text),
		FromBuffer: true,
		Version:    o.buf.Version,
		Format:     o.format,
		Size:       int64(len(o.buf.Text)),
		text:       o.norm,
	}, nil
}

// Read implements Source for the workspace's merged view: the buffer of
// abs when it is open, else the file on disk (following symlinks; confine
// abs with Resolve first). A path on the deny list reads as missing.
func (w *Workspace) Read(abs string, maxSize int64) (Content, error) {
	if w.Denied(abs) {
		return Content{}, errDenied{rel: w.Rel(abs)}
	}
	c, err := w.src.Read(abs, maxSize)
	if err == nil && w.contentDenied(abs, c) {
		return Content{}, errDenied{rel: w.Rel(abs)}
	}
	return c, err
}

var _ Source = (*Workspace)(nil)
