package codeindex

// The body fast path for bodies larger than maxFastBody (generated tables:
// Boost's srs/projections/epsg.hpp holds one array initializer of 630 KB,
// where reading the whole body again for each keystroke costs more than
// the parse it would spare). For a language whose bodies can define
// something only through a keyword (C, C++: no methods in object
// literals, no anonymous classes, no functions assigned), a body that the
// skeleton leaves out, holds none of those keywords and no #define, and
// whose brackets pair, stays one after an edit when the text around the
// edit, read again from a line before it to a line after it where the
// tokens are those of before the edit again, holds none of those either
// and brackets that pair as those it replaces (see reduceBrackets). The first edit in such a body
// reads it once and notes where lines start between tokens (marks); each
// edit then reads only from the mark before it.

// bigMarkGap is the least distance between two marks of a large body.
const bigMarkGap = 4 << 10

// maxResync is how far past an edit the two readings may go before their
// tokens meet again.
const maxResync = 64 << 10

// bigBodyOf holds what the fast path knows of a large body (see
// bodySpan.big).
type bigBodyOf struct {
	ok    bool    // the body may take the fast path
	marks []int32 // offsets from the body's start where a line starts between tokens, in order
	code  int     // its tokens other than spaces and comments
}

// bigBodies reports whether the fast path for large bodies applies to sx.
// Python too, for brackets (pyBrackets): nothing in them defines.
func bigBodies(sx *syntax) bool {
	return sx == pythonSyntax || sx.body == bodyBrackets && !sx.identBrace && !sx.methods && !sx.assignFuncs && !sx.pairFuncs && !sx.anonClass &&
		!sx.macros && len(sx.funcs) == 0 && !sx.regex && !sx.jsx && !sx.heredoc
}

// defWord reports whether the identifier src[off:e] may make a body one
// that holds a definition (see bskel.block; C++'s `using namespace x;`
// does not: afterUsing, the last word was `using`).
func (sx *syntax) defWord(src []byte, off, e int, afterUsing bool) bool {
	w, f := sx.wordKw(src[off:e])
	if w == "namespace" && afterUsing {
		return false
	}
	if w == "using" && sx.templates {
		b := bskel{skeleton: skeleton{src: src}, sx: sx}
		return b.aliasDecl(e)
	}
	return f&(kwContainer|kwDef|kwFunc|kwAny) != 0
}

// readBig reads the body src[a:c] of span sp once (see bigBodyOf).
func readBig(sx *syntax, src []byte, a, c int) *bigBodyOf {
	bb := &bigBodyOf{}
	lx := lexer{sx: sx, src: src[:c]}
	var stack []byte
	last := -bigMarkGap
	// using: tokens to read before a mark may stand again: an edit after
	// a mark must not make `using namespace x` an alias (using x = ...)
	// unread.
	using := 0
	for off := a; off < c; {
		k, e := lx.next(off)
		if using > 0 && k >= tString && k <= tPunct {
			using--
		}
		switch k {
		case tBad, tEOF:
			return bb
		case tSpace, tComment:
		case tDirective:
			if lx.define {
				return bb
			}
		case tIdent:
			if sx.defWord(src[:c], off, e, using == 2) {
				return bb
			}
			if string(src[off:e]) == "using" {
				using = 3
			}
			bb.code++
		case tPunct:
			if src[off] == '\\' && sx == pythonSyntax {
				return bb // (pyBracketsOK)
			}
			bb.code++
			var ok bool
			if stack, ok = pairBracket(stack, src[off]); !ok {
				return bb
			}
		default:
			bb.code++
		}
		off = e
		if k == tSpace && using == 0 && off-last >= bigMarkGap && lineStartsAt(src, off) {
			bb.marks = append(bb.marks, int32(off-a))
			last = off
		}
	}
	bb.ok = len(stack) == 0
	return bb
}

// pairBracket pushes an opening bracket on stack or pops the one a
// closing bracket closes; ok is false for a closing one that closes no
// bracket of its kind.
func pairBracket(stack []byte, c byte) ([]byte, bool) {
	switch c {
	case '(', '[', '{':
		return append(stack, c), true
	case ')', ']', '}':
		open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
		if len(stack) == 0 || stack[len(stack)-1] != open {
			return stack, false
		}
		return stack[:len(stack)-1], true
	}
	return stack, true
}

