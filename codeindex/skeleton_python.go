package codeindex

import (
	"bytes"
	"sort"
	"strings"
)

// pythonSkeleton makes out the text of a Python file for a
// definitions-only parse: it leaves out the text of comments and of long
// strings (docstrings, mostly: their quotes stay), the contents of calls'
// arguments and of literals in brackets, and every statement that
// defines nothing (see pySkel): of a function whose body holds no def,
// class or decorator, the parser sees `def f(x):\n    self`. A
// definition's end comes back through a fix (rangeFix), so ranges are
// those of a full parse. Lines are logical lines: brackets, strings and
// backslashes continue them.
func pythonSkeleton(out *skelOut, src []byte) bool {
	out.reset()
	lx := lexer{sx: pythonSyntax, src: src}
	type line = pyLine
	var (
		lines              = out.pylines[:0]
		comments           [][2]int         // comments' text
		pieces             = out.pieces[:0] // text to leave out: comments and long strings
		cur                = line{start: -1}
		depth              int
		cont               bool // a backslash continues the line
		prevStart, prevEnd int
		lastPunc           byte
		// Open brackets: where each opened, and whether its contents can
		// go (a call's arguments, a tuple, a list, a dict or set: the
		// parser sees an empty one; not a subscript, nor `from m import
		// (a, b)`).
		opens   []int
		prevTok tokKind
		prevC   byte
	)
	flush := func() {
		if cur.start >= 0 {
			cur.end = prevEnd
			cur.colon = lastPunc == ':'
			lines = append(lines, cur)
		}
		cur = line{start: -1}
	}
	for off := 0; off < len(src); {
		if cur.second != nil && (depth > 0 || cur.alone[0] >= 0) && !cont {
			// Past a line's first tokens, most of a file is names, blanks
			// and operators: they go here as the lexer and the loop below
			// would take them (lastPunc, prevTok…), without either. A name
			// before a quote is a string's prefix: the lexer's.
			for off < len(src) {
				c := src[off]
				if c == ' ' || c == '\t' {
					off++
					continue
				}
				if isIdentByte(c) && (c < '0' || c > '9') {
					e := off + 1
					for e < len(src) && isIdentByte(src[e]) {
						e++
					}
					if e < len(src) && (src[e] == '"' || src[e] == '\'') {
						break
					}
					prevTok, prevC, prevStart, prevEnd, lastPunc = tIdent, c, off, e, 0
					off = e
					continue
				}
				if !pyPlainPunct[c] {
					break
				}
				prevTok, prevC, prevStart, prevEnd, lastPunc = tPunct, c, off, off+1, c
				off++
			}
			if off >= len(src) {
				break
			}
		}
		k, e := lx.next(off)
		switch k {
		case tBad:
			return false
		case tSpace:
			if depth == 0 && !cont {
				for _, c := range src[off:e] {
					if c == '\n' {
						flush()
						break
					}
				}
			}
			if cont && indexNL(src[off:e]) {
				cont = false
			}
			off = e
			continue
		case tComment:
			comments = append(comments, lx.inner)
			pieces = append(pieces, piece{lx.inner[0], lx.inner[1], true})
			off = e
			continue
		case tString:
			// The text of a long string (a docstring, mostly) is left out,
			// its quotes kept.
			q := 1
			if e-off >= 6 && (src[off+1] == src[off] && src[off+2] == src[off]) {
				q = 3
			}
			if e-off-2*q >= minLiteral {
				pieces = append(pieces, piece{off + q, e - q, false})
			}
		}
		if cur.start < 0 {
			ls := off
			for ls > 0 && src[ls-1] != '\n' {
				ls--
			}
			cur.start, cur.indent = off, off-ls
			cur.first = src[off:e]
			cur.alone = [2]int{-1, -1}
		} else if cur.second == nil {
			cur.second = src[off:e]
		}
		if depth == 0 && cur.alone[0] < 0 && (k == tIdent || k == tNumber) && pyAlone(src[off:e]) {
			cur.alone = [2]int{off, e}
		}
		lastPunc = 0
		if k == tPunct {
			switch c := src[off]; c {
			case '(', '[', '{':
				depth++
				o := off
				if c == '[' && (prevTok == tIdent && (prevStart < cur.start || pyWord(src[prevStart:prevEnd])&pyOperand == 0) || prevTok == tString || prevTok == tNumber || prevTok == tPunct && (prevC == ')' || prevC == ']' || prevC == '}')) ||
					string(cur.first) == "from" || string(cur.first) == "import" {
					o = -1
				}
				opens = append(opens, o)
			case ')', ']', '}':
				if depth == 0 {
					return false
				}
				depth--
				if o := opens[len(opens)-1]; o >= 0 && off-o > 4 {
					// What was to go inside goes with the rest.
					for len(pieces) > 0 && pieces[len(pieces)-1].a > o {
						pieces = pieces[:len(pieces)-1]
					}
					pieces = append(pieces, piece{o + 1, off, false})
				}
				opens = opens[:len(opens)-1]
			case '\\':
				cont = true
				off = e
				continue
			case ';':
				cur.semi = cur.semi || depth == 0
				lastPunc = c
			default:
				lastPunc = c
			}
		}
		prevTok, prevC = k, src[off]
		prevStart, prevEnd = off, e
		off = e
	}
	flush()
	if depth != 0 {
		return false
	}

	ps := pySkel{src: src, lines: lines, comments: comments, cuts: out.pycuts[:0], bodies: out.bodies[:0]}
	next := len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		if ps.holdsDefs(i) {
			next = i
		}
		lines[i].nextDef = next
	}
	ps.block(0, len(lines), pyModule, false, -1)
	out.bodies = ps.bodies

	// A comment on a line of its own goes whole, with the line, unless a
	// block may end after it (the next statement is indented less than
	// the one before: the grammar makes such a comment the end of the
	// block, and of the definition).
	for i := range pieces {
		p := &pieces[i]
		if !p.fix || !lineStartsAt(src, p.a-1) || p.b >= len(src) || src[p.b] != '\n' {
			continue
		}
		n := sort.Search(len(lines), func(k int) bool { return lines[k].start > p.a })
		if n == len(lines) || n > 0 && lines[n].indent < lines[n-1].indent {
			continue
		}
		ls := p.a - 1
		for ls > 0 && src[ls-1] != '\n' {
			ls--
		}
		p.a, p.b, p.fix = ls, p.b+1, false
	}

	defer func() { out.pylines, out.pieces, out.pycuts = lines[:0], pieces[:0], ps.cuts[:0] }() // reused by the next file
	s := skeleton{src: src, out: out}
	pi := 0
	emit := func(upTo int) { // the pieces before upTo
		for ; pi < len(pieces) && pieces[pi].a < upTo; pi++ {
			if p := pieces[pi]; p.b > p.a && p.a >= s.from {
				s.cut(p.a, p.b)
				if p.fix {
					s.out.fixes = append(s.out.fixes, rangeFix{at: uint32(p.a), endByte: uint32(p.b), end: s.fromPt})
				}
			}
		}
	}
	for _, c := range ps.cuts {
		emit(c.a)
		for pi < len(pieces) && pieces[pi].a < c.b {
			pi++
		}
		if c.a < s.from {
			continue // inside what went before
		}
		s.cut(c.a, c.b)
		if c.fix {
			s.out.fixes = append(s.out.fixes, rangeFix{at: uint32(c.a), endByte: uint32(c.b), end: s.fromPt})
		}
	}
	emit(len(src))
	if s.cuts == 0 {
		return false
	}
	s.cut(len(src), len(src))
	return true
}

