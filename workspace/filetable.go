package workspace

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A FileTable is the workspace's resident list of the files that a walk of
// the whole folder with one set of options visits — the merged view, so
// open buffers with no file on disk are in it (Walk) and denied files are
// not — for tools that list or search the whole folder again and again
// (grep's session tables keep file contents over it).
//
// It stays right without trusting anyone to report changes: before each
// use it re-stats every directory and ignore file its walk saw (a new,
// removed or renamed entry changes its directory's mtime; then it walks
// again), as git's index does; a directory changed within racyWindow of
// the walk is never trusted. Buffer events that no directory records make
// it walk again too — a buffer with no file on disk opened or closed
// (UnsavedVersion) — and so does a new deny list (DenyVersion). Contents
// are not its business: a file's size and mtime are checked by whoever
// reads it.
//
// A FileTable is safe for concurrent use; a FileList is immutable.
type FileTable struct {
	w    *Workspace
	opts WalkOptions

	mu   sync.Mutex
	list *FileList // nil: walk at the next use
}

// A FileList is one walk of a FileTable.
type FileList struct {
	Files   []FileEntry // sorted by Rel (byte order)
	Skipped *Skipped    // what the walk passed over as hidden or ignored

	dirs          []statKey // every directory walked, and the ignore files that may be in it
	walked        time.Time
	unsaved, deny uint64 // UnsavedVersion and DenyVersion before the walk
}

// A FileEntry is one file of a FileList.
type FileEntry struct {
	Abs, Rel string
	Buffer   bool // an open buffer with no file on disk (see WalkEntry.Buffer)
}

// statKey is a path and what lstat said about it (exists false: absent).
type statKey struct {
	path   string
	exists bool
	mtime  int64 // Unix ns
	size   int64
}

// racyWindow: a directory modified this recently before a walk may change
// again within its timestamp's tick; such a walk is used once, not kept.
const racyWindow = 2 * time.Second

// FileTable returns the workspace's table of the files a walk of the whole
// folder visits with these options (hidden names; files the ignore files
// exclude), made at the first call and kept for the workspace's life.
func (w *Workspace) FileTable(hidden, includeIgnored bool) *FileTable {
	w.tablesMu.Lock()
	defer w.tablesMu.Unlock()
	key := [2]bool{hidden, includeIgnored}
	if t := w.tables[key]; t != nil {
		return t
	}
	if w.tables == nil {
		w.tables = map[[2]bool]*FileTable{}
	}
	t := &FileTable{w: w, opts: WalkOptions{Hidden: hidden, IncludeIgnored: includeIgnored, NoStat: true, Parallel: runtime.GOMAXPROCS(0)}}
	w.tables[key] = t
	return t
}

// Find returns the index of rel in l.Files.
func (l *FileList) Find(rel string) (int, bool) {
	return slices.BinarySearchFunc(l.Files, rel, func(e FileEntry, rel string) int { return strings.Compare(e.Rel, rel) })
}

// Under returns the files under the directory rel ("." or "" for all).
func (l *FileList) Under(rel string) []FileEntry {
	if rel == "." || rel == "" {
		return l.Files
	}
	prefix := rel + "/"
	lo, _ := l.Find(prefix)
	hi := lo
	for hi < len(l.Files) && strings.HasPrefix(l.Files[hi].Rel, prefix) {
		hi++
	}
	return l.Files[lo:hi]
}

// List returns the table's files as they are now: the last walk's when
// nothing it depends on changed, else a new walk's.
func (t *FileTable) List(ctx context.Context) (*FileList, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.w
	unsaved, deny := w.UnsavedVersion(), w.DenyVersion()
	if l := t.list; l != nil && l.unsaved == unsaved && l.deny == deny && l.valid() {
		return l, nil
	}
	t.list = nil
	l := &FileList{Skipped: &Skipped{}, walked: time.Now(), unsaved: unsaved, deny: deny}
	opts := t.opts
	opts.Skipped = l.Skipped
	var mu sync.Mutex
	dirs := []string{w.root}
	err := w.Walk(ctx, w.root, opts, func(e WalkEntry) error {
		if !e.IsDir && !e.Mode.IsRegular() {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if e.IsDir {
			dirs = append(dirs, e.Abs)
		} else {
			l.Files = append(l.Files, FileEntry{Abs: e.Abs, Rel: e.Rel, Buffer: e.Buffer})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(l.Files, func(a, b FileEntry) int { return strings.Compare(a.Rel, b.Rel) })
	for _, d := range dirs {
		l.dirs = append(l.dirs, lstatKey(d), lstatKey(filepath.Join(d, ".gitignore")), lstatKey(filepath.Join(d, ".ignore")))
	}
	l.dirs = append(l.dirs, lstatKey(filepath.Join(w.root, ".git", "info", "exclude")))
	if !l.racy() {
		t.list = l
	}
	return l, nil
}

func lstatKey(p string) statKey {
	fi, err := os.Lstat(p)
	if err != nil {
		return statKey{path: p}
	}
	return statKey{path: p, exists: true, mtime: fi.ModTime().UnixNano(), size: fi.Size()}
}

// racy reports whether a directory or ignore file changed too close to the
// walk for its mtime to prove it unchanged later.
func (l *FileList) racy() bool {
	for _, k := range l.dirs {
		if k.exists && l.walked.Sub(time.Unix(0, k.mtime)) < racyWindow {
			return true
		}
	}
	return false
}

// valid re-stats the directories and ignore files of the walk, in
// parallel.
func (l *FileList) valid() bool {
	var bad atomic.Bool
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := i; j < len(l.dirs) && !bad.Load(); j += n {
				if lstatKey(l.dirs[j].path) != l.dirs[j] {
					bad.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	return !bad.Load()
}