// bigBodyOK reports whether the edit that turns old into src, replacing
// old[start:oldEnd] with src[start:newEnd], inside the large body sp
// (offsets of old), leaves it a body that the skeleton leaves out (see
// above); then the span's marks move with the edit.
func bigBodyOK(sx *syntax, sp *bodySpan, old, src []byte, start, oldEnd, newEnd int) bool {
	if !bigBodies(sx) || sp.kind != braceBody && sp.kind != arrayLit && sp.kind != pyBrackets || start < sp.a || oldEnd > sp.c {
		return false
	}
	if sp.big == nil {
		sp.big = readBig(sx, old, sp.a, sp.c)
	}
	bb := sp.big
	if !bb.ok {
		return false
	}
	// The mark before the edit (a line's start: what follows it reads
	// the same whatever came before).
	m := 0
	for m < len(bb.marks) && sp.a+int(bb.marks[m]) <= start {
		m++
	}
	from := sp.a
	if m > 0 {
		from = sp.a + int(bb.marks[m-1])
	}
	delta := newEnd - oldEnd
	endO, endN := sp.c, sp.c+delta
	ol := lexer{sx: sx, src: old[:endO]}
	nl := lexer{sx: sx, src: src[:endN]}
	var ob, nb []byte // the brackets of each reading
	oldCode, newCode := 0, 0
	po, pn := from, from
	afterUsing := false
	for {
		if pn >= endN {
			// The body's end: the old reading goes to its own.
			if !readTo(&ol, old, &po, endO, &ob, &oldCode) {
				return false
			}
			break
		}
		if pn-newEnd > maxResync {
			return false
		}
		k, e := nl.next(pn)
		switch k {
		case tBad, tEOF:
			return false
		case tDirective:
			if nl.define {
				return false
			}
		case tIdent:
			if sx.defWord(src[:endN], pn, e, afterUsing) {
				return false
			}
		case tPunct:
			if src[pn] == '\\' && sx == pythonSyntax {
				return false // (pyBracketsOK)
			}
		}
		if k >= tString && k <= tPunct {
			afterUsing = k == tIdent && string(src[pn:e]) == "using"
		}
		countTok(k, src[pn], &nb, &newCode)
		pn = e
		if pn < newEnd || k != tSpace || !lineStartsAt(src, pn) {
			continue
		}
		// A line starts after the edit: the old reading up to the same
		// text.
		if !readTo(&ol, old, &po, pn-delta, &ob, &oldCode) {
			return false
		}
		if po == pn-delta && po >= oldEnd && lineStartsAt(old, po) {
			break
		}
	}
	if string(reduceBrackets(ob)) != string(reduceBrackets(nb)) || bb.code-oldCode+newCode <= 0 {
		return false
	}
	// The marks after the edit move with it; those the two readings
	// covered go.
	lo, hi := m, m
	for hi < len(bb.marks) && sp.a+int(bb.marks[hi]) < po {
		hi++
	}
	marks := append(bb.marks[:lo:lo], bb.marks[hi:]...)
	for k := lo; k < len(marks); k++ {
		marks[k] += int32(delta)
	}
	bb.code += newCode - oldCode
	bb.marks = marks
	return true
}

// reduceBrackets takes out of a sequence of brackets the pairs that
// match (an opening one followed by its closing one, once those between
// are out): two texts whose brackets reduce to the same sequence pair
// the same in any text around them.
func reduceBrackets(seq []byte) []byte {
	out := seq[:0:0]
	for _, c := range seq {
		if n := len(out); n > 0 && (c == ')' && out[n-1] == '(' || c == ']' && out[n-1] == '[' || c == '}' && out[n-1] == '{') {
			out = out[:n-1]
			continue
		}
		out = append(out, c)
	}
	return out
}

// countTok counts a token of kind k starting with byte c: code (not
// spaces, comments or directives) and brackets.
func countTok(k tokKind, c byte, brackets *[]byte, code *int) {
	switch k {
	case tSpace, tComment, tDirective:
		return
	}
	*code++
	if k == tPunct && (c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}') {
		*brackets = append(*brackets, c)
	}
}

// readTo reads src from *off with lx while before target (a reading
// the fast path already made once: it holds no definition).
func readTo(lx *lexer, src []byte, off *int, target int, brackets *[]byte, code *int) bool {
	for *off < target {
		k, e := lx.next(*off)
		if k == tBad || k == tEOF {
			return false
		}
		countTok(k, src[*off], brackets, code)
		*off = e
	}
	return true
}
