package codeindex

import (
	"bytes"
	"cmp"
	"slices"
	"sort"

	sitter "github.com/smacker/go-tree-sitter"
)

// goSkeleton makes out the text of a Go file that a definitions-only parse
// needs, leaving out (keeping the brackets, so that the parser sees
// `func f() {}` and `var x = T{}`):
//   - the contents of blocks and composite literals (every brace not
//     opening a struct or interface type): function bodies and tables are
//     most of a Go file;
//   - line comments (doc comments are a good part of what is left);
//   - import declarations;
//   - the contents of the parameter and result lists of functions,
//     interface methods and function types (the receiver stays: it names
//     the container), which are most of the nodes of what remains;
//   - the types and values of top-level constants (the tables of generated
//     files are most of the rest): the parser sees `A` for `A T = 1 << 3`.
//
// Nothing left out holds a definition, and every definition keeps its
// first and last token, except constants: their ends come back through
// the fixes (see rangeFix), so ranges and names are those of a full parse.
// It returns false, meaning "parse everything", when the file has no body
// or looks malformed.
func goSkeleton(out *skelOut, src []byte) bool {
	out.reset()
	s := skeleton{src: src, out: out}
	n := len(src)
	var (
		stack []byte    // open groups: '(', '[', 's' struct and 'i' interface braces
		typ   byte      // the last token was struct ('s') or interface ('i')
		st    skelState // where a func signature is
		stAt  int       // len(stack) when st was set
	)
	for off := 0; off < n; {
		c := src[off]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			off++
			continue
		case c == '/' && off+1 < n && src[off+1] == '/':
			// The range ends before the comment and the next starts at its
			// newline, so no tokens touch.
			end := n
			if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
				end = off + i
			}
			s.cut(off, end)
			off = end
			continue
		case c == '/' && off+1 < n && src[off+1] == '*':
			if off = blockCommentEnd(src, off); off < 0 {
				return false
			}
			continue
		}
		depth := len(stack)
		// Inside the receiver or the type parameters of a func, tokens
		// leave st as it is.
		inner := depth > stAt && (st == sRecv || st == sSig)
		next, nextAt := sNone, stAt // st after this token, unless inner
		newTyp := byte(0)
		switch {
		case c == '"' || c == '\'':
			off = skipQuoted(src, off, c)
		case c == '`':
			i := bytes.IndexByte(src[off+1:], '`')
			if i < 0 {
				return false
			}
			off += i + 2
		case isIdentByte(c):
			start := off
			for off < n && isIdentByte(src[off]) {
				off++
			}
			switch string(src[start:off]) {
			case "struct":
				newTyp = 's'
			case "interface":
				newTyp = 'i'
			case "func":
				if depth == 0 {
					next, nextAt = sFunc, 0
				} else {
					next, nextAt = sParams, depth // a function type or literal
				}
			case "const":
				if depth == 0 {
					end := s.constDecl(off)
					if end < 0 {
						return false
					}
					off = end
				}
			case "import":
				if depth == 0 {
					end := skipImport(src, off)
					if end < 0 {
						return false
					}
					s.cut(start, end)
					off = end
				}
			default:
				switch {
				case (st == sName || st == sFunc) && depth == stAt:
					next = sSig // the name of a method or function
				case depth > 0 && stack[depth-1] == 'i':
					next, nextAt = sParams, depth // an interface method's name (or an embedded type)
				}
			}
		case c == '(':
			switch {
			case !inner && depth == stAt && (st == sSig || st == sParams || st == sResults):
				// A parameter or result list: keep its parentheses only.
				end := skipGroup(src, off+1)
				if end < 0 {
					return false
				}
				s.cut(off+1, end)
				off = end + 1
				if st != sResults {
					next = sResults
				}
			case !inner && depth == stAt && st == sFunc:
				stack = append(stack, '(')
				off++
				next = sRecv
			default:
				stack = append(stack, '(')
				off++
			}
		case c == '[':
			stack = append(stack, '[')
			off++
			if !inner && depth == stAt && st == sSig {
				next = sSig // type parameters
			}
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				return false
			}
			stack = stack[:depth-1]
			off++
			if inner && depth-1 == stAt {
				inner = false
				next = sSig
				if st == sRecv {
					next = sName
				}
			}
		case c == '{' && typ != 0:
			stack = append(stack, typ)
			off++
		case c == '{':
			// A block or a composite literal: keep its braces only.
			end := skipBody(src, off+1)
			if end < 0 {
				return false // unbalanced: let the parser see it all
			}
			s.cut(off+1, end)
			off = end + 1
		default:
			off++
		}
		typ = newTyp
		if !inner {
			st, stAt = next, nextAt
		}
	}
	if s.cuts == 0 {
		return false
	}
	s.cut(n, n)
	return true
}

