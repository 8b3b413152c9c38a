package codeindex

// pyDefs finds the definitions of a Python file in a build without
// tree-sitter, as rustDefs and csDefs do for theirs: it reads the file's
// skeleton (pythonSkeleton: bodies that define nothing reduced to one
// token, on their header's line when nothing else of the block stays,
// decorators, comments' text and brackets' contents left out), whose lines
// are few and plain, and sets x.caps to the captures that the walk of the
// skeleton's parse finds, mapped to the file as parseDefs maps them. It
// reports false, leaving the file to the parse, for what it does not read
// as the grammar does: a tab, a form feed or a carriage return in the
// text, a backslash outside strings, an f-string, a ';' after a statement
// that may assign, a decorator the skeleton kept, a lambda or a walrus in a
// compound statement's header, a line indented where no block opens, a
// statement starting with one of the soft keywords the grammar reads
// otherwise (match, case, type, print, exec), a class whose body is on its
// header's line and is more than one token.
//
// What the patterns of queries/python.scm see of tree-sitter-python's
// nodes: a function_definition or class_definition runs from its def,
// async or class to the end of its block; an indented block ends with its
// last statement, or with the comments after it that the grammar's
// scanner keeps in it (those, first in their run, indented as deep as the
// block or deeper, before the line that closes it), and a block on its
// header's line ends with the line's last token or comment; an assignment
// to a name runs from the name to the end of its value (its line's
// trailing comment is the block's, not the assignment's).
func pyDefs(x *extractor, l *Language, src []byte) bool {
	if x.pyIDs == nil {
		ids, ok := pyCapIDs(l)
		if !ok {
			return false
		}
		x.pyIDs = &ids
	}
	if !x.buildSkeleton(l, src) {
		return false
	}
	r := &x.py
	*r = pyReader{skelCaps: skelCaps{src: x.sk.buf, name: x.pyIDs.name, caps: r.caps[:0], lines: r.lines[:0]}, ids: *x.pyIDs, blocks: r.blocks[:0], notes: r.notes[:0]}
	if !r.read() {
		return false
	}
	x.caps = r.toFile(x.caps[:0], &x.sk) // collect(l, src, &x.sk) fixes the ends
	return true
}

// pyIDs are the capture ids of queries/python.scm's definitions patterns.
type pyIDs struct {
	name, class, function, variable, field uint16
}

func pyCapIDs(l *Language) (pyIDs, bool) {
	var ids pyIDs
	want := map[string]*uint16{
		"name": &ids.name, "definition.class": &ids.class, "definition.function": &ids.function,
		"definition.variable": &ids.variable, "definition.field": &ids.field,
	}
	return ids, capIDs(l, want)
}

// The patterns of queries/python.scm, in order.
const (
	pyPatClass = iota
	pyPatFunction
	pyPatVariable
	pyPatField
)

// pyReader reads a Python skeleton line by line (pyDefs).
type pyReader struct {
	skelCaps
	ids    pyIDs
	blocks []pyBlock // the open blocks, the module first
	notes  []pyNote  // the comment lines since the last statement
	fail   bool
	failAt int
}

// pyBlock is an open indented block.
type pyBlock struct {
	indent int
	kind   int // pyModule, pyClass, pyDef, pyCtl
	def    int // the capture of its class or def (whose end it sets), or -1
	end    int // the end of its last statement or comment so far
}

// pyNote is a line that holds a comment only.
type pyNote struct{ indent, end int }

// pyLn is a logical line of the skeleton.
type pyLn struct {
	start, indent int
	toks          [3][2]int // its first tokens, [-1, -1] when fewer
	ntoks         int
	colon         int    // the first ':' outside brackets (not :=), or -1
	afterColon    int    // tokens after it
	lastEnd       int    // the end of its last token
	last          [2]int // its last token
	comment       int    // the end of its trailing comment, or -1
	semi, lambda  bool
}

