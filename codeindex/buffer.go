package codeindex

import (
	"bytes"
	"fmt"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/agentls/agentls/workspace"
)

// UpdateBuffer sets the text of an open editor file (path absolute or
// relative to the root) at version. The file keeps its syntax tree: the
// change from the previous text is applied to the tree as one edit and
// the file is reparsed incrementally, then its definitions replace the
// file's in the index (a query reads those of a fresh parse when the text
// has syntax errors: see updateBuffer). Files of languages not indexed
// are ignored.
func (ix *Index) UpdateBuffer(path string, version int32, text string) error {
	return ix.updateBuffer(path, workspace.Buffer{Version: version, Text: text}, nil, false)
}

// updateBuffer is UpdateBuffer with the change as edits when known (see
// workspace.EditsSince). A tree with syntax errors is kept as the
// incremental parse left it and the buffer marked stale: error recovery
// may take another path in an incremental parse than in a fresh one, and
// the definitions a query reads must be those of a fresh parse, so settle
// parses a stale buffer afresh before a query, once, rather than on every
// keystroke. Until then its definitions are those of the incremental
// tree, found as for any other (changedDefs).
func (ix *Index) updateBuffer(path string, wb workspace.Buffer, edits []workspace.Edit, known bool) (err error) {
	version, text := wb.Version, wb.Text
	rel, abs := ix.paths(path)
	l := LanguageFor(rel)
	if rel == "" || l == nil || ix.ws.Denied(rel) || ix.ws.IsDeniedLink(abs) {
		return nil
	}
	defer func() { // after bufMu's unlock
		if r := recover(); r != nil {
			// A panic in reading the text (a bug) must not end the
			// server: the buffer keeps its definitions of before, and its
			// next text is parsed afresh.
			ix.bufMu.Lock()
			if b := ix.buffers[rel]; b != nil {
				nb := *b
				nb.tree = ctree{}
				ix.buffers[rel] = &nb
			}
			ix.bufMu.Unlock()
			err = fmt.Errorf("indexing %s: %v", rel, r)
		}
	}()
	ix.bufMu.Lock()
	defer ix.bufMu.Unlock()
	if ix.ctx.Err() != nil {
		return ix.ctx.Err()
	}
	b := ix.buffers[rel]
	if b != nil && b.version == version && b.opening == wb.Opening && string(b.src) == text {
		return nil
	}
	if ix.bufx == nil {
		ix.bufx = newExtractor()
	}
	// The buffer keeps the text's bytes without a copy: nothing writes them.
	src := unsafe.Slice(unsafe.StringData(text), len(text))
	if syms, ok := ix.bufx.passDefs(l, src); ok {
		// The language reads its definitions without a parse (Lua's
		// luaDefs: an incremental parse of tree-sitter-lua cost more):
		// the buffer keeps no tree, a query that needs one parses then
		// (bufferRefs).
		if b != nil {
			b.tree.close()
		}
		ix.putBufferLocked(rel, &buffer{opening: wb.Opening, version: version, src: src, lang: l, syms: syms, base: src, baseSyms: syms})
		return nil
	}
	if b != nil && b.tree.c == nil {
		b = nil // its definitions were read without a tree: a fresh parse
	}
	var old ctree
	var edit sitter.EditInput
	if b != nil {
		if known {
			edit = composeEdit(b.src, src, edits)
		} else {
			edit = diffEdit(b.src, src)
		}
		b.tree.edit(edit)
		if syms, ok := ix.bodyFast(b, src, edit); ok {
			// Inside a body that holds no definition: the parse waits
			// (see bodyfast.go).
			ix.putBufferLocked(rel, &buffer{opening: wb.Opening, version: version, src: src, tree: b.tree, lang: l, syms: syms,
				pending: true, base: b.base, baseSyms: b.baseSyms, spans: b.spans, spansOK: true})
			return nil
		}
		old = b.tree
	}
	tree, err := ix.bufx.parseTree(l, src, old)
	var syms []def
	stale := false
	if b != nil {
		if err == nil {
			stale = tree.hasError()
			prev := b.syms
			if b.pending {
				// The tree holds the fast path's edits too: the
				// change is the one from the text last parsed.
				edit, prev = diffEdit(b.base, src), b.baseSyms
			}
			var ok bool
			if syms, ok = ix.bufx.changedDefs(l, old, tree, src, edit, prev); !ok {
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
	if b == nil {
		// The buffer's first edit runs the definitions query
		// (changedDefs), compiled on first use with its root query
		// (C++'s take 130 ms): compile them now, beside the editor.
		go func() {
			l.defsQuery()
			rootQueryOf(l)
		}()
	}
	nb := &buffer{opening: wb.Opening, version: version, src: src, tree: tree, lang: l, syms: syms, stale: stale, base: src, baseSyms: syms}
	if b != nil && edit.NewEndPoint.Row == edit.StartPoint.Row {
		nb.skip, nb.skipRow = true, edit.StartPoint.Row
	}
	if b == nil && !stale {
		// The bodies the first keystroke may land in: reading them costs
		// a part of the parse just made, and would cost the keystroke.
		nb.spans, nb.spansOK = ix.openSpans(l, src), true
	}
	ix.putBufferLocked(rel, nb)
	return nil
}

// putBufferLocked installs b as the buffer of rel and its definitions as
// the file's. The caller holds bufMu.
func (ix *Index) putBufferLocked(rel string, b *buffer) {
	ix.buffers[rel] = b
	ix.mu.Lock()
	delete(ix.skipped, rel)
	ix.setFileLocked(rel, &fileEntry{rel: rel, lang: b.lang, size: int64(len(b.src)), syms: b.syms, open: true})
	ix.mu.Unlock()
	ix.notify(rel)
}

// Watch follows the workspace: the buffers open when it starts (those with
// no file on disk too) and every buffer change after update the index
// (incrementally, from the change's edits), closing a buffer goes back to
// the disk file, and writes made through the workspace re-read the file.
// The work runs on a goroutine of the index, never in the goroutine that
// changed the workspace (the LSP read loop): the change only queues the
// path, and a path queued again before its turn is updated once, to the
// latest version. Queries first wait for the changes queued before them
// (settle).
func (ix *Index) Watch() {
	wake := make(chan struct{}, 1)
	ix.pendMu.Lock()
	ix.pending = map[string]struct{}{}
	// The buffers open already (the index is made at its first use, long
	// after the editor opened them), those with no file on disk included:
	// the same view as every other tool's.
	for _, b := range ix.ws.Buffers() {
		ix.pending[b.Path] = struct{}{}
		ix.queued++
	}
	if len(ix.pending) > 0 {
		wake <- struct{}{}
	}
	ix.pendMu.Unlock()
	ix.unwatch = ix.ws.OnChange(func(abs string) {
		if ix.ctx.Err() != nil {
			return
		}
		ix.pendMu.Lock()
		if ix.pendDone { // the goroutine is gone: nobody would apply it
			ix.pendMu.Unlock()
			return
		}
		ix.pending[abs] = struct{}{}
		ix.queued++
		ix.pendMu.Unlock()
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	ix.wg.Add(1)
	go func() {
		defer ix.wg.Done()
		defer func() {
			ix.pendMu.Lock()
			ix.applied = ix.queued // nothing more will be applied
			ix.pendDone = true
			ix.pendCond.Broadcast()
			ix.pendMu.Unlock()
		}()
		for {
			select {
			case <-ix.ctx.Done():
				return
			case <-wake:
			}
			ix.pendMu.Lock()
			batch, upTo := ix.pending, ix.queued
			ix.pending = map[string]struct{}{}
			ix.pendMu.Unlock()
			for abs := range batch {
				if ix.ctx.Err() != nil {
					return
				}
				ix.follow(abs)
			}
			ix.pendMu.Lock()
			ix.applied = upTo
			ix.pendCond.Broadcast()
			ix.pendMu.Unlock()
		}
	}()
}

// follow brings the index up to date with the workspace's view of abs.
func (ix *Index) follow(abs string) {
	b, ok := ix.ws.Buffer(abs)
	if !ok {
		ix.CloseBuffer(abs)
		return
	}
	rel, _ := ix.paths(abs)
	ix.bufMu.Lock()
	ib := ix.buffers[rel]
	var opening uint64
	var since int32
	if ib != nil {
		opening, since = ib.opening, ib.version
	}
	ix.bufMu.Unlock()
	var edits []workspace.Edit
	known := false
	if ib != nil {
		if cur, e, ok := ix.ws.EditsSince(abs, opening, since); ok && cur.Version == b.Version && cur.Opening == b.Opening {
			edits, known = e, len(e) > 0
		}
	}
	ix.updateBuffer(abs, b, edits, known)
}

// settle waits until the workspace changes queued before it are in the
// index, then parses afresh the buffers whose incremental parse had errors
// (see updateBuffer), so that a query reads the definitions of a fresh
// parse of every buffer's current text. It must not be called with bufMu
// or mu held.
func (ix *Index) settle() {
	ix.pendMu.Lock()
	for target := ix.queued; ix.applied < target; {
		ix.pendCond.Wait()
	}
	ix.pendMu.Unlock()
	ix.bufMu.Lock()
	defer ix.bufMu.Unlock()
	for rel, b := range ix.buffers {
		if ix.ctx.Err() != nil {
			continue
		}
		if b.pending {
			ix.catchUpLocked(rel, b)
			b = ix.buffers[rel]
		}
		if !b.stale {
			continue
		}
		tree, err := ix.bufx.parseTree(b.lang, b.src, ctree{})
		if err != nil {
			continue
		}
		b.tree.close()
		syms := ix.bufx.treeDefs(b.lang, tree.root(), b.src)
		ix.putBufferLocked(rel, &buffer{opening: b.opening, version: b.version, src: b.src, tree: tree, lang: b.lang, syms: syms, base: b.src, baseSyms: syms})
	}
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

// OpenBuffers is the number of open buffers.
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

// composeEdit describes as one edit of old the edits that turned it into
// new (each against the text the previous one left): the span from the
// first byte any of them touched to the last, in both texts.
func composeEdit(old, new []byte, edits []workspace.Edit) sitter.EditInput {
	if len(edits) == 0 {
		return diffEdit(old, new)
	}
	// [start, oldEnd) of old is [start, curEnd) of the text so far.
	start, oldEnd, curEnd := edits[0].Start, edits[0].End, edits[0].Start+len(edits[0].New)
	for _, e := range edits[1:] {
		delta := curEnd - oldEnd
		if e.Start < start {
			start = e.Start
		}
		end := curEnd
		if e.End > curEnd {
			end = e.End
			oldEnd = e.End - delta
		}
		curEnd = end + len(e.New) - (e.End - e.Start)
	}
	start = min(start, len(old), len(new))
	oldEnd = min(max(oldEnd, start), len(old))
	curEnd = min(max(curEnd, start), len(new))
	sp := pointAt(old, 0, sitter.Point{}, start)
	return sitter.EditInput{
		StartIndex:  uint32(start),
		OldEndIndex: uint32(oldEnd),
		NewEndIndex: uint32(curEnd),
		StartPoint:  sp,
		OldEndPoint: pointAt(old, start, sp, oldEnd),
		NewEndPoint: pointAt(new, start, sp, curEnd),
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

// pointBefore returns the point of byte to, at or before byte from whose
// point is at.
func pointBefore(b []byte, to, from int, at sitter.Point) sitter.Point {
	row := at.Row - uint32(bytes.Count(b[to:from], []byte{'\n'}))
	return sitter.Point{Row: row, Column: uint32(to - (bytes.LastIndexByte(b[:to], '\n') + 1))}
}

// buffer is an open editor file: its text and its full tree.
type buffer struct {
	opening uint64 // workspace.Buffer.Opening
	stale   bool   // tree is an incremental parse with errors (see updateBuffer)
	version int32
	src     []byte
	tree    ctree
	lang    *Language
	syms    []def // its definitions
	// pending: tree has edits (the body fast path's) not parsed yet;
	// base is the text it last parsed and baseSyms its definitions.
	pending  bool
	base     []byte
	baseSyms []def
	// spans: the bodies of src that the skeleton leaves out (bodySpans),
	// once spansOK.
	spans   []bodySpan
	spansOK bool
	// skip: the last edit, all on line skipRow, took the slow path
	// (bodyFast does not read the skeleton again for an edit on it).
	skip    bool
	skipRow uint32
}
