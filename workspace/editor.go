package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// A WriteRequest asks an Editor to replace (or create) one file's text.
type WriteRequest struct {
	Abs    string // resolved with ResolveWrite
	Text   string // the whole new text, "\n" line endings
	Format Format // from the File that was read; zero for a new file
	Mode   fs.FileMode
	// Create allows the file not to exist yet; without it a missing file
	// is an error.
	Create bool
	// Version is the buffer version the edit was computed against (from
	// File.Version when File.FromBuffer), or -1 when it was computed from
	// disk. An editor refuses an edit whose buffer has moved on.
	Version int32
}

// WriteResult says where a write landed.
type WriteResult struct {
	InBuffer bool   // the text went into the editor's buffer
	Saved    bool   // the text is on disk (written directly or the buffer saved)
	Note     string // for the model, e.g. "the buffer has unsaved changes; not saved to disk"
}

// An Editor carries out every write a tool makes. The LSP server's editor
// sends open files' edits to the client as workspace/applyEdit; DiskEditor
// writes files directly (the command line, MCP without an editor).
//
// Callers resolve paths with ResolveWrite, hold LockPath for the file, and
// check the read-before-write rule before calling.
type Editor interface {
	Write(ctx context.Context, req WriteRequest) (WriteResult, error)
	// Rename moves a file or directory; an existing destination is refused
	// unless overwrite (and a directory is never overwritten).
	Rename(ctx context.Context, from, to string, overwrite bool) (note string, err error)
	// Delete removes a file, or a directory when recursive; never the root
	// or anything in .git.
	Delete(ctx context.Context, abs string, recursive bool) (note string, err error)
}

// DiskEditor writes straight to disk inside WS: atomically (AtomicWrite),
// keeping the file's mode, creating parent directories. It does not touch
// the overlay; it tells OnChange subscribers (NotifyChanged) after each
// change.
type DiskEditor struct{ WS *Workspace }

var _ Editor = DiskEditor{}

// Write encodes req.Text in req.Format and writes it atomically.
func (d DiskEditor) Write(ctx context.Context, req WriteRequest) (WriteResult, error) {
	if err := ctx.Err(); err != nil {
		return WriteResult{}, err
	}
	abs, rel, err := d.WS.ResolveWrite(req.Abs)
	if err != nil {
		return WriteResult{}, err
	}
	st, err := os.Stat(abs)
	switch {
	case err == nil && st.IsDir():
		return WriteResult{}, fmt.Errorf("%s is a directory; cannot write text to it", rel)
	case err == nil && !st.Mode().IsRegular():
		return WriteResult{}, NotRegularError{Path: rel, Mode: st.Mode()}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return WriteResult{}, fmt.Errorf("write %s: %w", rel, err)
	case err != nil && !req.Create:
		return WriteResult{}, fmt.Errorf("%s does not exist: %w", rel, ErrNotExist)
	}
	mode := req.Mode
	if err == nil && mode == 0 {
		mode = st.Mode()
	}
	if err := d.WS.atomicWrite(abs, Encode(req.Text, req.Format), mode); err != nil {
		return WriteResult{}, fmt.Errorf("write %s: %w", rel, err)
	}
	d.WS.NotifyChanged(abs)
	return WriteResult{Saved: true}, nil
}

// Rename moves from to to (both resolved with ResolveWrite), creating to's
// parent directories.
func (d DiskEditor) Rename(ctx context.Context, from, to string, overwrite bool) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	fromAbs, fromRel, err := d.WS.ResolveWrite(from)
	if err != nil {
		return "", err
	}
	toAbs, toRel, err := d.WS.ResolveWrite(to)
	if err != nil {
		return "", err
	}
	if fromRel == "." || toRel == "." {
		return "", fmt.Errorf("cannot move the workspace root")
	}
	src, err := os.Lstat(fromAbs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist: %w", fromRel, ErrNotExist)
		}
		return "", err
	}
	if fromAbs == toAbs {
		return "", fmt.Errorf("source and destination are the same: %s", fromRel)
	}
	if src.IsDir() && within(fromAbs, toAbs) {
		return "", fmt.Errorf("cannot move %s into itself (%s)", fromRel, toRel)
	}
	if dst, err := os.Lstat(toAbs); err == nil {
		switch {
		case !overwrite:
			return "", fmt.Errorf("%s already exists; pass overwrite to replace it", toRel)
		case dst.IsDir():
			return "", fmt.Errorf("%s is an existing directory; it is never replaced — delete it first", toRel)
		case src.IsDir():
			return "", fmt.Errorf("cannot replace the file %s with the directory %s", toRel, fromRel)
		}
	}
	root, _, err := d.WS.osRoot()
	if err != nil {
		return "", err
	}
	if err := root.MkdirAll(filepath.FromSlash(path.Dir(toRel)), 0o755); err != nil {
		return "", fmt.Errorf("create parent of %s: %w", toRel, rootError(toAbs, err))
	}
	// Beneath the root: a directory on either path swapped for a symlink
	// since ResolveWrite cannot lead the rename out.
	if err := root.Rename(filepath.FromSlash(fromRel), filepath.FromSlash(toRel)); err != nil {
		return "", fmt.Errorf("move %s to %s: %w", fromRel, toRel, rootError(fromAbs, err))
	}
	d.WS.NotifyChanged(fromAbs)
	d.WS.NotifyChanged(toAbs)
	return "", nil
}

