package codeindex

import (
	"bytes"
	"cmp"
	"slices"
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

// bodySpan is a part of a file's text that an edit may change without
// changing its definitions (the body fast path's): [a, c) and what it is.
type bodySpan struct {
	a, c int
	kind uint8
	// indent: of pyBody, the least indentation of the body's lines
	indent int
	// big: of a brace body larger than maxFastBody, what bigBodyOK
	// read of it
	big *bigBodyOf
}

// The kinds of bodySpan.
const (
	braceBody  uint8 = iota // the contents of braces the skeleton leaves out
	comments                // comments the skeleton leaves out
	arrayLit                // an array literal's contents the skeleton leaves out (brackets)
	rubyBody                // a Ruby method's body, from after its signature's line to its `end`
	pyBody                  // a Python function's body the skeleton leaves out (pythonSkeleton)
	pyBrackets              // the contents of Python brackets
	pyString                // the text of a long Python string, inside its quotes
	bigBody                 // (bodyFast) a brace body or array literal larger than maxFastBody that bigBodyOK took
	hashText                // the text of a Ruby or Python comment, after its '#' to the line's end
)

// bodySpans returns the spans of src whose text an edit may change
// without changing the file's definitions, in order, or nil (none, or the
// skeleton cannot read the file): for a brace language, the contents
// [open+1, close) of the braces that the skeleton leaves out whole, the
// comments it leaves out and the array literals it leaves out; for Ruby
// and Python, the method bodies it leaves out, and for Python also the
// contents of brackets and of long strings that it leaves out. A gap
// between the skeleton's pieces counts only when the brace before it and
// the one after it are kept, match, and something other than spaces and
// comments lies between (so that a gap of comments only, inside a class
// body, is not taken for a body).
func bodySpans(l *Language, out *skelOut, src []byte) []bodySpan {
	if l.syn == nil || l.skeleton == nil {
		return nil
	}
	switch l.syn.body {
	case bodyBrackets, bodyRuby, bodyIndent:
	default:
		return nil
	}
	if !l.skeleton(out, src) {
		return nil
	}
	var spans []bodySpan
	switch l.syn.body {
	case bodyRuby:
		// The bodies are read again when an edit lands in one (the
		// text then is the new one): not here.
		for _, b := range out.bodies {
			spans = append(spans, bodySpan{a: b[0], c: b[1], kind: rubyBody})
		}
		// The text of each comment, as the skeleton's reader found them.
		for _, cm := range out.comments {
			h := cm[0]
			if h == 0 || src[h-1] != '#' { // a comment's whole line
				for h < cm[1] && (src[h] == ' ' || src[h] == '\t') {
					h++
				}
				if h == cm[1] || src[h] != '#' {
					continue // (=begin)
				}
				h++
			}
			if le := lineEnd(src, h); le < len(src) && le <= cm[1] {
				spans = append(spans, bodySpan{a: h, c: le, kind: hashText})
			}
		}
		return nested(spans)
	case bodyIndent:
		return pySpans(out, src)
	}
	segs := out.segs
	for i := 0; i+1 < len(segs); i++ {
		n := segs[i+1].c - segs[i].c
		a, c := int(segs[i].o+n), int(segs[i+1].o)
		if a <= 0 || c >= len(src) || c <= a {
			continue
		}
		if commentsOnly(l.syn, src, a, c) {
			spans = append(spans, bodySpan{a: a, c: c, kind: comments})
			continue
		}
		switch {
		case src[a-1] == '{' && src[c] == '}':
			if b, ok := bodyRead(l.syn, src, a, '}'); ok && b == c && hasCode(l.syn, src, a, c) {
				spans = append(spans, bodySpan{a: a, c: c, kind: braceBody})
			}
		case src[a-1] == '[' && src[c] == ']' && c-a >= minLiteral:
			if b, ok := bodyRead(l.syn, src, a, ']'); ok && b == c {
				spans = append(spans, bodySpan{a: a, c: c, kind: arrayLit})
			}
		}
	}
	return spans
}

// openSpans returns the spans of the text of a buffer just opened (the
// caller holds bufMu).
func (ix *Index) openSpans(l *Language, src []byte) []bodySpan {
	if ix.bodyOut == nil {
		ix.bodyOut = new(skelOut)
	}
	return bodySpans(l, ix.bodyOut, src)
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

// openBraceBody reports whether src[a:c], the contents of braces, reads
// as a body the skeleton leaves out but for brackets left open in it
// (openBody): every closing bracket matches one opened in it, at least
// one is open at c, and the text with the open ones closed at its end
// reads as such a body (bodyRead).
func openBraceBody(sx *syntax, src []byte, a, c int) bool {
	if c-a > maxFastBody {
		return false
	}
	lx := lexer{sx: sx, src: src}
	var stack []byte
	for off := a; off < c; {
		k, e := lx.next(off)
		switch k {
		case tBad, tEOF:
			return false
		case tPunct:
			var ok bool
			if stack, ok = pairBracket(stack, src[off]); !ok {
				return false
			}
		}
		if e > c {
			return false // a string or comment running on past the body
		}
		off = e
	}
	if len(stack) == 0 {
		return false
	}
	text := make([]byte, 0, c-a+len(stack)+1)
	text = append(text, src[a:c]...)
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i] {
		case '(':
			text = append(text, ')')
		case '[':
			text = append(text, ']')
		default:
			text = append(text, '}')
		}
	}
	text = append(text, '}')
	end, ok := bodyRead(sx, text, 0, '}')
	return ok && end == len(text)-1 && hasCode(sx, text, 0, end)
}

