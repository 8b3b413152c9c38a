package workspace

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// A Buffer is the state of one file open in the editor.
type Buffer struct {
	Path    string // absolute, cleaned; the overlay key
	Version int32  // the editor's document version
	Opening uint64 // unique to this opening of the buffer (versions restart on a reopen)
	Text    string // the full text exactly as the editor sent it
	// Dirty: the buffer's text (line endings normalised) differs from the
	// disk text last seen when the buffer was opened or saved.
	Dirty bool
	// Modified is when the text last changed here (opened or changed): a
	// buffer with no file on disk has no other modification time.
	Modified time.Time
}

// An overlay is one open buffer. Overlays are immutable once published in
// Workspace.bufs; every change builds a new one.
type overlay struct {
	buf      Buffer
	norm     string // buf.Text with CRLF normalised to "\n"
	format   Format // encoding and BOM of the file on disk; CRLF of the buffer
	diskText string // normalised disk text last seen at open or save
	onDisk   bool   // the file existed on disk at open or save
	// hist holds the last changes that led to buf.Text, oldest first, each
	// from the version the previous one left (see EditsSince). It is never
	// appended to in place: an overlay shares it with its predecessor.
	hist []change
}

// An Edit replaces the bytes Start to End of a buffer's text with New.
type Edit struct {
	Start, End int
	New        string
}

// change is one didChange of a buffer: the edits, in order, each against
// the text the previous one left, that turned version from into to.
type change struct {
	from, to int32
	edits    []Edit
	size     int // bytes of New held
}

// Limits of the change history an overlay keeps for EditsSince.
const (
	maxHistChanges = 64
	maxHistBytes   = 1 << 20
)

// Open records a buffer the editor opened (textDocument/didOpen). path is
// absolute; the LSP side converts URIs. The disk copy is read once, to know
// its encoding and whether the buffer is dirty.
func (w *Workspace) Open(path string, version int32, text string) {
	path = filepath.Clean(path)
	o := &overlay{}
	disk := Disk{} // a file outside the folder: no tool reaches it anyway
	if w.Contains(path) {
		// Beneath the folder, as every read: a link that leads out reads
		// as no file on disk.
		disk = Disk{Root: w.root, w: w}
	}
	if c, err := disk.Read(path, 0); err == nil {
		if t, f, err := Decode(c.Data); err == nil {
			o.diskText, o.format, o.onDisk = t, f, true
		}
	}
	o.buf.Opening = openings.Add(1)
	w.publish(path, func(old *overlay) *overlay { return o.with(version, text) })
}

var openings atomic.Uint64

// Change replaces the text of an open buffer (textDocument/didChange; the
// LSP side applies incremental changes and passes the full new text). A
// change to a buffer that is not open opens it.
func (w *Workspace) Change(path string, version int32, text string) {
	w.ChangeEdits(path, version, text, nil)
}

// ChangeEdits is Change for a change known as edits: applied in order,
// each to the text the previous one left, they turn the buffer's current
// text into text. Readers of the buffer that keep state built on an older
// version (the code index) get them from EditsSince instead of comparing
// the texts. nil edits mean the change is not known as edits.
func (w *Workspace) ChangeEdits(path string, version int32, text string, edits []Edit) {
	path = filepath.Clean(path)
	if _, ok := w.overlay(path); !ok {
		w.Open(path, version, text)
		return
	}
	w.publish(path, func(old *overlay) *overlay {
		if old == nil { // closed meanwhile
			return nil
		}
		o := *old
		o.hist = nextHist(old.hist, change{from: old.buf.Version, to: version, edits: edits})
		return o.with(version, text)
	})
}

// nextHist is hist with c added, the oldest changes dropped past the
// limits; a change not known as edits clears it.
func nextHist(hist []change, c change) []change {
	if c.edits == nil {
		return nil
	}
	for _, e := range c.edits {
		c.size += len(e.New)
	}
	if c.size > maxHistBytes {
		return nil
	}
	total := c.size
	keep := len(hist)
	for keep > 0 && len(hist)-keep < maxHistChanges-1 && total+hist[keep-1].size <= maxHistBytes {
		total += hist[keep-1].size
		keep--
	}
	out := make([]change, 0, len(hist)-keep+1)
	return append(append(out, hist[keep:]...), c)
}

// EditsSince returns the open buffer of path and the edits that turned its
// text at version since of the same opening into its text now: in order,
// each against the text the previous one left; none when the buffer is
// still at since. ok is false when the buffer is not open, is denied, was
// opened anew, or the edits are not known (a change sent as whole text, or
// older than the history kept); compare the texts then.
func (w *Workspace) EditsSince(path string, opening uint64, since int32) (b Buffer, edits []Edit, ok bool) {
	path = filepath.Clean(path)
	o, open := w.overlay(path)
	if !open || w.Denied(path) {
		return Buffer{}, nil, false
	}
	if o.buf.Opening != opening {
		return o.buf, nil, false
	}
	if o.buf.Version == since {
		return o.buf, nil, true
	}
	i := len(o.hist) - 1
	for i >= 0 && o.hist[i].from != since {
		i--
	}
	if i < 0 {
		return o.buf, nil, false
	}
	for j := i; j < len(o.hist); j++ {
		if j > i && o.hist[j].from != o.hist[j-1].to {
			return o.buf, nil, false
		}
		edits = append(edits, o.hist[j].edits...)
	}
	if o.hist[len(o.hist)-1].to != o.buf.Version {
		return o.buf, nil, false
	}
	return o.buf, edits, true
}