// pyPlainPunct: the operators that the loop of pythonSkeleton takes as the
// lexer would, one byte each (lastPunc is the byte); the others (brackets,
// ';', '\\', '#', quotes) go through the lexer. ("->" is one token to
// the lexer: no line of valid Python ends with it, nor puts '[' after it
// where the two readings differ.)
var pyPlainPunct = func() (t [256]bool) {
	for _, c := range []byte(".,=+-*/%<>!&|^~@:") {
		t[c] = true
	}
	return t
}()

// pyWord returns what the word w is to Python's skeleton: a keyword
// (pyKw), one that makes a statement alone (pyStmt: return, pass, None…),
// one after which a '[' opens a list, not a subscript (pyOperand).
func pyWord(w []byte) uint8 {
	if len(w) < 2 || len(w) > 8 {
		return 0
	}
	for h := pyWordHash(w); ; h = (h + 1) & (len(pyWords) - 1) {
		e := &pyWords[h]
		if e.w == "" {
			return 0
		}
		if e.w == string(w) {
			return e.flags
		}
	}
}

const (
	pyKw uint8 = 1 << iota
	pyStmt
	pyOperand
)

func pyWordHash(w []byte) int {
	return (int(w[0])*7 ^ int(w[len(w)-1])*3 ^ int(w[1]) ^ len(w)<<4) & 255
}

// pyWords: the keywords by pyWordHash, open addressing.
var pyWords = func() (t [256]struct {
	w     string
	flags uint8
}) {
	add := func(list string, f uint8) {
		for _, w := range strings.Fields(list) {
			h := pyWordHash([]byte(w))
			for t[h].w != "" && t[h].w != w {
				h = (h + 1) & 255
			}
			t[h].w = w
			t[h].flags |= f
		}
	}
	add("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case type print exec", pyKw)
	add("return raise pass break continue yield None True False", pyStmt)
	add("return yield in not and or if else elif while for assert del print await lambda is import from as with except raise", pyOperand)
	return t
}()