// bodyRead reads src from off (just after a '{', or a '[' for an array
// literal: closer) as the skeleton reads a body that is not a container
// and returns the offset of its closer; ok is false when the lexer fails
// or something in it can define.
func bodyRead(sx *syntax, src []byte, off int, closer byte) (end int, ok bool) {
	var out skelOut
	b := bskel{skeleton: skeleton{src: src, out: &out, from: off, rowOff: off, lineS: off, dry: true}, lx: lexer{sx: sx, src: src}, sx: sx}
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

// openBody: an edit that leaves brackets open in a body (Ruby, Python,
// a brace language's: openBraceBody), closing none that it did not open, is taken too: the text a
// keystroke leaves while a call is typed (`foo(`, `foo(1`) before its
// closer. The file was read without syntax errors before (a stale buffer
// takes no fast path) and now opens more than it closes, so its parse
// has errors: a query parses it afresh (settle) and reads those of that
// parse, the fast path's guess (the definitions as they were) only
// spares the keystrokes the parse of a broken text (tree-sitter's error
// recovery over the rest of the file, 50-90 ms in rdoc's markdown.rb).

// maxFastBody is the largest body (bytes) the fast path reads again: a
// larger one (a table of thousands of lines) costs more to read than the
// parse it would spare.
const maxFastBody = 128 << 10

// bodyFast tries the fast path for the edit e that turns b.src into src:
// it returns the definitions after the edit and true when e lies inside
// one of b's spans (see bodySpans) and the span, read again in src, is
// still one (moved by the edit): a body that closes where it did with
// nothing in it that can define, the same comments, a literal left out.
// The caller holds bufMu.
func (ix *Index) bodyFast(b *buffer, src []byte, e sitter.EditInput) ([]def, bool) {
	if b.lang.syn == nil || b.stale {
		return nil, false
	}
	switch b.lang.syn.body {
	case bodyBrackets, bodyRuby, bodyIndent:
	default:
		return nil, false
	}
	if ix.bodyOut == nil {
		ix.bodyOut = new(skelOut)
	}
	if !b.spansOK {
		if b.skip && e.StartPoint.Row == b.skipRow && e.OldEndPoint.Row == b.skipRow {
			// The last edit, on this line, took the slow path: so
			// will this one, most likely; the skeleton of the whole
			// file is not worth reading again for it.
			return nil, false
		}
		b.spans, b.spansOK = bodySpans(b.lang, ix.bodyOut, b.src), true
	}
	start, oldEnd, newEnd := int(e.StartIndex), int(e.OldEndIndex), int(e.NewEndIndex)
	i := sort.Search(len(b.spans), func(i int) bool { return b.spans[i].a > start }) - 1
	if i < 0 || oldEnd > b.spans[i].c {
		return nil, false
	}
	sp := b.spans[i]
	a, c := sp.a, sp.c+newEnd-oldEnd
	if c-a > maxFastBody {
		if !bigBodyOK(b.lang.syn, &b.spans[i], b.src, src, start, oldEnd, newEnd) {
			return nil, false
		}
		sp.kind = bigBody // read around the edit only (bigbody.go)
	}
	if sp.kind == pyBody && b.tree.errorAround(a, c) {
		// Errors around a Python body: its function's end is the
		// parser's recovery, not the end of its last statement. (A
		// brace's or an `end`'s definition ends past the span: C's and
		// Rust's macros leave errors in many bodies, which the fast
		// path takes as before.)
		return nil, false
	}
	sx := b.lang.syn
	// last: where the definitions that ended at the span's end (a Python
	// function's, whose last statement it holds) end now.
	last := -1
	switch sp.kind {
	case comments: // they stay comments, ending where they did
		if !commentsOnly(sx, src, a, c) {
			return nil, false
		}
	case arrayLit: // it stays one, large enough to be left out
		if end, ok := bodyRead(sx, src, a, ']'); !ok || end != c || c-a < minLiteral {
			return nil, false
		}
	case braceBody:
		if end, ok := bodyRead(sx, src, a, '}'); !ok || end != c || !hasCode(sx, src, a, c) {
			if !openBraceBody(sx, src, a, c) {
				return nil, false
			}
		}
	case rubyBody:
		if !rubyBodyOK(src, a, c, ix.bodyOut) {
			return nil, false
		}
	case pyBody:
		if start == a && a > 0 && a < len(src) && isIdentByte(src[a-1]) && isIdentByte(src[a]) {
			return nil, false // the body's first token grows (`d` to `def`)
		}
		var ok bool
		if last, _, _, ok = pyBodyRead(src, a, c, sp.indent); !ok || last < start {
			return nil, false
		}
	case pyBrackets:
		if !pyBracketsOK(src, a, c) {
			return nil, false
		}
	case pyString:
		if !pyStringOK(src, a, c) {
			return nil, false
		}
	case bigBody:
	case hashText: // still the text of one comment
		if bytes.ContainsAny(src[a:c], "\r\n") {
			return nil, false
		}
	default:
		return nil, false
	}
	// The definitions: none may start inside the span; those after the
	// edit move, those holding it end later.
	spt := Pos{e.StartPoint.Row, e.StartPoint.Column}
	op := Pos{e.OldEndPoint.Row, e.OldEndPoint.Column}
	np := Pos{e.NewEndPoint.Row, e.NewEndPoint.Column}
	var oldLast, newLast Pos
	if last >= 0 {
		// The point of the span's end before the edit, and of last after.
		p := pointAt(b.src, oldEnd, e.OldEndPoint, sp.c)
		oldLast = Pos{p.Row, p.Column}
		if last >= newEnd {
			p = pointAt(src, newEnd, e.NewEndPoint, last)
		} else {
			p = pointAt(src, start, e.StartPoint, last)
		}
		newLast = Pos{p.Row, p.Column}
	}
	// Text inserted where a definition starts goes before it, where one
	// ends after it.
	shift := func(p Pos, end bool) (Pos, bool) {
		switch {
		case end && last >= 0 && p == oldLast:
			return newLast, true
		case posLess(p, spt) || end && p == spt: // before the edit
			return p, true
		case posLess(p, op): // inside the edit
			return p, false
		default:
			return movePos(p, op, np), true
		}
	}
	// A brace body holds no definition, but where the text has errors a
	// definition may end in it: the parser's recovery closed the function
	// early (a Rust body holding `x.ifunction a() {}y()`, typed and then
	// taken back). Its end is no longer the closing brace's; the parse
	// finds it.
	var inA, inC Pos
	braces := sp.kind == braceBody || sp.kind == bigBody
	if braces {
		p := pointBefore(b.src, sp.a, start, e.StartPoint)
		inA = Pos{p.Row, p.Column}
		p = pointAt(b.src, oldEnd, e.OldEndPoint, sp.c)
		inC = Pos{p.Row, p.Column}
	}
	syms := make([]def, len(b.syms))
	for k, d := range b.syms {
		if braces && (posLess(inA, d.Range.End) && posLess(d.Range.End, inC) || posLess(inA, d.Range.Start) && posLess(d.Range.Start, inC)) {
			return nil, false
		}
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
	// The spans after the edit.
	for k := i; k < len(b.spans); k++ {
		if k > i {
			b.spans[k].a += newEnd - oldEnd
		}
		b.spans[k].c += newEnd - oldEnd
	}
	return syms, true
}

// rubyBodyOK reports whether src[a:c] reads as the body of a Ruby method
// whose signature's line ends at a and whose `end` is at c: read alone,
// as rubySkeleton reads a body, it closes nothing and holds nothing that
// can define (def, class, module, a constant assigned), each closing
// bracket matches one opened in it (some may be left open: openBody),
// nothing in it runs on past c (a string, a heredoc, a comment
// before `end` on its line), and the `end` at c stays a keyword.
func rubyBodyOK(src []byte, a, c int, scratch *skelOut) bool {
	if a <= 0 || c <= a || c+3 > len(src) || src[a-1] != '\n' || string(src[c:c+3]) != "end" || c-a > maxFastBody {
		return false
	}
	switch src[c-1] {
	case ' ', '\t', '\n', '\r', ';':
	default:
		return false // x.end, @end, xend: no longer the keyword
	}
	// A heredoc opened on the signature's line has its body after a; one
	// opened on the body's last line would have it after c.
	ls := a - 1
	for ls > 0 && src[ls-1] != '\n' {
		ls--
	}
	body := src[a:c]
	lastLine := body[bytes.LastIndexByte(body, '\n')+1:]
	if bytes.Contains(src[ls:a], []byte("<<")) || bytes.Contains(lastLine, []byte("<<")) ||
		bytes.HasPrefix(body, []byte("__END__")) || bytes.Contains(body, []byte("\n__END__")) {
		return false
	}
	toks, comments, ok := rubyTokens(body, scratch.rtoks[:0])
	if !ok {
		return false
	}
	scratch.rtoks = toks[:0]
	for _, cm := range comments {
		if cm[1] >= len(body) {
			return false // a comment running on to the `end`
		}
	}
	var blocks rubyBlocks
	var brackets []string
	for k, t := range toks {
		if t.nl {
			blocks.newline(rubyGoesOn(toks, k))
		}
		switch t.word {
		case "(", "[", "{":
			brackets = append(brackets, t.word)
		case ")", "]", "}":
			open := "("
			if t.word == "]" {
				open = "["
			} else if t.word == "}" {
				open = "{"
			}
			if len(brackets) == 0 || brackets[len(brackets)-1] != open {
				return false
			}
			brackets = brackets[:len(brackets)-1]
		}
		if !t.kw {
			if t.constant && k+1 < len(toks) && toks[k+1].word == "=" {
				return false
			}
			continue
		}
		switch t.word {
		case "def", "class", "module":
			return false
		case "end":
			if blocks.depth == 0 {
				return false // it closes the method
			}
		}
		blocks.keyword(t)
	}
	// Brackets left open (`foo(`, its closer not typed yet): see
	// openBody. (Not blocks: an `if` or `do` left open may take an end
	// that closed something else, a text that parses without errors.)
	return blocks.depth == 0
}

// pySpans returns the spans of a Python file that pythonSkeleton read
// into out: the bodies it left out, and the brackets and long strings
// whose contents it left out.
func pySpans(out *skelOut, src []byte) []bodySpan {
	var spans []bodySpan
	for _, b := range out.bodies {
		// The least indentation of the body's lines: every line of
		// the body is indented deeper than the def's.
		if _, m, open, ok := pyBodyRead(src, b[0], b[1], 0); ok && open == 0 && m > 0 {
			if _, _, open, ok := pyBodyRead(src, b[0], b[1], m); ok && open == 0 {
				spans = append(spans, bodySpan{a: b[0], c: b[1], kind: pyBody, indent: m})
			}
		}
	}
	// Brackets, long strings and comments, wherever they are: what
	// they hold defines nothing, whatever the skeleton kept of it.
	lx := lexer{sx: pythonSyntax, src: src}
	depth, open, slash := 0, 0, false
	for off := 0; off < len(src); {
		k, e := lx.next(off)
		switch k {
		case tBad, tEOF:
			return nested(spans)
		case tComment:
			if depth == 0 {
				if le := lineEnd(src, off); le < len(src) {
					spans = append(spans, bodySpan{a: off + 1, c: le, kind: hashText})
				}
			}
		case tString:
			n := 1
			if e-off >= 6 && src[off+1] == src[off] && src[off+2] == src[off] {
				n = 3
			}
			if depth == 0 && e-off-2*n >= minLiteral {
				spans = append(spans, bodySpan{a: off + n, c: e - n, kind: pyString})
			}
		case tPunct:
			switch src[off] {
			case '(', '[', '{':
				if depth == 0 {
					open, slash = off, false
				}
				depth++
			case ')', ']', '}':
				if depth--; depth < 0 {
					return nested(spans)
				}
				if depth == 0 && !slash && off-open > 4 {
					spans = append(spans, bodySpan{a: open + 1, c: off, kind: pyBrackets})
				}
			case '\\':
				slash = true
			}
		}
		off = e
	}
	return nested(spans)
}

// nested sorts spans and drops those inside others (a string in brackets
// in a body).
func nested(spans []bodySpan) []bodySpan {
	slices.SortFunc(spans, func(x, y bodySpan) int { return cmp.Compare(x.a, y.a) })
	kept := spans[:0]
	for _, s := range spans {
		if len(kept) > 0 && s.a < kept[len(kept)-1].c {
			continue
		}
		kept = append(kept, s)
	}
	return kept
}

// lineEnd returns the offset of the line break ("\n" or "\r\n") that ends
// the line holding off, or len(src).
func lineEnd(src []byte, off int) int {
	e := bytes.IndexByte(src[off:], '\n')
	if e < 0 {
		return len(src)
	}
	e += off
	if e > off && src[e-1] == '\r' {
		e--
	}
	return e
}

// pyBodyRead reads src[a:c] as the part of a Python function's body that
// pythonSkeleton leaves out (from the end of a logical line, or of its
// first token, to the end of the body's last token or comment): tokens
// that end by c, every closing bracket matching one opened in it, no
// backslash continuing the last line, and every line that starts in it
// (code or comment) indented by at least indent and starting with no
// def, class, async or decorator. It returns the end of its last token
// (or comment), the least indentation of the lines of code that start in
// it and the number of brackets left open at c (a call being typed: see
// bodyFast).
func pyBodyRead(src []byte, a, c, indent int) (last, least, open int, ok bool) {
	if c-a > maxFastBody {
		return 0, 0, 0, false
	}
	lx := lexer{sx: pythonSyntax, src: src}
	depth, cont, lineStart := 0, false, false
	last, least = -1, -1
	for off := a; off < c; {
		k, e := lx.next(off)
		if k == tSpace {
			if depth == 0 && !cont && indexNL(src[off:min(e, c)]) {
				lineStart = true
			}
			if cont && indexNL(src[off:min(e, c)]) {
				cont = false
			}
			off = e
			continue
		}
		if k == tBad || k == tEOF || e > c {
			return 0, 0, 0, false
		}
		if lineStart {
			lineStart = false
			ls := off
			for ls > 0 && src[ls-1] != '\n' {
				ls--
			}
			in := off - ls
			if in < indent {
				return 0, 0, 0, false
			}
			if k != tComment && (least < 0 || in < least) {
				least = in
			}
			switch string(src[off:e]) {
			case "def", "class", "async", "@":
				return 0, 0, 0, false
			}
		}
		if k == tPunct {
			switch src[off] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth--; depth < 0 {
					return 0, 0, 0, false
				}
			case '\\':
				cont = true
			}
		}
		last, off = e, e
	}
	return last, least, depth, !cont && last >= 0
}

// pyBracketsOK reports whether src[a:c], the contents of brackets, reads
// as such: tokens that end by c, brackets that match, no backslash.
// Nothing in brackets can define (the query's definitions are functions,
// classes and assignments, statements all), and the logical lines stay
// those they were.
func pyBracketsOK(src []byte, a, c int) bool {
	if c-a > maxFastBody || c-a < 4 {
		return false
	}
	lx := lexer{sx: pythonSyntax, src: src}
	depth := 0
	for off := a; off < c; {
		k, e := lx.next(off)
		if k == tBad || k == tEOF || e > c {
			return false
		}
		if k == tPunct {
			switch src[off] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth--; depth < 0 {
					return false
				}
			case '\\':
				return false
			}
		}
		off = e
	}
	return depth == 0
}

// pyStringOK reports whether src[a:c] is the text of a long string: the
// string whose quotes end at a reads to c and closes there.
func pyStringOK(src []byte, a, c int) bool {
	if c-a > maxFastBody || c-a < minLiteral || c >= len(src) {
		return false
	}
	q := src[a-1]
	n := 1
	if a >= 3 && src[a-2] == q && src[a-3] == q {
		n = 3
	}
	lx := lexer{sx: pythonSyntax, src: src}
	k, e := lx.next(a - n)
	return k == tString && e == c+n
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
