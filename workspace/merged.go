package workspace

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// The merged view in walks: open buffers whose file is not on disk are
// visited as if they were (see Walk). bufferDirs finds them once per walk
// from the overlay snapshot; each directory the walk reads then adds the
// names the disk lacks (addBuffers), so that they go through the same
// rules, in the same order, as the disk's entries.

// virtEntry is a child of a directory that only buffers make: a buffer's
// file, or a directory on the way to one.
type virtEntry struct {
	name  string
	dir   bool
	size  int64 // the buffer's text (files)
	mtime int64 // Unix ns of its last change (files)
}

// bufferDirs maps each directory at or under dir to the entries the open
// buffers below it would add: for the buffer dir/a/b.go, "a" (a directory)
// under dir and "b.go" under dir/a. Whether the disk already has them is
// for the walk to see. nil when no buffer lies under dir.
func (w *Workspace) bufferDirs(dir string) map[string][]virtEntry {
	bufs := *w.bufs.Load()
	if len(bufs) == 0 {
		return nil
	}
	var out map[string][]virtEntry
	for p, o := range bufs {
		if p == dir || !within(dir, p) || !within(w.root, p) || w.Denied(p) {
			continue // a denied buffer does not even make its directories
		}
		if out == nil {
			out = map[string][]virtEntry{}
		}
		parent, rest := dir, p[len(dir)+len(sepAfter(dir)):]
		for {
			name, tail, more := strings.Cut(rest, string(filepath.Separator))
			e := virtEntry{name: name, dir: more}
			if !more {
				e.size, e.mtime = int64(len(o.buf.Text)), o.buf.Modified.UnixNano()
			}
			if !hasVirt(out[parent], name) {
				out[parent] = append(out[parent], e)
			}
			if !more {
				break
			}
			parent, rest = parent+sepAfter(parent)+name, tail
		}
	}
	return out
}

func hasVirt(list []virtEntry, name string) bool {
	for _, e := range list {
		if e.name == name {
			return true
		}
	}
	return false
}

// reset empties s, as a read of an empty directory would.
func (s *dirScratch) reset() {
	s.arena, s.ents = s.arena[:0], s.ents[:0]
	s.gitignore, s.ignore = nil, nil
}

// addBuffers adds to the entries s read those of list whose name the
// directory does not hold.
func (s *dirScratch) addBuffers(list []virtEntry) {
	n := len(s.ents)
	for _, v := range list {
		if s.holds(s.ents[:n], v.name) {
			continue
		}
		e := dirent{off: len(s.arena), n: len(v.name), known: true, statted: true, buffer: true, size: v.size, mtime: v.mtime, mode: 0o644}
		if v.dir {
			e.typ, e.mode, e.size, e.mtime = fs.ModeDir, fs.ModeDir|0o755, 0, 0
		}
		s.ents = append(s.ents, e)
		s.arena = append(s.arena, v.name...)
	}
}

// holds reports whether one of ents is named name.
func (s *dirScratch) holds(ents []dirent, name string) bool {
	for _, e := range ents {
		if e.n == len(name) && string(s.name(e)) == name {
			return true
		}
	}
	return false
}

// HasBuffersUnder reports whether an open buffer lies under the directory
// abs: a directory that is not on disk exists in the merged view (Walk
// walks it) when it does.
func (w *Workspace) HasBuffersUnder(abs string) bool {
	abs = filepath.Clean(abs)
	for p := range *w.bufs.Load() {
		if p != abs && within(abs, p) && within(w.root, p) && !w.Denied(p) {
			return true
		}
	}
	return false
}