// skelState is where goSkeleton is in a func signature.
type skelState uint8

const (
	sNone    skelState = iota
	sFunc              // after `func` at the top level: a receiver or the name
	sRecv              // in the receiver
	sName              // after the receiver: the name
	sSig               // after the name (and in type parameters): the parameters
	sParams            // after `func` in a type or an interface method's name: the parameters
	sResults           // after the parameters: maybe a result list
)

// skelOut is a skeleton: the text the parser sees (what is left of the
// file, pieces joined), where each piece comes from, and the ends to fix.
// An extractor reuses one from file to file.
type skelOut struct {
	buf   []byte
	segs  []seg
	fixes []rangeFix
	crow  uint32 // the point at the end of buf
	ccol  uint32
	hint  int       // the piece of the last point mapped
	rtoks []rubyTok // rubySkeleton's tokens, reused from file to file
	// groups: the brace skeleton's open parentheses, a stack shared by
	// its blocks and reused from file to file
	groups []group
	// pythonSkeleton's lines and pieces, reused from file to file
	pylines []pyLine
	pieces  []piece
	pycuts  []piece // the cuts of pythonSkeleton and rubySkeleton
	// bodies: the method bodies rubySkeleton and pythonSkeleton leave
	// out (the body fast path's spans: bodySpans)
	bodies [][2]int
	// comments: rubySkeleton's comments, as rubyTokens reads them (the
	// body fast path's spans)
	comments [][2]int

	// starts give back the starts of definitions whose first tokens the
	// skeleton left out (C#'s attributes): a node that starts at byte
	// at starts at endByte, point end.
	starts []rangeFix
}

// seg is one piece of a skeleton: buf[c:] comes from the file at byte o,
// point opt; cpt is the point of c in buf.
type seg struct {
	c, o     uint32
	cpt, opt sitter.Point
}

func (k *skelOut) reset() {
	k.buf, k.segs, k.fixes, k.starts = k.buf[:0], k.segs[:0], k.fixes[:0], k.starts[:0]
	k.crow, k.ccol, k.hint = 0, 0, 0
	k.groups = k.groups[:0]
	k.bodies = k.bodies[:0]
	k.comments = nil
}

func (k *skelOut) add(piece []byte, o uint32, opt sitter.Point) {
	k.segs = append(k.segs, seg{c: uint32(len(k.buf)), o: o, cpt: sitter.Point{Row: k.crow, Column: k.ccol}, opt: opt})
	k.buf = append(k.buf, piece...)
	if nl := bytes.Count(piece, []byte{'\n'}); nl > 0 {
		k.crow += uint32(nl)
		k.ccol = uint32(len(piece) - 1 - bytes.LastIndexByte(piece, '\n'))
	} else {
		k.ccol += uint32(len(piece))
	}
}

// toFile maps a range of the skeleton's tree to the file. A start at a
// piece's first byte is in that piece, an end there in the one before.
func (k *skelOut) toFile(r *sitter.Range) {
	empty := r.EndByte == r.StartByte
	r.StartByte, r.StartPoint = k.point(r.StartByte, r.StartPoint, false)
	r.EndByte, r.EndPoint = k.point(r.EndByte, r.EndPoint, !empty)
}