// Delete removes abs (resolved with ResolveWrite): a file or symlink, or a
// directory with everything in it when recursive.
func (d DiskEditor) Delete(ctx context.Context, abs string, recursive bool) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	abs, rel, err := d.WS.ResolveWrite(abs)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", fmt.Errorf("refusing to delete the workspace root %s", d.WS.Root())
	}
	st, err := os.Lstat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist: %w", rel, ErrNotExist)
		}
		return "", err
	}
	// Beneath the root: a directory swapped for a symlink since
	// ResolveWrite, or during a recursive delete, cannot lead it out.
	root, _, err := d.WS.osRoot()
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		if !recursive {
			return "", fmt.Errorf("%s is a directory; pass recursive to delete it and everything in it", rel)
		}
		if err := root.RemoveAll(filepath.FromSlash(rel)); err != nil {
			return "", fmt.Errorf("delete %s: %w", rel, rootError(abs, err))
		}
		d.WS.NotifyChanged(abs)
		return "", nil
	}
	if err := root.Remove(filepath.FromSlash(rel)); err != nil {
		return "", fmt.Errorf("delete %s: %w", rel, rootError(abs, err))
	}
	d.WS.NotifyChanged(abs)
	return "", nil
}

// TempPrefix starts the name of every temporary file AtomicWrite makes.
const TempPrefix = ".agentls-tmp-"

// AtomicWrite replaces abs with data so that readers see the old or the
// new content, never a mix: it writes a temporary file in the same
// directory, syncs it, gives it mode (0 keeps the existing file's mode, or
// 0644 for a new file) and renames it over abs. Missing parent directories
// are created. When abs is a symlink, the file it points to is replaced
// and the link kept.
func AtomicWrite(abs string, data []byte, mode fs.FileMode) error {
	if st, err := os.Lstat(abs); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
	}
	dir := filepath.Dir(abs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return writeBeneath(root, filepath.Base(abs), data, mode)
}

// atomicWrite is AtomicWrite beneath the workspace root (os.Root): every
// directory and file it creates, opens or renames is resolved inside the
// root at the moment of use, so a directory swapped for a symlink after
// ResolveWrite checked the path cannot lead the write out. A symlink named
// by abs is kept and the file it points to (inside the root) replaced.
func (w *Workspace) atomicWrite(abs string, data []byte, mode fs.FileMode) error {
	if real, err := resolveLinks(abs); err == nil && within(w.root, real) {
		abs = real
	}
	rel, ok := relBeneath(w.root, abs)
	if !ok || rel == "." {
		return fmt.Errorf("%w: %s is not a file inside %s", ErrOutside, abs, w.root)
	}
	root, _, err := w.osRoot()
	if err != nil {
		return err
	}
	return rootError(abs, writeBeneath(root, rel, data, mode))
}

// writeBeneath is the atomic write itself, every name resolved beneath
// root: missing parents of rel are created, data goes to a new temporary
// file beside rel, which is synced, given mode (0 keeps rel's mode, or 0644
// for a new file) and renamed over rel; then the directory is synced.
func writeBeneath(root *os.Root, rel string, data []byte, mode fs.FileMode) error {
	if mode == 0 {
		mode = 0o644
		if st, err := root.Stat(rel); err == nil {
			mode = st.Mode()
		}
	}
	dir := filepath.Dir(rel)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var tmp *os.File
	var name string
	var err error
	for range 100 {
		name = filepath.Join(dir, TempPrefix+strconv.FormatUint(rand.Uint64(), 36))
		tmp, err = root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	fail := func(err error) error {
		tmp.Close()
		root.Remove(name)
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(mode.Perm() | mode&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		root.Remove(name)
		return err
	}
	if err := root.Rename(name, rel); err != nil {
		root.Remove(name)
		return err
	}
	// Make the rename durable; not every system can sync a directory.
	if d, err := root.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// CleanTemp removes temporary files that AtomicWrite left behind when a
// process died mid-write (names starting with TempPrefix) anywhere under
// root, ignored and hidden directories included, but not inside .git and
// not through symlinks. It walks in parallel (see Walk), so it is cheap
// enough to run when a session starts; a write in progress in another
// process at that moment would fail (cleanly) at its rename.
func CleanTemp(root string) {
	w, err := New(root)
	if err != nil {
		return
	}
	opts := WalkOptions{Hidden: true, IncludeIgnored: true, IncludeDenied: true, NoStat: true, Parallel: 4}
	w.Walk(context.Background(), "", opts, func(e WalkEntry) error {
		if !e.IsDir && e.Mode.IsRegular() && strings.HasPrefix(e.Name(), TempPrefix) {
			os.Remove(e.Abs)
		}
		return nil
	})
}