// Close forgets a buffer (textDocument/didClose): reads go to disk again.
func (w *Workspace) Close(path string) {
	w.publish(filepath.Clean(path), func(*overlay) *overlay { return nil })
}

// Saved records that the disk now holds the buffer's text
// (textDocument/didSave, or a save the agent asked for): Dirty becomes
// false.
func (w *Workspace) Saved(path string) {
	w.publish(filepath.Clean(path), func(old *overlay) *overlay {
		if old == nil {
			return nil
		}
		o := *old
		o.diskText, o.onDisk, o.buf.Dirty = o.norm, true, false
		return &o
	})
}

// with returns a copy of o holding text at version.
func (o overlay) with(version int32, text string) *overlay {
	o.buf.Version = version
	o.buf.Text = text
	o.buf.Modified = time.Now()
	o.norm = text
	o.format.CRLF = false
	if strings.Contains(text, "\r\n") {
		o.format.CRLF = true
		o.norm = strings.ReplaceAll(text, "\r\n", "\n")
	}
	o.buf.Dirty = !o.onDisk || o.norm != o.diskText
	return &o
}

// publish replaces the overlay of path with next(old) (nil removes it),
// wakes WaitVersion callers and then calls the OnChange subscribers.
func (w *Workspace) publish(path string, next func(old *overlay) *overlay) {
	w.mu.Lock()
	cur := *w.bufs.Load()
	old := cur[path]
	o := next(old)
	if o == nil && old == nil {
		w.mu.Unlock()
		return
	}
	if o == nil && !old.onDisk || old == nil && !o.onDisk {
		w.unsaved.Add(1) // a buffer-only file came or went
	}
	m := maps.Clone(cur)
	if o == nil {
		delete(m, path)
	} else {
		o.buf.Path = path
		m[path] = o
	}
	w.bufs.Store(&m)
	close(w.changed)
	w.changed = make(chan struct{})
	subs := slices.Collect(maps.Values(w.subs))
	w.mu.Unlock()
	for _, fn := range subs {
		fn(path)
	}
}

// UnsavedVersion changes whenever a buffer with no file on disk (as seen
// when it was opened or last saved) is opened or closed: what a walk lists
// then changes without any directory on disk changing (see Walk), and a
// cached listing must be made again.
func (w *Workspace) UnsavedVersion() uint64 { return w.unsaved.Load() }

func (w *Workspace) overlay(path string) (*overlay, bool) {
	o, ok := (*w.bufs.Load())[path]
	return o, ok
}

// Buffer returns the open buffer of the absolute path, if any. A buffer of
// a file on the secrets deny list is not returned: for the tools (and the
// code index) it does not exist, as the file does not. Writes never reach
// such a path (ResolveWrite refuses it), so the editor needs it neither.
func (w *Workspace) Buffer(path string) (Buffer, bool) {
	if len(*w.bufs.Load()) == 0 { // the common case for a search's every file
		return Buffer{}, false
	}
	path = filepath.Clean(path)
	o, ok := w.overlay(path)
	if !ok || w.Denied(path) {
		return Buffer{}, false
	}
	return o.buf, true
}

// Buffers returns every open buffer that tools may see, sorted by path:
// buffers of files on the secrets deny list are left out, as in Buffer.
func (w *Workspace) Buffers() []Buffer {
	m := *w.bufs.Load()
	out := make([]Buffer, 0, len(m))
	for _, o := range m {
		if w.Denied(o.buf.Path) || w.IsDeniedLink(o.buf.Path) {
			continue
		}
		out = append(out, o.buf)
	}
	slices.SortFunc(out, func(a, b Buffer) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// WaitVersion blocks until the buffer of path is open at version or later
// (an edit sent through workspace/applyEdit comes back as a didChange), or
// ctx is done.
func (w *Workspace) WaitVersion(ctx context.Context, path string, version int32) error {
	path = filepath.Clean(path)
	for {
		w.mu.Lock()
		o, ok := (*w.bufs.Load())[path]
		ch := w.changed
		w.mu.Unlock()
		if ok && o.buf.Version >= version {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			have := "not open"
			if ok {
				have = fmt.Sprintf("at version %d", o.buf.Version)
			}
			return fmt.Errorf("waiting for %s to reach version %d (it is %s): %w", path, version, have, ctx.Err())
		}
	}
}

// OnChange subscribes fn to changes: it is called with the absolute path
// after every Open, Change, Close and Saved, and after every write, rename
// or delete made through DiskEditor (see NotifyChanged). fn runs in the
// goroutine that made the change and must be quick; it may read the
// workspace. cancel unsubscribes.
func (w *Workspace) OnChange(fn func(path string)) (cancel func()) {
	w.mu.Lock()
	id := w.nextSub
	w.nextSub++
	w.subs[id] = fn
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.subs, id)
		w.mu.Unlock()
	}
}

// NotifyChanged tells the OnChange subscribers that the file (or directory)
// at abs changed on disk. Editors call it after writing; file watchers may
// call it too.
func (w *Workspace) NotifyChanged(abs string) {
	w.mu.Lock()
	subs := slices.Collect(maps.Values(w.subs))
	w.mu.Unlock()
	for _, fn := range subs {
		fn(filepath.Clean(abs))
	}
}
