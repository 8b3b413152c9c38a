package textsearch

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/workspace"
)

// Table keeps, within a byte budget, the contents of the files of one of
// the workspace's file tables (workspace.FileTable: the files a walk of the
// whole folder visits, kept by the workspace), so that a repeated search in
// a running server neither walks the tree nor reads unchanged files.
//
// Cached content is checked against the file's size and mtime before use,
// as git's index does; content whose mtime is within racyWindow of when it
// was read is never kept, so writes within one timestamp tick are not
// missed. Invalidate (wired to the workspace's change events) drops
// entries early.
//
// A Table is safe for concurrent use; cached contents are immutable.
type Table struct {
	files  *workspace.FileTable
	root   string
	budget int64                // bytes of content kept
	ws     *workspace.Workspace // files are read through its readers

	mu     sync.Mutex
	list   *workspace.FileList             // the list the slots are for
	slots  []atomic.Pointer[cachedContent] // by index in list.Files
	cached atomic.Int64
}

type cachedContent struct {
	size  int64
	mtime int64 // UnixNano
	data  []byte
}

// racyWindow: content modified this recently is re-read, not trusted.
const racyWindow = 2 * time.Second

// maxCachedFile is the largest file whose content is kept.
const maxCachedFile = 8 << 20

// DefaultCacheBudget is the content a Table keeps by default.
const DefaultCacheBudget = 256 << 20

// NewTable makes a table that keeps up to budget bytes (0: none) of the
// contents of ws's files as files lists them, reading them through ws's
// readers (which pass over a hard link to a denied file).
func NewTable(ws *workspace.Workspace, files *workspace.FileTable, budget int64) *Table {
	return &Table{files: files, root: ws.Root(), budget: budget, ws: ws}
}

// Invalidate tells the table that the file or directory at abs changed.
func (t *Table) Invalidate(abs string) {
	t.mu.Lock()
	l, slots := t.list, t.slots
	t.mu.Unlock()
	if l == nil || !t.ws.Contains(abs) {
		return
	}
	if i, ok := l.Find(t.ws.Rel(abs)); ok {
		if c := slots[i].Swap(nil); c != nil {
			t.cached.Add(-int64(len(c.data)))
		}
	}
}

// CachedBytes is the content held now.
func (t *Table) CachedBytes() int64 { return t.cached.Load() }

// Skipped is what the file table's last walk passed over as hidden or
// ignored (nil before the first search).
func (t *Table) Skipped() *workspace.Skipped {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.list == nil {
		return nil
	}
	return t.list.Skipped
}

// snapshot returns the file table's current list and the content slots
// for it: when the list is a new walk's, the content of the files in both
// carries over (checked against size and mtime at use, as always).
func (t *Table) snapshot(ctx context.Context) (*workspace.FileList, []atomic.Pointer[cachedContent], error) {
	l, err := t.files.List(ctx)
	if err != nil {
		return nil, nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if l == t.list {
		return l, t.slots, nil
	}
	slots := make([]atomic.Pointer[cachedContent], len(l.Files))
	var kept int64
	if old := t.list; old != nil {
		i := 0
		for j, f := range l.Files {
			for i < len(old.Files) && old.Files[i].Rel < f.Rel {
				i++
			}
			if i < len(old.Files) && old.Files[i].Rel == f.Rel {
				if c := t.slots[i].Load(); c != nil {
					slots[j].Store(c)
					kept += int64(len(c.data))
				}
			}
		}
	}
	t.list, t.slots = l, slots
	t.cached.Store(kept)
	return l, slots, nil
}

// Overlay gives the text of an open buffer standing in for the file at abs.
type Overlay func(abs string) ([]byte, bool)

// Source lists the table's files under the directory dirRel ("." for all)
// that filter selects, with overlay's buffers in place of their files and
// cached content where the file is unchanged.
func (t *Table) Source(dirRel string, filter *Filter, overlay Overlay) Source {
	return func(ctx context.Context, fn func(File)) error {
		l, slots, err := t.snapshot(ctx)
		if err != nil {
			return err
		}
		files := l.Under(dirRel)
		base, _ := l.Find(files0Rel(files))
		// Workers claim runs of files, so that a worker reads the files of
		// one directory in a row through one directory descriptor.
		const run = 16
		var next atomic.Int64
		var wg sync.WaitGroup
		for range Workers() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var buf []byte
				dr := t.ws.NewFileReader()
				defer dr.Close()
				for ctx.Err() == nil {
					lo := int(next.Add(run) - run)
					if lo >= len(files) {
						return
					}
					for i := lo; i < min(lo+run, len(files)); i++ {
						f := &files[i]
						if ctx.Err() != nil {
							return
						}
						if filter != nil && !filter.Match(f.Rel) {
							continue
						}
						if text, ok := overlay(f.Abs); ok {
							fn(File{Abs: f.Abs, Rel: f.Rel, Text: text})
							continue
						}
						if f.Buffer {
							continue // closed since the walk, and not on disk
						}
						data, size, ok := t.content(f.Rel, &slots[base+i], dr, &buf)
						if !ok {
							continue // gone since the walk
						}
						// A file over partSize comes without its text: the
						// search reads it in parts.
						fn(File{Abs: f.Abs, Rel: f.Rel, Text: data, Size: size})
					}
				}
			}()
		}
		wg.Wait()
		return ctx.Err()
	}
}

// files0Rel is the Rel of the first of files ("" for none).
func files0Rel(files []workspace.FileEntry) string {
	if len(files) == 0 {
		return ""
	}
	return files[0].Rel
}

// content returns the file's text: cached when its size and mtime are
// unchanged, else read (into *buf when it will not be kept). The file is
// looked at and read only through dr, beneath the folder's root: never by
// its absolute path, which a directory swapped for a symlink since the walk
// could lead outside.
func (t *Table) content(rel string, slot *atomic.Pointer[cachedContent], dr *workspace.FileReader, buf *[]byte) ([]byte, int64, bool) {
	size, mtime, ok := dr.Stat(t.root, rel)
	if !ok || size > int64(partSize) {
		return nil, size, ok
	}
	if c := slot.Load(); c != nil {
		if c.size == size && c.mtime == mtime {
			return c.data, size, true
		}
		if slot.CompareAndSwap(c, nil) {
			t.cached.Add(-int64(len(c.data)))
		}
	}
	keep := t.budget > 0 && size <= maxCachedFile && time.Since(time.Unix(0, mtime)) > racyWindow &&
		t.cached.Load()+size <= t.budget
	if !keep {
		data, more, err := dr.ReadHead(t.root, rel, size, partSize, (*buf)[:0])
		if cap(data) > cap(*buf) && cap(data) <= 16<<20 {
			*buf = data[:0]
		}
		if more {
			return nil, size, err == nil // it grew: read it in parts
		}
		return data, size, err == nil
	}
	data, err := dr.ReadAt(t.root, rel, size, make([]byte, 0, size+1))
	if err != nil {
		return nil, size, false
	}
	if int64(len(data)) == size {
		data = data[:len(data):len(data)]
		if slot.CompareAndSwap(nil, &cachedContent{size: size, mtime: mtime, data: data}) {
			t.cached.Add(size)
		}
	}
	return data, size, true
}
