package textsearch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/workspace"
)

// WalkFunc lists every file and directory of a workspace folder that a
// search may visit (ignore rules applied), calling fn possibly concurrently.
type WalkFunc func(ctx context.Context, fn func(abs, rel string, isDir bool)) error

// Table is a resident file table for one workspace folder and one set of
// walk options: the files a search visits and, within a byte budget, their
// contents. A repeated search in a running server neither walks the tree
// nor reads unchanged files.
//
// The table stays right without trusting anyone to report changes: before
// each search it re-stats every directory and ignore file (a new, removed
// or renamed entry changes its directory's mtime; then the tree is walked
// again) and each file before using its cached content (size and mtime, as
// git's index does). Content whose mtime is within racyWindow of when it was
// read is never trusted, so writes within one timestamp tick are not missed.
// Invalidate (wired to the workspace's change events) drops entries early.
//
// A Table is safe for concurrent use; cached contents are immutable.
type Table struct {
	root   string
	walk   WalkFunc
	budget int64                // bytes of content kept
	ws     *workspace.Workspace // when set, files are read through its readers

	// gen, when set, changes whenever the walk would list other files
	// without any directory changing on disk (buffers with no file on
	// disk opened or closed: workspace.UnsavedVersion).
	gen func() uint64

	mu     sync.Mutex
	snap   *tableSnap // nil: walk before the next search
	cached atomic.Int64
}

// tableSnap is one walk's result; immutable except for the content slots.
type tableSnap struct {
	files  []*tableFile // sorted by rel
	dirs   []statKey    // every directory walked, and the ignore files that may be in it
	walked time.Time
	gen    uint64 // Table.gen() before the walk
}

type tableFile struct {
	abs, rel string
	content  atomic.Pointer[cachedContent]
}

type cachedContent struct {
	size  int64
	mtime int64 // UnixNano
	data  []byte
}

// statKey is a path and what lstat said about it (exists false: absent).
type statKey struct {
	path   string
	exists bool
	mtime  int64 // UnixNano
	size   int64
}

// racyWindow: content modified this recently is re-read, not trusted.
const racyWindow = 2 * time.Second

// maxCachedFile is the largest file whose content is kept.
const maxCachedFile = 8 << 20

// DefaultCacheBudget is the content a Table keeps by default.
const DefaultCacheBudget = 256 << 20

// NewTable makes an empty table that lists files with walk and keeps up to
// budget bytes of content (0: none).
// root is the folder's absolute path.
func NewTable(root string, walk WalkFunc, budget int64) *Table {
	return &Table{root: root, walk: walk, budget: budget}
}

// FollowGen makes the table walk again whenever gen's value changed since
// its last walk: for what the walk lists that no directory's mtime tells
// (workspace.UnsavedVersion: buffers with no file on disk). Call it before
// the first search.
func (t *Table) FollowGen(gen func() uint64) { t.gen = gen }

// Invalidate tells the table that the file or directory at abs changed.
func (t *Table) Invalidate(abs string) {
	t.mu.Lock()
	s := t.snap
	t.mu.Unlock()
	if s == nil {
		return
	}
	for _, f := range s.files {
		if f.abs == abs {
			if c := f.content.Swap(nil); c != nil {
				t.cached.Add(-int64(len(c.data)))
			}
			return
		}
	}
}

// CachedBytes is the content held now.
func (t *Table) CachedBytes() int64 { return t.cached.Load() }