// pyAlone reports whether the token w makes a Python statement alone.
func pyAlone(w []byte) bool {
	if len(w) == 0 {
		return false
	}
	switch c := w[0]; {
	case c == '"' || c == '\'' || c >= '0' && c <= '9':
		return true
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
		return pyWord(w)&(pyKw|pyStmt) != pyKw
	}
	return false
}

// pyLine is a logical line of pythonSkeleton.
type pyLine struct {
	start, end, indent int
	first, second      []byte // the first two tokens (of src: nothing is copied)
	colon              bool
	semi               bool // a ';' outside brackets: more than one statement
	nextDef            int  // the first line from this one on that holds definitions
	// alone: the first token outside brackets that makes a statement by
	// itself (a name, a number, return…), or [-1, -1]
	alone [2]int
}

// piece is text the skeleton leaves out: [a, b), a comment's (fix: a
// definition that ends with it gets its end back) or a string's.
type piece struct {
	a, b int
	fix  bool
}

func indexNL(b []byte) bool {
	for _, c := range b {
		if c == '\n' {
			return true
		}
	}
	return false
}

// Kinds of the blocks pySkel reads: what their statements can define
// besides nested classes and functions.
const (
	pyModule = iota // assignments to a name
	pyClass         // assignments to a name
	pyDef           // nothing
	pyCtl           // the block of an if, for, try…: nothing
)

// pySkel chooses what pythonSkeleton leaves out of the statements: every
// statement that defines nothing (no def, class or decorator in it, nor an
// assignment to a name in a module's or a class's block) goes, but a
// block keeps one token of its last statement when nothing else stays or
// when its end is that of a definition (a rangeFix gives that end back).
type pySkel struct {
	src      []byte
	lines    []pyLine
	comments [][2]int
	cuts     []piece  // in order; fix: the cut's end is a definition's
	bodies   [][2]int // the bodies of functions that define nothing
}

func (p *pySkel) isDef(i int) bool {
	l := &p.lines[i]
	return string(l.first) == "def" || string(l.first) == "async" && string(l.second) == "def"
}

func (p *pySkel) holdsDefs(i int) bool {
	switch string(p.lines[i].first) { // no copy, unlike a variable
	case "def", "class", "@":
		return true
	case "async":
		return string(p.lines[i].second) == "def"
	}
	return false
}

// pyClause: the keywords that continue the statement before them.
func pyClause(w []byte) bool {
	switch string(w) {
	case "else", "elif", "except", "finally":
		return true
	}
	return false
}

// group returns the end of the statement starting at line i of a block
// ending at line j: its lines, those indented deeper, the clauses that
// continue it (else, except…); decorators take the definition after them.
func (p *pySkel) group(i, j int) int {
	in := p.lines[i].indent
	deco := string(p.lines[i].first) == "@"
	k := i + 1
	for k < j {
		l := &p.lines[k]
		if l.indent > in || l.indent == in && (pyClause(l.first) || deco) {
			if l.indent == in && deco {
				deco = string(l.first) == "@"
			}
			k++
			continue
		}
		break
	}
	return k
}

// block reads the statements of lines [i, j), a block of kind kind; tail:
// its end is that of a definition whose block is indented at owner.
func (p *pySkel) block(i, j, kind int, tail bool, owner int) {
	kept := false
	n0 := len(p.cuts) // the cuts of this block's statements start here
	for g := i; g < j; {
		e := p.group(g, j)
		last := e == j
		defs := p.lines[g].nextDef < e
		l := &p.lines[g]
		switch {
		case defs:
			kept = true
			p.statement(g, e, tail && last, owner)
		case (kind == pyModule || kind == pyClass) && (l.semi || pyAssigns(l)):
			kept = true // it may define a name
		case last && (tail || !kept && kind != pyModule):
			join := -1
			if !kept && kind != pyModule && i > 0 && p.lines[i-1].colon {
				join = n0 // nothing of the block stays before it
			}
			p.reduce(g, e, tail, owner, join, i)
		case last:
			p.cut(l.start, p.lines[e-1].end, false)
		default:
			p.cut(l.start, p.lines[e].start, false)
		}
		g = e
	}
}

// pyAssigns reports whether the line may assign to a name (`x = …`,
// `x: T = …`; soft keywords are names too: `match = …`).
func pyAssigns(l *pyLine) bool {
	if len(l.first) == 0 || !isIdentByte(l.first[0]) || l.first[0] >= '0' && l.first[0] <= '9' {
		return false
	}
	switch string(l.second) {
	case "=":
		return true
	case ":":
		switch string(l.first) {
		case "match", "case", "type", "print", "exec":
			return true
		default:
			return pyWord(l.first)&pyKw == 0
		}
	}
	return false
}