func (r *pyReader) bad(at int) bool {
	if !r.fail {
		r.fail, r.failAt = true, at
	}
	return false
}

func (r *pyReader) tok(ln *pyLn, i int) string {
	if i >= ln.ntoks {
		return ""
	}
	return string(r.src[ln.toks[i][0]:ln.toks[i][1]])
}

// read reads the skeleton; false when it cannot.
func (r *pyReader) read() bool {
	s := r.src
	if len(s) > 0 && s[0] >= 0x80 {
		return r.bad(0) // a byte order mark
	}
	r.blocks = append(r.blocks, pyBlock{kind: pyModule, def: -1})
	open := -1 // a header ended with its colon: the kind of the block that opens next
	openDef := -1
	p := 0
	for {
		// The indentation of the next line; comment lines are noted.
		ls := p
		for p < len(s) && s[p] == ' ' {
			p++
		}
		if p < len(s) {
			switch s[p] {
			case '\n':
				p++
				continue
			case '#':
				e := p
				for e < len(s) && s[e] != '\n' {
					e++
				}
				r.notes = append(r.notes, pyNote{p - ls, e})
				p = e
				continue
			case '\t', '\f', '\r', '\v':
				return r.bad(p)
			}
		}
		ind := p - ls
		if p >= len(s) {
			ind = 0
		}
		if open >= 0 {
			if p >= len(s) || ind <= r.blocks[len(r.blocks)-1].indent {
				return r.bad(p) // a header without its block
			}
			r.blocks = append(r.blocks, pyBlock{indent: ind, kind: open, def: openDef, end: -1})
			open, openDef = -1, -1
			r.notes = r.notes[:0]
		} else {
			ci := 0
			for len(r.blocks) > 1 && ind < r.blocks[len(r.blocks)-1].indent {
				top := &r.blocks[len(r.blocks)-1]
				if ci < len(r.notes) && r.notes[ci].indent >= top.indent {
					top.end = r.notes[ci].end // the scanner keeps it in the block
					ci++
					continue
				}
				r.close()
			}
			r.notes = r.notes[:0]
			if ind != r.blocks[len(r.blocks)-1].indent {
				return r.bad(p) // an indent no block opens, or a dedent to no block's
			}
		}
		if p >= len(s) {
			break
		}
		var ln pyLn
		next, ok := r.line(p, &ln)
		if !ok {
			return false
		}
		ln.indent = ind
		if open, openDef, ok = r.statement(&ln); !ok {
			return false
		}
		p = next
	}
	for len(r.blocks) > 1 {
		r.close()
	}
	return !r.fail
}

// close closes the innermost block: its end is its definition's, and the
// last statement's of the block around it.
func (r *pyReader) close() {
	b := r.blocks[len(r.blocks)-1]
	r.blocks = r.blocks[:len(r.blocks)-1]
	if b.def >= 0 {
		r.caps[b.def].end = b.end
	}
	if out := &r.blocks[len(r.blocks)-1]; b.end > out.end {
		out.end = b.end
	}
}

