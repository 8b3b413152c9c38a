package codeindex

import (
	"sort"

	sitter "github.com/smacker/go-tree-sitter"
)

// capIDs sets each of want's ids to the capture id of its name among l's
// definitions captures (loaded), as the walk numbers them; false when l's
// captures are not exactly want's names (the query changed under a
// reader that stands in for it: luaDefs, rustDefs, csDefs).
func capIDs(l *Language, want map[string]*uint16) bool {
	if len(l.defNames) != len(want) {
		return false
	}
	for i, n := range l.defNames {
		p := want[n]
		if p == nil {
			return false
		}
		*p = uint16(i)
	}
	return true
}

// skelCap is a capture in a skeleton's bytes.
type skelCap struct {
	match      uint32
	pattern    uint16
	index      uint16
	start, end int
}

// skelCaps are the captures a reader of a skeleton (rustDefs, csDefs)
// makes of its text src, as the walk of the skeleton's parse would.
type skelCaps struct {
	src       []byte
	name      uint16 // the capture id of @name
	match     uint32
	caps      []skelCap
	lines     []int // offsets where the lines of src start, on demand
	linesDone bool
}

// capture adds a match of pattern with its definition (or scope) capture
// def over [start, end) and its name over [ns, ne); it returns the index
// of the first, whose end the caller may set later.
func (r *skelCaps) capture(pattern int, def uint16, start, end, ns, ne int) int {
	i := len(r.caps)
	r.caps = append(r.caps, skelCap{r.match, uint16(pattern), def, start, end}, skelCap{r.match, uint16(pattern), r.name, ns, ne})
	r.match++
	return i
}

// toFile returns the captures in the walk's terms, mapped from the
// skeleton (sk) to the file as parseDefs maps a parse's (collect, given
// sk, then fixes the definitions' ends and starts).
func (r *skelCaps) toFile(buf []capture, sk *skelOut) []capture {
	for _, c := range r.caps {
		rng := sitter.Range{StartByte: uint32(c.start), EndByte: uint32(c.end), StartPoint: r.point(c.start), EndPoint: r.point(c.end)}
		sk.toFile(&rng)
		buf = append(buf, capture{match: c.match, pattern: c.pattern, index: c.index, rng: rng})
	}
	return buf
}

// point returns the row and column of off in src.
func (r *skelCaps) point(off int) sitter.Point {
	if !r.linesDone {
		r.lines = append(r.lines[:0], 0)
		for i, c := range r.src {
			if c == '\n' {
				r.lines = append(r.lines, i+1)
			}
		}
		r.linesDone = true
	}
	row := sort.Search(len(r.lines), func(i int) bool { return r.lines[i] > off }) - 1
	return sitter.Point{Row: uint32(row), Column: uint32(off - r.lines[row])}
}

// tLifetime is a token kind of rustReader's alone (a lifetime, 'a); the
// readers' other kinds are the lexer's.
const tLifetime = tBad + 1

// tokReader is what the readers of a skeleton that stand in for a parse
// (rustReader, csReader, jsReader) share: the captures they make, the current
// token, which their own next reads, and where they stopped.
type tokReader struct {
	skelCaps     // src, the skeleton, and the captures made of it
	pos, end int // the current token
	kind     tokKind
	prevEnd  int // the end of the token before it
	fail     bool
	failAt   int // where the reader stopped (for tests)
	depth    int // nesting of what it reads, up to maxDepth
	maxDepth int
}

// after returns the offset of what follows the current token and its
// blanks (a reader's next starts there; its peeks look there).
func (r *tokReader) after() int {
	src, i := r.src, r.end
	for i < len(src) && (src[i] == ' ' || src[i] == '\n' || src[i] == '\t' || src[i] == '\r') {
		i++
	}
	return i
}

// begin starts the next token past the current one and its blanks, at
// pos; at the end of the text it makes the token EOF and returns false.
func (r *tokReader) begin() bool {
	r.prevEnd = r.end
	r.pos = r.after()
	if r.pos >= len(r.src) {
		r.kind, r.end = tEOF, r.pos
		return false
	}
	return true
}

// peekIdent reports whether an identifier's first byte follows the
// current token (past blanks).
func (r *tokReader) peekIdent() bool {
	i := r.after()
	return i < len(r.src) && (r.src[i] == '_' || r.src[i] >= 'a' && r.src[i] <= 'z' || r.src[i] >= 'A' && r.src[i] <= 'Z')
}

// bad fails the reading and ends it.
func (r *tokReader) bad() {
	if !r.fail {
		r.failAt = r.pos
	}
	r.fail = true
	r.kind, r.pos, r.end = tEOF, len(r.src), len(r.src)
}

// is reports whether the token is the punctuation p.
func (r *tokReader) is(p byte) bool {
	return r.kind == tPunct && r.end-r.pos == 1 && r.src[r.pos] == p
}

// word reports whether the token is the identifier or keyword w.
func (r *tokReader) word(w string) bool {
	return r.kind == tIdent && string(r.src[r.pos:r.end]) == w
}

// enter bounds the nesting of what the reader reads.
func (r *tokReader) enter() bool {
	if r.depth++; r.depth > r.maxDepth {
		r.bad()
		return false
	}
	return true
}

func (r *tokReader) leave() { r.depth-- }