// statement reads a statement that holds definitions, lines [i, e).
func (p *pySkel) statement(i, e int, tail bool, owner int) {
	h := i
	for h < e && string(p.lines[h].first) == "@" {
		h++
	}
	if h == e {
		return
	}
	in := p.lines[h].indent
	switch {
	case p.isDef(h) || string(p.lines[h].first) == "class":
		kind := pyDef
		if string(p.lines[h].first) == "class" {
			kind = pyClass
		}
		// The decorators go: the definition's node starts at its def or
		// class (decorated_definition, which holds them, is no
		// definition), and an expression defines nothing.
		p.cut(p.lines[i].start, p.lines[h].start, false)
		if h+1 < e {
			bi := p.lines[h+1].indent
			p.block(h+1, e, kind, true, bi)
			if kind == pyDef && p.lines[h+1].nextDef >= e {
				p.body(h+1, e, bi)
			}
		}
	case string(p.lines[h].first) == "match":
		// its cases are not statements; it stays whole
	default:
		// The clauses (if, elif, else…), each with its block.
		for c := h; c < e; {
			d := c + 1
			for d < e && p.lines[d].indent > in {
				d++
			}
			if d > c+1 {
				p.block(c+1, d, pyCtl, tail && d == e, owner)
			}
			c = d
		}
	}
}

// body records, for the body fast path (bodySpans), the body of a
// function that defines nothing, lines [i, e) indented at bi, past its
// first line: past the first token when that makes a statement alone,
// past the first line of a block when the first line opens one (and so
// on, but not into a try, which needs its except); none when the first
// line is all of the body, or ends with a colon.
func (p *pySkel) body(i, e, bi int) {
	k := i
	for k < e && p.lines[k].colon && string(p.lines[k].first) != "try" && k+1 < e && p.lines[k+1].indent > p.lines[k].indent {
		k++
	}
	if p.lines[k].colon || k+1 == e {
		return
	}
	l := &p.lines[k]
	from := l.end
	if pyAlone(l.first) {
		from = l.start + len(l.first)
	}
	if end := p.trailing(p.lines[e-1].end, bi); end > from {
		p.bodies = append(p.bodies, [2]int{from, end})
	}
}

// reduce leaves one token of the statement of lines [i, e): a name, a
// number or a statement word (return, pass…), or a string; when its end
// is a definition's (fix), the comments after it that the definition's
// block takes go too and the cut gives that end back. join >= 0: nothing
// of the statement's block stays before it, and the block's header (the
// line before the block) ends with its colon: the token goes on the
// header's line (`def f():return`), in one cut from the colon instead of
// the cuts of the statements before it (p.cuts[join:], the last ones
// made; the block's lines start at bi), which spares the parser the
// block's newline, indent and dedent.
func (p *pySkel) reduce(i, e int, fix bool, owner int, join, bi int) {
	tok := [2]int{-1, -1}
	for k := i; k < e && tok[0] < 0; k++ {
		tok = p.lines[k].alone
	}
	if tok[0] < 0 {
		for k := i; k < e; k++ {
			if l := &p.lines[k]; pyAlone(l.first) {
				tok = [2]int{l.start, l.start + len(l.first)}
				break
			}
		}
	}
	if tok[0] < 0 {
		return // it stays whole
	}
	end := p.lines[e-1].end
	if fix {
		end = p.trailing(end, owner)
	}
	from := p.lines[i].start
	if join >= 0 {
		p.cuts = p.cuts[:join]
		from = p.lines[bi-1].end
	}
	p.cut(from, tok[0], false)
	p.cut(tok[1], end, fix)
}

// trailing returns where a definition whose block is indented at owner
// and whose last statement ends at end ends: comments after that
// statement, on its line or on lines of their own indented as deep as the
// block or deeper, are part of it (the grammar's scanner closes a block
// before a comment indented less, and so each block after it).
func (p *pySkel) trailing(end, owner int) int {
	src, comments := p.src, p.comments
	ci := sort.Search(len(comments), func(k int) bool { return comments[k][0] >= end })
	for ; ci < len(comments); ci++ {
		c := comments[ci]
		gap := src[end : c[0]-1]
		if indexNL(gap) {
			ls := c[0] - 1
			for ls > 0 && src[ls-1] != '\n' {
				ls--
			}
			if c[0]-1-ls < owner || len(bytes.TrimSpace(gap)) > 0 {
				break
			}
		}
		end = c[1]
	}
	return end
}

func (p *pySkel) cut(a, b int, fix bool) {
	if b > a {
		p.cuts = append(p.cuts, piece{a, b, fix})
	}
}