func (k *skelOut) point(b uint32, p sitter.Point, end bool) (uint32, sitter.Point) {
	// The piece of b: the last one starting before b (at b for a start).
	// Captures come mostly in order: try the piece of the last one first.
	before := func(i int) bool { // piece i starts before b (at b for a start)
		return k.segs[i].c < b || !end && k.segs[i].c == b
	}
	in := func(i int) bool { return before(i) && (i+1 == len(k.segs) || !before(i+1)) }
	i := k.hint
	switch {
	case i < len(k.segs) && in(i):
	case i+1 < len(k.segs) && in(i+1):
		i++
	default:
		i = sort.Search(len(k.segs), func(i int) bool { return !before(i) }) - 1
		if i < 0 {
			return b, p
		}
	}
	k.hint = i
	g := &k.segs[i]
	if p.Row == g.cpt.Row {
		p = sitter.Point{Row: g.opt.Row, Column: g.opt.Column + p.Column - g.cpt.Column}
	} else {
		p.Row += g.opt.Row - g.cpt.Row
	}
	return g.o + b - g.c, p
}

// skeleton cuts a file for goSkeleton. Points are computed lazily: cuts
// come in order, and the rows between two are counted at once.
type skeleton struct {
	src                []byte
	out                *skelOut
	from               int          // start of the pending piece
	fromPt             sitter.Point // its point
	rowOff, row, lineS int          // src[:rowOff] holds row newlines, the last line starting at lineS
	cuts               int
	// dry: cuts are counted, nothing is written to out (a reader that
	// wants only the reading: bodyRead)
	dry bool
}

func (s *skeleton) point(off int) sitter.Point {
	if seg := s.src[s.rowOff:off]; len(seg) > 0 {
		if k := bytes.Count(seg, []byte{'\n'}); k > 0 {
			s.row += k
			s.lineS = s.rowOff + bytes.LastIndexByte(seg, '\n') + 1
		}
		s.rowOff = off
	}
	return sitter.Point{Row: uint32(s.row), Column: uint32(off - s.lineS)}
}

// cut leaves src[a:b] out: the pending piece ends at a (unless empty), the
// next starts at b.
func (s *skeleton) cut(a, b int) {
	s.cuts++
	if s.dry {
		s.from = b
		return
	}
	if a > s.from {
		s.out.add(s.src[s.from:a], uint32(s.from), s.fromPt)
	}
	s.from, s.fromPt = b, s.point(b)
}

// A rangeFix gives back the end of a definition whose last tokens the
// skeleton left out: a node of the skeleton's tree that ends at byte at of
// the file (once mapped) ends at endByte, point end.
type rangeFix struct {
	at      uint32
	endByte uint32
	end     sitter.Point
}

// fixEnd moves the end of r when the skeleton cut its tail (fixes are in
// the order of the file).
func fixEnd(fixes []rangeFix, r *sitter.Range) {
	if len(fixes) == 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(fixes, r.EndByte, func(f rangeFix, at uint32) int { return cmp.Compare(f.at, at) })
	if i < len(fixes) && fixes[i].at == r.EndByte {
		r.EndByte, r.EndPoint = fixes[i].endByte, fixes[i].end
	}
}

// fixStart moves the start of r when the skeleton cut its head (see
// skelOut.starts).
func fixStart(starts []rangeFix, r *sitter.Range) {
	if len(starts) == 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(starts, r.StartByte, func(f rangeFix, at uint32) int { return cmp.Compare(f.at, at) })
	if i < len(starts) && starts[i].at == r.StartByte {
		r.StartByte, r.StartPoint = starts[i].endByte, starts[i].end
	}
}

// constDecl reads a top-level const declaration whose keyword ends at off
// and leaves out the type and value of each spec (the parser sees the
// names only); it returns where the declaration ends, or -1.
func (s *skeleton) constDecl(off int) int {
	src := s.src
	n := len(src)
	for off < n && (src[off] == ' ' || src[off] == '\t') {
		off++
	}
	if off < n && src[off] != '(' {
		return s.constSpec(off)
	}
	off++
	for off < n {
		c := src[off]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';':
			off++
		case c == '/' && off+1 < n && src[off+1] == '/':
			end := n
			if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
				end = off + i
			}
			s.cut(off, end)
			off = end
		case c == '/' && off+1 < n && src[off+1] == '*':
			if off = blockCommentEnd(src, off); off < 0 {
				return -1
			}
		case c == ')':
			return off + 1
		case isIdentByte(c):
			if off = s.constSpec(off); off < 0 {
				return -1
			}
		default:
			return -1
		}
	}
	return -1
}

