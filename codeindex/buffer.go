package codeindex

import (
	"bytes"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// UpdateBuffer sets the text of an open editor file (path absolute or
// relative to the root) at version. The file keeps its syntax tree: the
// change from the previous text is applied to the tree as one edit and
// the file is reparsed incrementally (afresh while it has syntax errors),
// then its definitions replace the file's in the index. Files of
// languages not indexed are ignored.
func (ix *Index) UpdateBuffer(path string, version int32, text string) error {
	rel, _ := ix.paths(path)
	l := LanguageFor(rel)
	if rel == "" || l == nil || ix.ws.Denied(rel) {
		return nil
	}
	ix.bufMu.Lock()
	defer ix.bufMu.Unlock()
	if ix.ctx.Err() != nil {
		return ix.ctx.Err()
	}
	b := ix.buffers[rel]
	if b != nil && b.version == version && string(b.src) == text {
		return nil
	}
	if ix.bufx == nil {
		ix.bufx = newExtractor()
	}
	// The buffer keeps the text's bytes without a copy: nothing writes them.
	src := unsafe.Slice(unsafe.StringData(text), len(text))
	var old ctree
	var edit sitter.EditInput
	if b != nil {
		edit = diffEdit(b.src, src)
		b.tree.edit(edit)
		old = b.tree
	}
	tree, err := ix.bufx.parseTree(l, src, old)
	var syms []def
	var ids []uintptr
	if b != nil {
		switch {
		case err != nil:
		case tree.hasError():
			// Error recovery may take another path in an incremental parse
			// than in a fresh one; the definitions of a buffer must be those
			// of a fresh parse of its text, so a tree with errors is parsed
			// afresh.
			tree.close()
			tree, err = ix.bufx.parseTree(l, src, ctree{})
		default:
			var ok bool
			if syms, ids, ok = ix.bufx.changedDefs(l, old, tree, src, edit, b.syms, b.ids); !ok {
				syms = nil
			}
		}
		old.close()
	}
	if err != nil {
		delete(ix.buffers, rel)
		return err
	}
	if syms == nil {
		syms = ix.bufx.treeDefs(l, tree.root(), src)
	}
	ix.buffers[rel] = &buffer{version: version, src: src, tree: tree, lang: l, syms: syms, ids: ids}
	ix.mu.Lock()
	delete(ix.skipped, rel)
	ix.setFileLocked(rel, &fileEntry{rel: rel, lang: l, size: int64(len(src)), syms: syms, open: true})
	ix.mu.Unlock()
	ix.notify(rel)
	return nil
}

// CloseBuffer forgets the buffer of path and frees its tree at once; the
// index goes back to the file on disk.
func (ix *Index) CloseBuffer(path string) {
	rel, _ := ix.paths(path)
	ix.bufMu.Lock()
	b := ix.buffers[rel]
	if b != nil {
		b.tree.close()
		delete(ix.buffers, rel)
		ix.mu.Lock()
		if f := ix.files[rel]; f != nil && f.open {
			ix.setFileLocked(rel, nil)
		}
		ix.mu.Unlock()
	}
	ix.bufMu.Unlock()
	ix.FileChanged(path)
}

// OpenBuffers is the number of buffers holding a tree.
func (ix *Index) OpenBuffers() int {
	ix.bufMu.Lock()
	defer ix.bufMu.Unlock()
	return len(ix.buffers)
}

// diffEdit describes the change from old to new as one edit: the common
// prefix and suffix stay, the middle is replaced.
func diffEdit(old, new []byte) sitter.EditInput {
	const block = 256 // compare whole blocks first (memequal is vectorised)
	p := 0
	n := min(len(old), len(new))
	for p+block <= n && bytes.Equal(old[p:p+block], new[p:p+block]) {
		p += block
	}
	for p < n && old[p] == new[p] {
		p++
	}
	s := 0
	m := min(len(old), len(new)) - p // the suffix may not overlap the prefix
	for s+block <= m && bytes.Equal(old[len(old)-s-block:len(old)-s], new[len(new)-s-block:len(new)-s]) {
		s += block
	}
	for s < m && old[len(old)-1-s] == new[len(new)-1-s] {
		s++
	}
	start := pointAt(old, 0, sitter.Point{}, p)
	return sitter.EditInput{
		StartIndex:  uint32(p),
		OldEndIndex: uint32(len(old) - s),
		NewEndIndex: uint32(len(new) - s),
		StartPoint:  start,
		OldEndPoint: pointAt(old, p, start, len(old)-s),
		NewEndPoint: pointAt(new, p, start, len(new)-s),
	}
}

// pointAt returns the point of byte to, given the point at of byte from.
func pointAt(b []byte, from int, at sitter.Point, to int) sitter.Point {
	seg := b[from:to]
	nl := bytes.Count(seg, []byte{'\n'})
	if nl == 0 {
		return sitter.Point{Row: at.Row, Column: at.Column + uint32(len(seg))}
	}
	return sitter.Point{Row: at.Row + uint32(nl), Column: uint32(len(seg) - 1 - bytes.LastIndexByte(seg, '\n'))}
}

// buffer is an open editor file: its text and its full tree.
type buffer struct {
	version int32
	src     []byte
	tree    ctree
	lang    *Language
	syms    []def     // its definitions
	ids     []uintptr // of the root's children of tree, when known (see changedSpans)
}