// snapshot returns a valid snapshot, walking when there is none or when a
// directory or ignore file changed since the last walk.
func (t *Table) snapshot(ctx context.Context) (*tableSnap, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var gen uint64
	if t.gen != nil {
		gen = t.gen()
	}
	if s := t.snap; s != nil && s.gen == gen && s.valid() {
		return s, nil
	}
	if t.snap != nil {
		t.snap = nil
		t.cached.Store(0)
	}
	s := &tableSnap{walked: time.Now(), gen: gen}
	var mu sync.Mutex
	dirs := []string{t.root}
	err := t.walk(ctx, func(abs, rel string, isDir bool) {
		mu.Lock()
		defer mu.Unlock()
		if isDir {
			dirs = append(dirs, abs)
			return
		}
		s.files = append(s.files, &tableFile{abs: abs, rel: rel})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(s.files, func(a, b *tableFile) int { return strings.Compare(a.rel, b.rel) })
	for _, d := range dirs {
		s.dirs = append(s.dirs, stat(d), stat(filepath.Join(d, ".gitignore")), stat(filepath.Join(d, ".ignore")))
	}
	s.dirs = append(s.dirs, stat(filepath.Join(t.root, ".git", "info", "exclude")))
	if s.racy() {
		// A directory changed during the walk's timestamp tick: use this
		// walk once, walk again next time.
		return s, nil
	}
	t.snap = s
	return s, nil
}

func stat(p string) statKey {
	fi, err := os.Lstat(p)
	if err != nil {
		return statKey{path: p}
	}
	return statKey{path: p, exists: true, mtime: fi.ModTime().UnixNano(), size: fi.Size()}
}

// racy reports whether a directory or ignore file changed too close to the
// walk for its mtime to prove it unchanged later.
func (s *tableSnap) racy() bool {
	for _, k := range s.dirs {
		if k.exists && s.walked.Sub(time.Unix(0, k.mtime)) < racyWindow {
			return true
		}
	}
	return false
}

// valid re-stats the directories and ignore files of the walk.
func (s *tableSnap) valid() bool {
	var bad atomic.Bool
	var wg sync.WaitGroup
	n := Workers()
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(s.dirs) && !bad.Load(); i += n {
				if stat(s.dirs[i].path) != s.dirs[i] {
					bad.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	return !bad.Load()
}

// Overlay gives the text of an open buffer standing in for the file at abs.
type Overlay func(abs string) ([]byte, bool)

// Source lists the table's files under the directory dirRel ("." for all)
// that filter selects, with overlay's buffers in place of their files and
// cached content where the file is unchanged.
func (t *Table) Source(dirRel string, filter *Filter, overlay Overlay) Source {
	return func(ctx context.Context, fn func(File)) error {
		s, err := t.snapshot(ctx)
		if err != nil {
			return err
		}
		files := s.files
		if dirRel != "." && dirRel != "" {
			prefix := dirRel + "/"
			lo, _ := slices.BinarySearchFunc(files, prefix, func(f *tableFile, p string) int { return strings.Compare(f.rel, p) })
			hi := lo
			for hi < len(files) && strings.HasPrefix(files[hi].rel, prefix) {
				hi++
			}
			files = files[lo:hi]
		}
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
				dr := newReader(t.ws)
				defer dr.Close()
				for ctx.Err() == nil {
					lo := int(next.Add(run) - run)
					if lo >= len(files) {
						return
					}
					for _, f := range files[lo:min(lo+run, len(files))] {
						if ctx.Err() != nil {
							return
						}
						if filter != nil && !filter.Match(f.rel) {
							continue
						}
						if text, ok := overlay(f.abs); ok {
							fn(File{Abs: f.abs, Rel: f.rel, Text: text})
							continue
						}
						data, size, ok := t.content(f, dr, &buf)
						if !ok {
							continue // gone since the walk
						}
						// A file over partSize comes without its text: the
						// search reads it in parts.
						fn(File{Abs: f.abs, Rel: f.rel, Text: data, Size: size})
					}
				}
			}()
		}
		wg.Wait()
		return ctx.Err()
	}
}

// content returns the file's text: cached when its size and mtime are
// unchanged, else read (into *buf when it will not be kept). The file is
// looked at and read only through dr, beneath the folder's root: never by
// its absolute path, which a directory swapped for a symlink since the walk
// could lead outside.
func (t *Table) content(f *tableFile, dr *workspace.FileReader, buf *[]byte) ([]byte, int64, bool) {
	size, mtime, ok := dr.Stat(t.root, f.rel)
	if !ok || size > int64(partSize) {
		return nil, size, ok
	}
	if c := f.content.Load(); c != nil {
		if c.size == size && c.mtime == mtime {
			return c.data, size, true
		}
		if f.content.CompareAndSwap(c, nil) {
			t.cached.Add(-int64(len(c.data)))
		}
	}
	keep := t.budget > 0 && size <= maxCachedFile && time.Since(time.Unix(0, mtime)) > racyWindow &&
		t.cached.Load()+size <= t.budget
	if !keep {
		data, more, err := dr.ReadHead(t.root, f.rel, size, partSize, (*buf)[:0])
		if cap(data) > cap(*buf) && cap(data) <= 16<<20 {
			*buf = data[:0]
		}
		if more {
			return nil, size, err == nil // it grew: read it in parts
		}
		return data, size, err == nil
	}
	data, err := dr.ReadAt(t.root, f.rel, size, make([]byte, 0, size+1))
	if err != nil {
		return nil, size, false
	}
	if int64(len(data)) == size {
		data = data[:len(data):len(data)]
		if f.content.CompareAndSwap(nil, &cachedContent{size: size, mtime: mtime, data: data}) {
			t.cached.Add(size)
		}
	}
	return data, size, true
}
