package codeindex

import (
	"sort"

	sitter "github.com/smacker/go-tree-sitter"
)

// The body fast path. Most keystrokes land inside a function body that
// holds no definition, where the cold build's skeleton (bracketSkeleton)
// leaves the contents out: the definitions of a skeleton parse are those
// of a full parse (TestSkeletonCorpora), so an edit that stays inside
// such a body, the body still reading as one that the skeleton leaves
// out, keeps the file's definitions, those after the edit moved with it.
// Such an edit only edits the buffer's tree (cheap) and marks it pending:
// the parse waits until something needs the tree (catchUpLocked), and
// then every pending edit is parsed at once. The definitions are then
// those of that parse (changedDefs from the last parsed text), so a query
// never reads the fast path's guess: it only spares the keystroke.
// The same holds for an edit inside comments that the skeleton leaves
// out, the text still reading as the same comments, and for one inside a
// large array literal that it leaves out (PHP's constant tables), still
// one that it leaves out. Brace languages only (bracketSkeleton).

// bodySpans returns the contents [open+1, close) of the braces of src
// that the skeleton leaves out whole ({a, c, 0}), the comments it
// leaves out ({a, c, 1}) and the array literals it leaves out ({a, c, 2}:
// [open+1, close) of the brackets), in order, or nil (none, or the skeleton cannot
// read the file). A gap between the skeleton's pieces
// counts only when the brace before it and the one after it are kept,
// match, and something other than spaces and comments lies between
// (so that a gap of comments only, inside a class body, is not taken for
// a body).
func bodySpans(l *Language, out *skelOut, src []byte) [][3]int {
	if l.syn == nil || l.syn.body != bodyBrackets || l.skeleton == nil {
		return nil
	}
	if !l.skeleton(out, src) {
		return nil
	}
	var spans [][3]int
	segs := out.segs
	for i := 0; i+1 < len(segs); i++ {
		n := segs[i+1].c - segs[i].c
		a, c := int(segs[i].o+n), int(segs[i+1].o)
		if a <= 0 || c >= len(src) || c <= a {
			continue
		}
		if commentsOnly(l.syn, src, a, c) {
			spans = append(spans, [3]int{a, c, 1})
			continue
		}
		switch {
		case src[a-1] == '{' && src[c] == '}':
			if b, ok := bodyRead(l.syn, src, a, '}'); ok && b == c && hasCode(l.syn, src, a, c) {
				spans = append(spans, [3]int{a, c, 0})
			}
		case src[a-1] == '[' && src[c] == ']' && c-a >= minLiteral:
			if b, ok := bodyRead(l.syn, src, a, ']'); ok && b == c {
				spans = append(spans, [3]int{a, c, 2})
			}
		}
	}
	return spans
}

// commentsOnly reports whether src[a:c], read by the lexer from a, is
// whole comments and spaces (the last space may run on past c): a gap
// the skeleton leaves out as comments, or the inside of one (a comment's
// text between its markers: then it reads as code and is not).
func commentsOnly(sx *syntax, src []byte, a, c int) bool {
	lx := lexer{sx: sx, src: src}
	off := a
	for off < c {
		k, e := lx.next(off)
		switch {
		case k == tSpace:
			if e > c {
				return true
			}
		case k != tComment || e > c:
			return false
		}
		off = e
	}
	return off == c
}

// bodyRead reads src from off (just after a '{', or a '[' for an array
// literal: closer) as the skeleton reads a body that is not a container
// and returns the offset of its closer; ok is false when the lexer fails
// or something in it can define.
func bodyRead(sx *syntax, src []byte, off int, closer byte) (end int, ok bool) {
	var out skelOut
	b := bskel{skeleton: skeleton{src: src, out: &out, from: off, rowOff: off, lineS: off}, lx: lexer{sx: sx, src: src}, sx: sx}
	end, defs := b.block(off, closer, false)
	if b.fail || defs || end >= len(src) || src[end] != closer {
		return 0, false
	}
	return end, true
}

// hasCode reports whether src[a:c] holds a token other than spaces and
// comments.
func hasCode(sx *syntax, src []byte, a, c int) bool {
	lx := lexer{sx: sx, src: src[:c]}
	for off := a; off < c; {
		k, e := lx.next(off)
		switch k {
		case tSpace, tComment:
			off = e
		default:
			return true
		}
	}
	return false
}

// maxFastBody is the largest body (bytes) the fast path reads again: a
// larger one (a table of thousands of lines) costs more to read than the
// parse it would spare.
const maxFastBody = 128 << 10