// statement reads the logical line ln in the innermost block; it returns
// the kind of the block that ln's header opens on the next lines (-1
// none) and the capture of its definition.
func (r *pyReader) statement(ln *pyLn) (open, def int, ok bool) {
	top := &r.blocks[len(r.blocks)-1]
	if !r.ends(ln) {
		return -1, -1, r.bad(ln.start)
	}
	end := ln.lastEnd
	if ln.comment >= 0 {
		end = ln.comment
	}
	first := r.tok(ln, 0)
	kind, nameTok := -1, -1
	switch first {
	case "def":
		kind, nameTok = pyDef, 1
	case "async":
		switch r.tok(ln, 1) {
		case "def":
			kind, nameTok = pyDef, 2
		case "for", "with":
			kind = pyCtl
		default:
			return -1, -1, r.bad(ln.start)
		}
	case "class":
		kind, nameTok = pyClass, 1
	case "if", "elif", "else", "for", "while", "try", "except", "finally", "with":
		kind = pyCtl
	case "match", "case", "type", "print", "exec", "@":
		return -1, -1, r.bad(ln.start)
	}
	if kind < 0 {
		// A simple statement: an assignment to a name defines it in a
		// module's block or a class's.
		if ln.semi || ln.colon == ln.last[0] {
			return -1, -1, r.bad(ln.start) // statements after it may assign too; `x:`
		}
		top.end = end
		if ln.ntoks >= 3 && (top.kind == pyModule || top.kind == pyClass) && pyName(r.src[ln.toks[0][0]:ln.toks[0][1]]) {
			if op := r.tok(ln, 1); op == "=" || op == ":" {
				pat, id := pyPatVariable, r.ids.variable
				if top.kind == pyClass {
					pat, id = pyPatField, r.ids.field
				}
				r.capture(pat, id, ln.toks[0][0], ln.lastEnd, ln.toks[0][0], ln.toks[0][1])
			}
		}
		return -1, -1, true
	}
	if ln.colon < 0 || ln.lambda {
		return -1, -1, r.bad(ln.start)
	}
	def = -1
	if nameTok >= 0 {
		if ln.ntoks <= nameTok || !pyName(r.src[ln.toks[nameTok][0]:ln.toks[nameTok][1]]) {
			return -1, -1, r.bad(ln.start)
		}
		pat, id := pyPatFunction, r.ids.function
		if kind == pyClass {
			pat, id = pyPatClass, r.ids.class
		}
		t := ln.toks[nameTok]
		def = r.capture(pat, id, ln.start, end, t[0], t[1])
	}
	if ln.afterColon > 0 {
		// The block is on the header's line.
		if kind == pyClass && (ln.afterColon > 1 || ln.semi) {
			return -1, -1, r.bad(ln.start) // it may assign
		}
		top.end = end
		return -1, -1, true
	}
	top.end = end // for now: the block's end will be later
	return kind, def, true
}

// ends reports whether ln's last token ends a statement (or a header):
// the grammar's scanner makes a newline after an operator or a keyword
// that wants more (`a %`, `b if`) a blank, and the line goes on.
func (r *pyReader) ends(ln *pyLn) bool {
	t := r.src[ln.last[0]:ln.last[1]]
	switch c := t[0]; {
	case c == '"' || c == '\'' || c >= '0' && c <= '9':
		return true
	case isIdentByte(c):
		if len(t) >= 2 && (t[len(t)-1] == '"' || t[len(t)-1] == '\'') {
			return true // a string with its prefix
		}
		f := pyWord(t)
		return f&pyKw == 0 || f&pyStmt != 0
	case c == ')' || c == ']' || c == '}' || c == ',':
		return true
	case c == ':':
		return ln.colon == ln.last[0] && ln.afterColon == 0
	case c == '.':
		return ln.last[0] >= 2 && string(r.src[ln.last[0]-2:ln.last[1]]) == "..."
	}
	return false
}

// pyName reports whether w is a name that can be assigned (not a keyword).
func pyName(w []byte) bool {
	if len(w) == 0 || !isIdentByte(w[0]) || w[0] >= '0' && w[0] <= '9' {
		return false
	}
	return pyWord(w)&pyKw == 0
}

