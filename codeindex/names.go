package codeindex

import (
	"slices"
	"strings"
	"unsafe"
)

// nameEntry is one name of the name table (Index.names): the definitions
// of that name across the files of the index.
type nameEntry struct {
	name, lower string
	syms        []symRef
	one         [1]symRef // syms of a name with one symbol (most): no allocation
}

// symRef is one symbol of a file entry.
type symRef struct {
	f *fileEntry
	i int32
}

func (r symRef) def() *def { return &r.f.syms[r.i] }

// setFileLocked replaces the entry of rel (nil removes it). The caller
// holds mu.
func (ix *Index) setFileLocked(rel string, e *fileEntry) {
	if old := ix.files[rel]; old != nil {
		for _, s := range old.syms {
			ne := ix.names[s.Name]
			if ne == nil {
				continue
			}
			if len(ne.syms) == 0 {
				continue // a repeated name, already done
			}
			ne.syms = slices.DeleteFunc(ne.syms, func(r symRef) bool { return r.f == old })
			if len(ne.syms) == 0 {
				ix.empty++
			}
		}
		ix.nsyms -= len(old.syms)
		delete(ix.files, rel)
		if ix.empty > 4096 && ix.empty > len(ix.entries)/2 {
			ix.compactNames()
		}
	}
	ix.gen++
	if e == nil {
		return
	}
	ix.files[rel] = e
	ix.nsyms += len(e.syms)
	for i, s := range e.syms {
		ne := ix.names[s.Name]
		if ne == nil {
			ne = ix.newEntry(s.Name)
			ix.names[s.Name] = ne
			ix.addEntry(ne)
		} else if len(ne.syms) == 0 {
			ix.empty--
		}
		if cap(ne.syms) == 0 {
			ne.syms = ne.one[:0:1]
		}
		ne.syms = append(ne.syms, symRef{e, int32(i)})
	}
}

// newEntry returns a new entry for name: entries come from slabs, and
// their lower cases from a text arena, not one allocation each.
func (ix *Index) newEntry(name string) *nameEntry {
	if len(ix.slab) == 0 {
		ix.slab = make([]nameEntry, 256)
	}
	ne := &ix.slab[0]
	ix.slab = ix.slab[1:]
	ne.name, ne.lower = name, ix.lower(name)
	return ne
}

// lower returns s in lower case, made in the arena when it differs.
func (ix *Index) lower(s string) string {
	ascii, upper := true, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		ascii = ascii && c < 0x80
		upper = upper || c >= 'A' && c <= 'Z'
	}
	switch {
	case !ascii:
		return strings.ToLower(s)
	case !upper:
		return s
	}
	if cap(ix.arena)-len(ix.arena) < len(s) {
		ix.arena = make([]byte, 0, max(16<<10, len(s)))
	}
	start := len(ix.arena)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		ix.arena = append(ix.arena, c)
	}
	b := ix.arena[start:]
	return unsafe.String(unsafe.SliceData(b), len(b)) // the arena's bytes are never written again
}

func (ix *Index) addEntry(ne *nameEntry) {
	ix.starts = append(ix.starts, int32(len(ix.blob)))
	ix.blob = append(append(ix.blob, ne.lower...), '\n')
	ix.entries = append(ix.entries, ne)
	if ne.lower != "" {
		ix.byFirst[ne.lower[0]] = append(ix.byFirst[ne.lower[0]], ne)
	}
}

// compactNames drops the names that have no symbol left.
func (ix *Index) compactNames() {
	entries := ix.entries
	ix.blob, ix.starts, ix.entries, ix.empty = nil, nil, nil, 0
	ix.byFirst = [256][]*nameEntry{}
	for _, ne := range entries {
		if len(ne.syms) == 0 {
			delete(ix.names, ne.name)
			continue
		}
		ix.addEntry(ne)
	}
}

// lowerASCII is strings.ToLower without an allocation for names that are
// already lower case.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}

// install puts the entries of a cache into the index at once (before the
// walk, which then only checks that each file is unchanged): the name
// table comes from the cache's string table, each name's references
// allocated at their final size. Files that already have an entry (a
// buffer opened before the build) keep it.
func (ix *Index) install(cd *cacheData) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	total := 0
	for _, c := range cd.counts {
		total += int(c)
	}
	entries := make([]nameEntry, len(cd.strs))
	refs := make([]symRef, total)
	off := 0
	for i, c := range cd.counts {
		if c > 0 {
			entries[i].syms = refs[off : off : off+int(c)]
			off += int(c)
		}
	}
	k := 0
	for _, f := range cd.files {
		names := cd.names[k : k+len(f.syms)]
		k += len(f.syms)
		if ix.files[f.rel] != nil {
			continue
		}
		ix.files[f.rel] = f
		ix.nsyms += len(f.syms)
		for i, ni := range names {
			ne := &entries[ni]
			ne.syms = append(ne.syms, symRef{f, int32(i)})
		}
	}
	fresh := len(ix.names) == 0 // no buffer came first: no name to merge
	if fresh {
		ix.names = make(map[string]*nameEntry, len(cd.strs))
	}
	blob := 0
	for i := range entries {
		if len(entries[i].syms) > 0 {
			blob += len(cd.strs[i]) + 1
		}
	}
	ix.blob = slices.Grow(ix.blob, blob)
	for i := range entries {
		ne := &entries[i]
		if len(ne.syms) == 0 {
			continue
		}
		ne.name = cd.strs[i]
		if !fresh {
			if old := ix.names[ne.name]; old != nil { // from a buffer
				if len(old.syms) == 0 {
					ix.empty--
				}
				old.syms = append(old.syms, ne.syms...)
				continue
			}
		}
		ne.lower = cd.lower[i]
		ix.names[ne.name] = ne
		ix.addEntry(ne)
	}
	for rel, st := range cd.skipped {
		if ix.files[rel] == nil {
			ix.skipped[rel] = true
			ix.skipStats[rel] = st
		}
	}
	ix.gen++
}