// bodyFast tries the fast path for the edit e that turns b.src into src:
// it returns the definitions after the edit and true when e lies inside
// one of b's bodies (see bodySpans) and the body, read again in src,
// still closes where it did (moved by the edit) with nothing in it that
// can define. The caller holds bufMu.
func (ix *Index) bodyFast(b *buffer, src []byte, e sitter.EditInput) ([]def, bool) {
	if b.lang.syn == nil || b.lang.syn.body != bodyBrackets || b.stale {
		return nil, false
	}
	if !b.spansOK {
		if b.skip && e.StartPoint.Row == b.skipRow && e.OldEndPoint.Row == b.skipRow {
			// The last edit, on this line, took the slow path: so
			// will this one, most likely; the skeleton of the whole
			// file is not worth reading again for it.
			return nil, false
		}
		if ix.bodyOut == nil {
			ix.bodyOut = new(skelOut)
		}
		b.spans, b.spansOK = bodySpans(b.lang, ix.bodyOut, b.src), true
	}
	start, oldEnd, newEnd := int(e.StartIndex), int(e.OldEndIndex), int(e.NewEndIndex)
	i := sort.Search(len(b.spans), func(i int) bool { return b.spans[i][0] > start }) - 1
	if i < 0 || oldEnd > b.spans[i][1] {
		return nil, false
	}
	a, c := b.spans[i][0], b.spans[i][1]+newEnd-oldEnd
	if c-a > maxFastBody {
		return nil, false
	}
	if b.spans[i][2] == 1 {
		// Comments: they stay comments, ending where they did.
		if !commentsOnly(b.lang.syn, src, a, c) {
			return nil, false
		}
	} else if b.spans[i][2] == 2 {
		// An array literal: it stays one, large enough to be left out.
		if end, ok := bodyRead(b.lang.syn, src, a, ']'); !ok || end != c || c-a < minLiteral {
			return nil, false
		}
	} else if end, ok := bodyRead(b.lang.syn, src, a, '}'); !ok || end != c || !hasCode(b.lang.syn, src, a, c) {
		return nil, false
	}
	// The definitions: none may start inside the body; those after the
	// edit move, those holding it end later.
	sp := Pos{e.StartPoint.Row, e.StartPoint.Column}
	op := Pos{e.OldEndPoint.Row, e.OldEndPoint.Column}
	np := Pos{e.NewEndPoint.Row, e.NewEndPoint.Column}
	// Text inserted where a definition starts goes before it, where one
	// ends after it.
	shift := func(p Pos, end bool) (Pos, bool) {
		switch {
		case posLess(p, sp) || end && p == sp: // before the edit
			return p, true
		case posLess(p, op): // inside the edit
			return p, false
		default:
			return movePos(p, op, np), true
		}
	}
	syms := make([]def, len(b.syms))
	for k, d := range b.syms {
		var ok [4]bool
		d.Range.Start, ok[0] = shift(d.Range.Start, false)
		d.Range.End, ok[1] = shift(d.Range.End, true)
		d.NameRange.Start, ok[2] = shift(d.NameRange.Start, false)
		d.NameRange.End, ok[3] = shift(d.NameRange.End, true)
		if ok != [4]bool{true, true, true, true} {
			return nil, false
		}
		syms[k] = d
	}
	// The body spans after the edit.
	for k := i; k < len(b.spans); k++ {
		if k > i {
			b.spans[k][0] += newEnd - oldEnd
		}
		b.spans[k][1] += newEnd - oldEnd
	}
	return syms, true
}

// catchUpLocked parses a buffer whose tree has edits not parsed yet (the
// fast path's): all of them at once, incrementally, and its definitions
// become those of that parse (changedDefs from the text last parsed, or
// the whole tree's). A parse with syntax errors marks the buffer stale
// (settle then parses it afresh). The caller holds bufMu.
func (ix *Index) catchUpLocked(rel string, b *buffer) {
	if !b.pending {
		return
	}
	tree, err := ix.bufx.parseTree(b.lang, b.src, b.tree)
	if err != nil {
		return // the tree stays pending; the next update parses again
	}
	var syms []def
	e := diffEdit(b.base, b.src)
	var ok bool
	if syms, ok = ix.bufx.changedDefs(b.lang, b.tree, tree, b.src, e, b.baseSyms); !ok {
		syms = ix.bufx.treeDefs(b.lang, tree.root(), b.src)
	}
	b.tree.close()
	nb := &buffer{opening: b.opening, version: b.version, src: b.src, tree: tree, lang: b.lang, syms: syms, stale: tree.hasError(),
		base: b.src, baseSyms: syms}
	ix.putBufferLocked(rel, nb)
}