// constSpec reads the spec starting at off (its first name) and returns
// where it ends (the end of its last token), or -1.
func (s *skeleton) constSpec(off int) int {
	src := s.src
	n := len(src)
	var nameEnd int
	for {
		if off >= n || !isIdentByte(src[off]) {
			return -1
		}
		for off < n && isIdentByte(src[off]) {
			off++
		}
		nameEnd = off
		// Blanks and block comments may stand between the names and
		// the commas (`b /* x */ , c`).
		if off = skipBlanks(src, off, false); off < 0 {
			return -1
		}
		if off >= n || src[off] != ',' {
			break
		}
		if off = skipBlanks(src, off+1, true); off < 0 {
			return -1
		}
	}
	end := specEnd(src, nameEnd)
	if end > nameEnd {
		s.cut(nameEnd, end)
		s.out.fixes = append(s.out.fixes, rangeFix{at: uint32(nameEnd), endByte: uint32(end), end: s.fromPt})
	}
	return end
}

// skipBlanks returns the offset after the spaces, tabs and block
// comments at off (newlines too, with nl), or -1 for a comment not
// closed.
func skipBlanks(src []byte, off int, nl bool) int {
	for off < len(src) {
		switch c := src[off]; {
		case c == ' ' || c == '\t' || nl && (c == '\r' || c == '\n'):
			off++
		case c == '/' && off+1 < len(src) && src[off+1] == '*':
			if off = blockCommentEnd(src, off); off < 0 {
				return -1
			}
		default:
			return off
		}
	}
	return off
}

// specEnd returns the end of the last token of the spec whose tokens go
// on from off (after a name: a type, `=`, values), by Go's semicolon
// rule: a newline after a token that can end a statement, a `;`, or the
// `)` closing the declaration end it. It returns -1 when unsure.
func specEnd(src []byte, off int) int {
	n := len(src)
	end, ends := off, true
	for off < n {
		c := src[off]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			off++
		case c == '\n' || c == ';' || c == ')':
			if ends || c != '\n' {
				return end
			}
			off++
		case c == '/' && off+1 < n && src[off+1] == '/':
			if ends {
				return end
			}
			i := bytes.IndexByte(src[off:], '\n')
			if i < 0 {
				return -1
			}
			off += i
		case c == '/' && off+1 < n && src[off+1] == '*':
			// Like a space, or like a newline when it holds one.
			e := blockCommentEnd(src, off)
			if e < 0 {
				return -1
			}
			if ends && bytes.IndexByte(src[off:e], '\n') >= 0 {
				return end
			}
			off = e
		case c == '(' || c == '[' || c == '{':
			close := byte(')')
			switch c {
			case '[':
				close = ']'
			case '{':
				close = '}'
			}
			k := skipTo(src, off+1, c, close)
			if k < 0 {
				return -1
			}
			off = k + 1
			end, ends = off, true
		case c == ']' || c == '}':
			return -1
		case c == '"' || c == '\'':
			off = skipQuoted(src, off, c)
			end, ends = off, true
		case c == '`':
			i := bytes.IndexByte(src[off+1:], '`')
			if i < 0 {
				return -1
			}
			off += i + 2
			end, ends = off, true
		case c >= '0' && c <= '9' || c == '.' && off+1 < n && src[off+1] >= '0' && src[off+1] <= '9':
			off = skipNumber(src, off)
			end, ends = off, true
		case isIdentByte(c):
			start := off
			for off < n && isIdentByte(src[off]) {
				off++
			}
			switch string(src[start:off]) {
			case "func", "struct", "interface", "map", "chan":
				ends = false
			default:
				ends = true
			}
			end = off
		case (c == '+' || c == '-') && off+1 < n && src[off+1] == c:
			off += 2
			end, ends = off, true
		default: // an operator
			off++
			end, ends = off, false
		}
	}
	return end
}

