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

func (r symRef) def() *def { return &r.f.defs()[r.i] }

// setFileLocked replaces the entry of rel (nil removes it). The caller
// holds mu.
func (ix *Index) setFileLocked(rel string, e *fileEntry) {
	old := ix.files[rel]
	if old != nil && old.ents != nil && e != nil && e.open {
		ix.replaceLocked(old, e)
		return
	}
	if old != nil {
		for _, s := range old.defs() {
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
		ix.nsyms -= old.ndefs()
		delete(ix.files, rel)
		ix.compactIfEmpty()
	}
	ix.gen++
	if e == nil {
		return
	}
	ix.files[rel] = e
	ix.nsyms += len(e.syms)
	if e.open {
		e.ents = make([]*nameEntry, len(e.syms))
	}
	for i := range e.syms {
		ne := ix.addRef(e, i)
		if e.open {
			e.ents[i] = ne
		}
	}
}

// replaceLocked replaces the entry of an open buffer, old, by e, its next
// version. The names of a keystroke's update are mostly the same, in the
// same order: those at the start and at the end that are the same keep
// their entries (old.ents), their references pointed at e, without a
// lookup in the name table; the others go and come as in setFileLocked.
func (ix *Index) replaceLocked(old, e *fileEntry) {
	p := 0
	for p < len(old.syms) && p < len(e.syms) && old.syms[p].Name == e.syms[p].Name {
		p++
	}
	s := 0
	for s < len(old.syms)-p && s < len(e.syms)-p && old.syms[len(old.syms)-1-s].Name == e.syms[len(e.syms)-1-s].Name {
		s++
	}
	e.ents = make([]*nameEntry, len(e.syms))
	repoint := func(oi, ni int) {
		ne := old.ents[oi]
		for j := range ne.syms {
			if r := &ne.syms[j]; r.f == old && r.i == int32(oi) {
				r.f, r.i = e, int32(ni)
				break
			}
		}
		e.ents[ni] = ne
	}
	for i := range p {
		repoint(i, i)
	}
	for i := range s {
		repoint(len(old.syms)-1-i, len(e.syms)-1-i)
	}
	for oi := p; oi < len(old.syms)-s; oi++ {
		ne := old.ents[oi]
		if len(ne.syms) == 0 {
			continue // a repeated name, already done
		}
		ne.syms = slices.DeleteFunc(ne.syms, func(r symRef) bool { return r.f == old })
		if len(ne.syms) == 0 {
			ix.empty++
		}
	}
	for ni := p; ni < len(e.syms)-s; ni++ {
		e.ents[ni] = ix.addRef(e, ni)
	}
	ix.nsyms += len(e.syms) - len(old.syms)
	ix.files[e.rel] = e
	ix.gen++
	ix.compactIfEmpty()
}

// addRef adds symbol i of e to the entry of its name, made when new.
func (ix *Index) addRef(e *fileEntry, i int) *nameEntry {
	name := e.syms[i].Name
	ne := ix.names[name]
	if ne == nil {
		ne = ix.newEntry(name)
		ix.names[name] = ne
		ix.addEntry(ne)
	} else if len(ne.syms) == 0 {
		ix.empty--
	}
	if cap(ne.syms) == 0 {
		ne.syms = ne.one[:0:1]
	}
	ne.syms = append(ne.syms, symRef{e, int32(i)})
	return ne
}

// compactIfEmpty rebuilds the name table when names without a symbol are
// most of it.
func (ix *Index) compactIfEmpty() {
	if ix.empty > 4096 && ix.empty > len(ix.entries)/2 {
		ix.compactNames()
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
	// Names come before the strings that are only containers (count 0):
	// those need no entry.
	total, nnames := 0, 0
	for i, c := range cd.counts {
		if c > 0 {
			total += int(c)
			nnames = i + 1
		}
	}
	entries := make([]nameEntry, nnames)
	refs := make([]symRef, total)
	off := 0
	for i, c := range cd.counts[:nnames] {
		if c > 0 {
			entries[i].syms = refs[off : off : off+int(c)]
			off += int(c)
		}
	}
	for _, f := range cd.files {
		names := f.packed.names
		if ix.files[f.rel] != nil {
			continue
		}
		ix.files[f.rel] = f
		ix.nsyms += len(names)
		for i, ni := range names {
			ne := &entries[ni]
			ne.syms = append(ne.syms, symRef{f, int32(i)})
		}
	}
	fresh := len(ix.names) == 0 // no buffer came first: no name to merge
	if fresh {
		ix.names = make(map[string]*nameEntry, nnames)
	}
	// The scan tables at their final size (addEntry appends to them).
	blob, n := 0, 0
	var first [256]int
	for i := range entries {
		if len(entries[i].syms) > 0 {
			blob += len(cd.strs[i]) + 1
			n++
			if l := cd.lower[i]; l != "" {
				first[l[0]]++
			}
		}
	}
	ix.blob = slices.Grow(ix.blob, blob)
	ix.starts = slices.Grow(ix.starts, n)
	ix.entries = slices.Grow(ix.entries, n)
	for c, k := range first {
		if k > 0 {
			ix.byFirst[c] = slices.Grow(ix.byFirst[c], k)
		}
	}
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
