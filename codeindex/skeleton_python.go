package codeindex

import (
	"bytes"
	"sort"
)

// pythonSkeleton makes out the text of a Python file for a
// definitions-only parse: it leaves out the text of comments and of long
// strings (docstrings, mostly: their quotes stay) and, of each function
// whose body defines nothing (no def, class or decorator in it), every
// line of the body after the first (the parser sees `def f(x):\n    y = 1`
// for a longer body; a first line that opens a block keeps the body
// whole). The definition's end comes back through a fix (rangeFix), so
// ranges are those of a full parse. Lines are logical lines: brackets,
// strings and backslashes continue them.
func pythonSkeleton(out *skelOut, src []byte) bool {
	out.reset()
	lx := lexer{sx: pythonSyntax, src: src}
	type line = pyLine
	var (
		lines    = out.pylines[:0]
		comments [][2]int         // comments' text
		pieces   = out.pieces[:0] // text to leave out: comments and long strings
		cur      = line{start: -1}
		depth    int
		cont     bool // a backslash continues the line
		prevEnd  int
		lastPunc byte
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
		} else if cur.second == nil {
			cur.second = src[off:e]
		}
		lastPunc = 0
		if k == tPunct {
			switch c := src[off]; c {
			case '(', '[', '{':
				depth++
				o := off
				if c == '[' && (prevTok == tIdent && !cur.operandKw || prevTok == tString || prevTok == tNumber || prevTok == tPunct && (prevC == ')' || prevC == ']' || prevC == '}')) ||
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
			default:
				lastPunc = c
			}
		}
		if k == tIdent {
			cur.operandKw = pyOperandWords[string(src[off:e])]
		}
		prevTok, prevC = k, src[off]
		prevEnd = e
		off = e
	}
	flush()
	if depth != 0 {
		return false
	}

	isDef := func(l *line) bool {
		return string(l.first) == "def" || string(l.first) == "async" && string(l.second) == "def"
	}
	holdsDefs := func(l *line) bool { return isDef(l) || string(l.first) == "class" || string(l.first) == "@" }
	var bodies [][2]int
	for i := 0; i < len(lines); i++ {
		if !isDef(&lines[i]) {
			continue
		}
		j := i + 1
		for j < len(lines) && lines[j].indent > lines[i].indent {
			j++
		}
		if j-i < 3 { // no body on lines of its own, or one line
			continue
		}
		body := lines[i+1 : j]
		nested := false
		for k := range body {
			nested = nested || holdsDefs(&body[k])
		}
		if nested {
			continue // nested definitions are read line by line
		}
		// A first line that opens a block keeps the first line of that
		// block, and so on (the parser sees `if x:\n        y()`); a
		// try needs its except, so a body with one in that chain stays.
		k := 0
		for k < len(body) && body[k].colon && string(body[k].first) != "try" && k+1 < len(body) && body[k+1].indent > body[k].indent {
			k++
		}
		if body[k].colon || k+1 == len(body) {
			continue
		}
		// Comments after the last statement, on its line or on lines of
		// their own indented deeper than the def, are part of the body.
		end := body[len(body)-1].end
		ci := sort.Search(len(comments), func(k int) bool { return comments[k][0] >= end })
		for ; ci < len(comments); ci++ {
			c := comments[ci]
			gap := src[end : c[0]-1]
			if indexNL(gap) {
				ls := c[0] - 1
				for ls > 0 && src[ls-1] != '\n' {
					ls--
				}
				if c[0]-1-ls <= lines[i].indent || len(bytes.TrimSpace(gap)) > 0 {
					break
				}
			}
			end = c[1]
		}
		// Of that last line, the first token is enough when it makes a
		// statement alone (a name, a literal, return, pass…): the
		// parser sees `def f(x):\n    self`.
		from := body[k].end
		if l := body[k]; pyAlone(l.first) {
			from = l.start + len(l.first)
		}
		bodies = append(bodies, [2]int{from, end})
		i = j - 1
	}

	out.bodies = append(out.bodies, bodies...)
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

	// Imports at the module's level go (the parser sees a blank line): an
	// import defines nothing the index keeps, and at indentation 0 it is
	// never a block's only statement. A line with a ';' may hold more
	// than the import, and stays.
	imports := len(pieces)
	for i := range lines {
		l := &lines[i]
		if l.indent == 0 && (string(l.first) == "import" || string(l.first) == "from") && bytes.IndexByte(src[l.start:l.end], ';') < 0 {
			pieces = append(pieces, piece{l.start, l.end, false})
		}
	}
	if len(pieces) > imports {
		sort.SliceStable(pieces, func(a, b int) bool { return pieces[a].a < pieces[b].a })
		// What an import's line holds (a comment) goes with it.
		kept, end := pieces[:0], 0
		for _, p := range pieces {
			if p.b <= end {
				continue
			}
			p.a = max(p.a, end)
			kept = append(kept, p)
			end = p.b
		}
		pieces = kept
	}

	defer func() { out.pylines, out.pieces = lines[:0], pieces[:0] }() // reused by the next file
	s := skeleton{src: src, out: out}
	pi := 0
	emit := func(upTo int) { // the pieces before upTo
		for ; pi < len(pieces) && pieces[pi].a < upTo; pi++ {
			if p := pieces[pi]; p.b > p.a {
				s.cut(p.a, p.b)
				if p.fix {
					s.out.fixes = append(s.out.fixes, rangeFix{at: uint32(p.a), endByte: uint32(p.b), end: s.fromPt})
				}
			}
		}
	}
	for _, b := range bodies {
		emit(b[0])
		for pi < len(pieces) && pieces[pi].a < b[1] {
			pi++
		}
		s.cut(b[0], b[1])
		s.out.fixes = append(s.out.fixes, rangeFix{at: uint32(b[0]), endByte: uint32(b[1]), end: s.fromPt})
	}
	emit(len(src))
	if s.cuts == 0 {
		return false
	}
	s.cut(len(src), len(src))
	return true
}

// pyOperandWords are the keywords after which a '[' opens a list, not a
// subscript.
var pyOperandWords = words("return yield in not and or if else elif while for assert del print await lambda is import from as with except raise")

// pyAlone reports whether the token w makes a Python statement alone.
func pyAlone(w []byte) bool {
	if len(w) == 0 {
		return false
	}
	switch c := w[0]; {
	case c == '"' || c == '\'' || c >= '0' && c <= '9':
		return true
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
		return !pyKeywords[string(w)] || pyStatements[string(w)]
	}
	return false
}

var (
	pyKeywords   = words("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case type print exec")
	pyStatements = words("return raise pass break continue yield None True False")
)

// pyLine is a logical line of pythonSkeleton.
type pyLine struct {
	start, end, indent int
	first, second      []byte // the first two tokens (of src: nothing is copied)
	colon              bool
	operandKw          bool // the last word is one after which '[' opens a list
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