// skipNumber returns the end of the number literal at off (1., 0x1p-2,
// 1e+3i).
func skipNumber(src []byte, off int) int {
	start := off
	hex := off+1 < len(src) && src[off] == '0' && (src[off+1] == 'x' || src[off+1] == 'X')
	for off < len(src) {
		c := src[off]
		switch {
		case isIdentByte(c) || c == '.':
			off++
		case (c == '+' || c == '-') && off > start:
			p := src[off-1]
			if !(p == 'p' || p == 'P' || !hex && (p == 'e' || p == 'E')) {
				return off
			}
			off++
		default:
			return off
		}
	}
	return off
}

// skipBytes marks the bytes skipTo looks at, by the bracket it matches.
var skipBytes = [3][256]bool{
	{'{': true, '}': true, '"': true, '\'': true, '`': true, '/': true},
	{'(': true, ')': true, '"': true, '\'': true, '`': true, '/': true},
	{'[': true, ']': true, '"': true, '\'': true, '`': true, '/': true},
}

// skipBody returns the offset of the brace closing the block whose
// contents start at off, or -1.
func skipBody(src []byte, off int) int { return skipTo(src, off, '{', '}') }

// skipGroup returns the offset of the parenthesis closing the list whose
// contents start at off, or -1.
func skipGroup(src []byte, off int) int { return skipTo(src, off, '(', ')') }

func skipTo(src []byte, off int, open, close byte) int {
	n := len(src)
	depth := 0
	look := &skipBytes[0]
	switch open {
	case '(':
		look = &skipBytes[1]
	case '[':
		look = &skipBytes[2]
	}
	for off < n {
		c := src[off]
		if !look[c] {
			off++
			continue
		}
		switch c {
		case open:
			depth++
			off++
		case close:
			if depth == 0 {
				return off
			}
			depth--
			off++
		case '"', '\'':
			off = skipQuoted(src, off, c)
		case '`':
			i := bytes.IndexByte(src[off+1:], '`')
			if i < 0 {
				return -1
			}
			off += i + 2
		case '/':
			switch {
			case off+1 < n && src[off+1] == '/':
				i := bytes.IndexByte(src[off:], '\n')
				if i < 0 {
					return -1
				}
				off += i
			case off+1 < n && src[off+1] == '*':
				if off = blockCommentEnd(src, off); off < 0 {
					return -1
				}
			default:
				off++
			}
		default:
			off++
		}
	}
	return -1
}

// skipImport returns the end of the import declaration whose keyword ends
// at off (after its closing parenthesis or its one import path), or -1
// when it is not the usual shape.
func skipImport(src []byte, off int) int {
	n := len(src)
	space := func() {
		for off < n && (src[off] == ' ' || src[off] == '\t') {
			off++
		}
	}
	space()
	if off < n && src[off] == '(' {
		end := skipGroup(src, off+1)
		if end < 0 {
			return -1
		}
		return end + 1
	}
	if off < n && (src[off] == '.' || isIdentByte(src[off])) { // a package name
		off++
		for off < n && isIdentByte(src[off]) {
			off++
		}
		space()
	}
	if off >= n || src[off] != '"' {
		return -1
	}
	end := skipQuoted(src, off, '"')
	if end <= off+1 || src[end-1] != '"' {
		return -1
	}
	return end
}

// skipQuoted skips a "..." or '...' literal starting at off (backslash
// escapes; a newline ends a malformed one) and returns the offset after it.
func skipQuoted(src []byte, off int, q byte) int {
	off++
	for off < len(src) {
		switch src[off] {
		case '\\':
			off += 2
			continue
		case q:
			return off + 1
		case '\n':
			return off
		}
		off++
	}
	return min(off, len(src)) // a backslash at the end of the text
}

// blockCommentEnd returns the offset just after the /* comment that starts
// at off, or -1 when it is not closed.
func blockCommentEnd(src []byte, off int) int {
	i := bytes.Index(src[off+2:], []byte("*/"))
	if i < 0 {
		return -1
	}
	return off + 2 + i + 2
}

func isIdentByte(c byte) bool { return identBytes[c] }

// identBytes: letters, digits, '_' and the bytes of UTF-8 sequences (a
// table: the lexer's loop over a name's bytes was a fifth of its time).
var identBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	return t
}()