// line reads the logical line starting at p into ln; it returns where the
// next line starts.
func (r *pyReader) line(p int, ln *pyLn) (int, bool) {
	s := r.src
	*ln = pyLn{start: p, colon: -1, comment: -1, toks: [3][2]int{{-1, -1}, {-1, -1}, {-1, -1}}}
	depth := 0
	add := func(a, b int) {
		if ln.ntoks < len(ln.toks) {
			ln.toks[ln.ntoks] = [2]int{a, b}
		}
		ln.ntoks++
		if ln.colon >= 0 {
			ln.afterColon++
		}
		ln.lastEnd, ln.last = b, [2]int{a, b}
	}
	for p < len(s) {
		c := s[p]
		switch {
		case c == ' ':
			p++
		case c == '\n':
			if depth == 0 {
				return p + 1, true
			}
			p++
		case c == '#':
			e := p
			for e < len(s) && s[e] != '\n' {
				e++
			}
			if depth == 0 {
				ln.comment = e
			}
			p = e
		case c == '\t' || c == '\f' || c == '\r' || c == '\v' || c == '\\':
			return 0, r.bad(p)
		case isIdentByte(c) && (c < '0' || c > '9'):
			e := p + 1
			for e < len(s) && isIdentByte(s[e]) {
				e++
			}
			if e < len(s) && (s[e] == '"' || s[e] == '\'') {
				// A string's prefix.
				if e-p > 2 || bytesHasAny(s[p:e], "fFtT") || !bytesAll(s[p:e], "rRbBuU") {
					return 0, r.bad(p)
				}
				end, ok := r.str(e)
				if !ok {
					return 0, false
				}
				add(p, end)
				p = end
				continue
			}
			if depth == 0 && string(s[p:e]) == "lambda" && ln.colon < 0 {
				ln.lambda = true
			}
			add(p, e)
			p = e
		case c >= '0' && c <= '9' || c == '.' && p+1 < len(s) && s[p+1] >= '0' && s[p+1] <= '9':
			e := p + 1
			for e < len(s) && (isIdentByte(s[e]) || s[e] == '.' || (s[e] == '+' || s[e] == '-') && (s[e-1] == 'e' || s[e-1] == 'E')) {
				e++
			}
			add(p, e)
			p = e
		case c == '"' || c == '\'':
			end, ok := r.str(p)
			if !ok {
				return 0, false
			}
			add(p, end)
			p = end
		default:
			switch c {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth--; depth < 0 {
					return 0, r.bad(p)
				}
			case ';':
				if depth == 0 {
					ln.semi = true
				}
			case '=':
				if p+1 < len(s) && s[p+1] == '=' {
					add(p, p+2) // ==, not an assignment's =
					p += 2
					continue
				}
			case ':':
				if p+1 < len(s) && s[p+1] == '=' {
					if depth == 0 {
						return 0, r.bad(p) // a walrus outside brackets
					}
					add(p, p+2)
					p += 2
					continue
				}
				if depth == 0 && ln.colon < 0 {
					add(p, p+1)
					ln.colon = p
					ln.afterColon = 0
					p++
					continue
				}
			case '@', '$', '?', '`', '!':
				if c != '!' || p+1 >= len(s) || s[p+1] != '=' {
					return 0, r.bad(p)
				}
			}
			add(p, p+1)
			p++
		}
	}
	if depth != 0 {
		return 0, r.bad(p)
	}
	return p, true
}

// str returns the end of the string whose quote is at p.
func (r *pyReader) str(p int) (int, bool) {
	s := r.src
	q := s[p]
	if p+2 < len(s) && s[p+1] == q && s[p+2] == q {
		for i := p + 3; i < len(s); i++ {
			switch {
			case s[i] == '\\':
				i++
			case s[i] == q && i+2 < len(s) && s[i+1] == q && s[i+2] == q:
				return i + 3, true
			case s[i] == '\r':
				return 0, r.bad(i)
			}
		}
		return 0, r.bad(p)
	}
	for i := p + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i + 1, true
		case '\n', '\r':
			return 0, r.bad(i)
		}
	}
	return 0, r.bad(p)
}

func bytesHasAny(b []byte, chars string) bool {
	for _, c := range b {
		for i := 0; i < len(chars); i++ {
			if c == chars[i] {
				return true
			}
		}
	}
	return false
}

func bytesAll(b []byte, chars string) bool {
	for _, c := range b {
		if !bytesHasAny([]byte{c}, chars) {
			return false
		}
	}
	return true
}
