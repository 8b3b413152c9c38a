package codeindex

import (
	"bytes"
	"cmp"
	"slices"
)

// rubySkeleton makes out the text of a Ruby file for a definitions-only
// parse: it leaves out the text of comments and the bodies of methods that
// define nothing (no def, class, module or constant assignment in them):
// the parser sees `def f(a)\nend`. Bodies are matched by keyword: class,
// module, def, case, begin, for, do and, unless they follow an operand, if,
// unless, while and until open one, end closes it (the do of a while,
// until or for line is the loop's). Heredocs, %-literals, interpolation,
// =begin comments and character literals are read as Ruby reads them; what
// the reader cannot place leaves the file to a full parse.
func rubySkeleton(out *skelOut, src []byte) bool {
	out.reset()
	toks, comments, ok := rubyTokens(src, out.rtoks[:0])
	out.rtoks = toks[:0] // reused by the next file
	if !ok {
		return false
	}
	out.comments = comments
	isKw := func(i int, w string) bool { return toks[i].word == w && toks[i].kw }
	var bodies [][2]int
	for i := 0; i < len(toks); i++ {
		if !isKw(i, "def") {
			continue
		}
		// The signature: the name, the parameters, up to the end of a line
		// that does not go on (`def f a, # c\n      b` does).
		j, depth := i+1, 0
		for ; j < len(toks); j++ {
			t := toks[j]
			if depth == 0 && (t.nl && !rubyGoesOn(toks, j) || t.word == ";") {
				break
			}
			switch t.word {
			case "(":
				depth++
			case ")":
				depth--
			case "=":
				if depth == 0 && j > i+1 && (toks[j-1].word == ")" || t.spaced) {
					j = -1 // def f(x) = expr: no body, no end
				}
			}
			if j < 0 {
				break
			}
		}
		if j < 0 || j >= len(toks) {
			continue
		}
		body := toks[j].end
		// The body, to its end.
		var blocks rubyBlocks
		defs, endAt := false, -1
		for k := j + 1; k < len(toks) && endAt < 0; k++ {
			t := toks[k]
			if t.nl {
				blocks.newline(rubyGoesOn(toks, k))
			}
			if !t.kw {
				if t.constant && k+1 < len(toks) && toks[k+1].word == "=" {
					defs = true
				}
				continue
			}
			switch t.word {
			case "def", "class", "module":
				defs = true
				blocks.depth++
			case "end":
				if blocks.depth == 0 {
					endAt = k
				}
				blocks.depth--
			default:
				blocks.keyword(t)
			}
		}
		if endAt < 0 {
			return false // an end is missing: let the parser see it all
		}
		if !defs && toks[endAt].pos > body {
			bodies = append(bodies, [2]int{body, toks[endAt].pos})
			i = endAt
		}
	}
	out.bodies = append(out.bodies, bodies...)
	// Parentheses right after a name (a call's arguments, a def's
	// parameters) that hold no keyword, brace or heredoc (a literal with
	// << in it, interpolations included, stays whole): the parser sees
	// `f()`.
	var parens [][2]int
	var open []int // the '(' tokens, -1 for one that stays
	for i, t := range toks {
		switch {
		case t.word == "(":
			o := -1
			if i > 0 && toks[i-1].word == "id" && !t.spaced {
				o = i
			}
			open = append(open, o)
		case t.word == ")":
			if len(open) == 0 {
				break
			}
			o := open[len(open)-1]
			open = open[:len(open)-1]
			if o >= 0 && t.pos-toks[o].end > 4 {
				a := toks[o].end
				for len(parens) > 0 && parens[len(parens)-1][0] >= a {
					parens = parens[:len(parens)-1]
				}
				parens = append(parens, [2]int{a, t.pos})
			}
		case t.kw || t.word == "{" || t.word == "lit" && bytes.Contains(src[t.pos:t.end], []byte("<<")):
			for k := range open {
				open[k] = -1
			}
		}
	}
	// Large literals in brackets (hashes, arrays, blocks) that define
	// nothing (no keyword, no constant assigned) and hold no heredoc, nor
	// follow one on their line (its body would be inside): the parser sees
	// `TABLE = {}`, and a constant's range still ends at its bracket.
	var lits [][2]int
	var brackets []int
	for i, t := range toks {
		switch t.word {
		case "{", "[":
			brackets = append(brackets, i)
		case "}", "]":
			if len(brackets) == 0 {
				break
			}
			o := brackets[len(brackets)-1]
			brackets = brackets[:len(brackets)-1]
			if (toks[o].word == "{") != (t.word == "}") {
				brackets = brackets[:0] // unbalanced: no more
				lits = lits[:0]
				break
			}
			if t.pos-toks[o].end >= minLiteral && rubyPlain(src, toks, o, i) {
				lits = append(lits, [2]int{toks[o].end, t.pos})
			}
		}
	}
	// The cuts in order (the outer of two that overlap).
	cuts := rubyStatements(src, toks, out.pycuts[:0])
	defer func() { out.pycuts = cuts[:0] }() // reused by the next file
	cuts = rubyLiterals(src, toks, cuts)
	for _, l := range [][][2]int{bodies, lits, parens, comments} {
		for _, c := range l {
			cuts = append(cuts, piece{c[0], c[1], false})
		}
	}
	slices.SortFunc(cuts, func(a, b piece) int { return cmp.Or(cmp.Compare(a.a, b.a), cmp.Compare(b.b, a.b)) })
	s := skeleton{src: src, out: out}
	last := 0
	for _, c := range cuts {
		if c.a < last || c.b <= c.a {
			continue
		}
		s.cut(c.a, c.b)
		if c.fix {
			s.out.fixes = append(s.out.fixes, rangeFix{at: uint32(c.a), endByte: uint32(c.b), end: s.fromPt})
		}
		last = c.b
	}
	if s.cuts == 0 {
		return false
	}
	s.cut(len(src), len(src))
	return true
}

// rubyStatements appends to cuts the statements of a Ruby file that
// define nothing, to leave out whole: a statement starts a line outside
// brackets (the line before does not go on: it ends in no operator,
// comma or keyword that wants more, and the line does not start with a
// method call's dot), runs to the end of a line where its brackets and
// blocks are closed, and defines nothing when it holds no def, class,
// module, alias or undef and assigns no constant (nor may in an
// interpolation or a heredoc). Its cut runs to the next token, heredoc
// bodies included. Of a constant's assignment the parser sees the value's
// first operand (`X = foo` for `X = foo.bar(1).freeze`), and a fix gives
// the definition its end back.
func rubyStatements(src []byte, toks []rubyTok, cuts []piece) []piece {
	goesOn := func(k int) bool { return rubyGoesOn(toks, k) }
	// dotted reports whether the token after the newlines from k starts
	// with a method call's dot (the statement goes on).
	dotted := func(k int) bool {
		for k < len(toks) && toks[k].nl {
			k++
		}
		return k < len(toks) && (toks[k].word == "." || toks[k].word == "&" && k+1 < len(toks) && toks[k+1].word == "." && toks[k+1].pos == toks[k].end)
	}
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		start := depth == 0 && !t.nl && (i == 0 || toks[i-1].nl && !goesOn(i-1)) && t.word != "." && t.word != "&"
		if start && t.kw {
			switch t.word {
			case "if", "unless", "while", "until", "case", "begin", "for", "return", "yield", "self", "nil", "true", "false", "super", "not", "defined", "break", "next", "redo", "retry":
			default:
				start = false
			}
		}
		if start {
			if e, ok := rubyStatement(src, toks, i, goesOn, dotted); ok {
				end := len(src)
				next := e + 1
				for next < len(toks) && toks[next].nl {
					next++
				}
				if next < len(toks) {
					end = toks[next].pos
				}
				if !rubyHidden(src[t.pos:end]) {
					cuts = append(cuts, piece{t.pos, end, false})
					i = next - 1
					continue
				}
			} else if e > i+2 && t.constant && toks[i+1].word == "=" {
				// A constant's assignment: its value's first operand
				// stays.
				if k := rubyOperandEnd(src, toks, i+2, e); k >= 0 && toks[k].end < toks[e-1].end && !rubyHidden(src[toks[k].end:toks[e-1].end]) {
					cuts = append(cuts, piece{toks[k].end, toks[e-1].end, true})
				}
			}
		}
		switch t.word {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			if depth > 0 {
				depth--
			}
		}
	}
	return cuts
}

// rubyBlocks counts the blocks that Ruby's keywords open and close: the
// do of a loop (while, until or for, its condition on one line or
// running on past lines that go on) opens none.
type rubyBlocks struct {
	depth int
	loop  bool // a loop's condition: its do is the loop's
}

// newline: a line ends; goesOn, its statement goes on past it.
func (r *rubyBlocks) newline(goesOn bool) {
	if !goesOn {
		r.loop = false
	}
}

// keyword counts the keyword t (an end closes a block; def, class and
// module are each reader's own business).
func (r *rubyBlocks) keyword(t rubyTok) {
	switch t.word {
	case "case", "begin":
		r.depth++
	case "for":
		r.depth++
		r.loop = true
	case "if", "unless", "while", "until":
		if t.start {
			r.depth++
			r.loop = t.word == "while" || t.word == "until"
		}
	case "do":
		if r.loop {
			r.loop = false
		} else {
			r.depth++
		}
	case "end":
		r.depth--
	}
}

// rubyGoesOn reports whether the line whose newline is toks[k] goes on
// past it: it ends in an operator, a comma or a keyword that wants more.
func rubyGoesOn(toks []rubyTok, k int) bool {
	p := k - 1
	for p >= 0 && toks[p].nl {
		p--
	}
	if p < 0 {
		return false
	}
	t := toks[p]
	if t.kw {
		switch t.word {
		case "and", "or", "not", "if", "unless", "while", "until", "in", "when", "elsif", "case", "defined":
			return true
		}
		return false
	}
	switch t.word {
	case "id", "lit", ")", "]", "}", "$":
		return false
	case "|": // a block's parameters (`do |x|`), or an operator
		for q := p - 1; q >= 0 && !toks[q].nl; q-- {
			if toks[q].kw && toks[q].word == "do" {
				return false
			}
		}
	}
	return true
}

// rubyStatement reads the statement starting at toks[i]: it returns the
// index of the newline that ends it (len(toks) at the end), and whether
// it defines nothing. A statement that defines something returns e -1
// unless it is a constant's assignment that holds no keyword, heredoc,
// semicolon nor other assignment of a constant: then e is its newline.
func rubyStatement(src []byte, toks []rubyTok, i int, goesOn func(int) bool, dotted func(int) bool) (e int, ok bool) {
	e = -1
	brackets := 0
	var blocks rubyBlocks
	assign := false // a constant assigned: the statement defines
	plain := true   // no keyword, heredoc nor ';'
	for k := i; k < len(toks); k++ {
		t := toks[k]
		if t.nl {
			on := goesOn(k)
			blocks.newline(on)
			if brackets == 0 && blocks.depth == 0 && !on && !dotted(k) {
				e = k
				break
			}
			continue
		}
		if !t.kw {
			switch t.word {
			case "(", "[", "{":
				brackets++
			case ")", "]", "}":
				if brackets--; brackets < 0 {
					return -1, false
				}
			case "=":
				if k > i && toks[k-1].constant {
					if assign || k != i+1 {
						return -1, false // more than one, or not X = …
					}
					assign = true
				}
			case ";":
				plain = false
			case "lit":
				if src[t.pos] == '<' {
					plain = false // a heredoc
				} else if lit := src[t.pos:t.end]; bytes.Contains(lit, []byte("<<")) && bytes.Contains(lit, []byte("#{")) {
					return -1, false // maybe a heredoc in an interpolation: its body is not read as one
				}
			}
			continue
		}
		plain = false
		switch t.word {
		case "def", "class", "module", "alias", "undef":
			return -1, false
		case "end":
			if blocks.depth == 0 {
				return -1, false
			}
		}
		blocks.keyword(t)
	}
	if e < 0 {
		e = len(toks)
	}
	if brackets != 0 || blocks.depth != 0 {
		return -1, false
	}
	if assign {
		if !plain {
			return -1, false
		}
		return e, false
	}
	return e, true
}

// rubyLiterals appends to cuts the text of the large string and
// %-literals (and regular expressions, their first byte kept) that hide
// no definition nor heredoc in an interpolation: the parser sees `""`,
// `%w()`, `/a/o`.
func rubyLiterals(src []byte, toks []rubyTok, cuts []piece) []piece {
	for _, t := range toks {
		if t.word != "lit" || t.end-t.pos < minLiteral {
			continue
		}
		lit := src[t.pos:t.end]
		a, b := -1, -1
		switch c := lit[0]; c {
		case '"', '\'', '`':
			if lit[len(lit)-1] == c {
				a, b = 1, len(lit)-1
			}
		case '%':
			d := 1
			if isIdentByte(lit[1]) {
				d = 2
			}
			close := percentCloser(lit[d])
			if lit[len(lit)-1] == close { // not %r{…}i
				a, b = d+1, len(lit)-1
			}
		case '/':
			if k := bytes.LastIndexByte(lit, '/'); k > 2 && isIdentByte(lit[1]) && lit[1] < 0x80 {
				a, b = 2, k
			}
		}
		if a < 0 || b <= a || rubyHidden(lit) || bytes.Contains(lit, []byte("#{")) && bytes.Contains(lit, []byte("<<")) {
			continue
		}
		cuts = append(cuts, piece{t.pos + a, t.pos + b, false})
	}
	return cuts
}

// rubyOperandEnd returns the last token of the operand that starts a
// constant's value at toks[k] (before toks[e]): a name, a literal other
// than a heredoc, or brackets and what they hold; -1 for anything else.
func rubyOperandEnd(src []byte, toks []rubyTok, k, e int) int {
	switch t := toks[k]; t.word {
	case "id":
		if string(src[t.pos:t.end]) == "defined?" {
			return -1 // wants its operand
		}
		return k
	case "lit":
		if src[t.pos] == '<' || src[t.pos] == '?' {
			return -1
		}
		return k
	case "(", "[", "{":
		depth := 0
		for j := k; j < e; j++ {
			switch toks[j].word {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth--; depth == 0 {
					return j
				}
			}
		}
	}
	return -1
}

// rubyHidden reports whether text the skeleton would leave out as code
// that defines nothing may hide a definition in an interpolation (`#{`,
// of a string or a heredoc, that the reader does not read as code): a
// def, class or module word, or a constant followed by '='.
func rubyHidden(b []byte) bool {
	i := bytes.Index(b, []byte("#{"))
	if i < 0 {
		return false
	}
	b = b[i:]
	for j := 0; j < len(b); j++ {
		c := b[j]
		if !isIdentByte(c) || j > 0 && isIdentByte(b[j-1]) {
			continue
		}
		k := j
		for k < len(b) && isIdentByte(b[k]) {
			k++
		}
		switch w := string(b[j:k]); {
		case w == "def" || w == "class" || w == "module":
			return true
		case c >= 'A' && c <= 'Z':
			m := k
			for m < len(b) && (b[m] == ' ' || b[m] == '\t') {
				m++
			}
			if m < len(b) && b[m] == '=' && (m+1 == len(b) || b[m+1] != '=' && b[m+1] != '~' && b[m+1] != '>') {
				return true
			}
		}
		j = k - 1
	}
	return false
}

// rubyPlain reports whether the tokens between the brackets o and c
// define nothing and hold no heredoc, and no heredoc starts on the line
// before o.
func rubyPlain(src []byte, toks []rubyTok, o, c int) bool {
	heredoc := func(t rubyTok) bool { return t.word == "lit" && bytes.Contains(src[t.pos:t.end], []byte("<<")) }
	for k := o - 1; k >= 0 && !toks[k].nl; k-- {
		if heredoc(toks[k]) {
			return false
		}
	}
	for k := o + 1; k < c; k++ {
		t := toks[k]
		if t.kw || heredoc(t) || t.constant && toks[k+1].word == "=" {
			return false
		}
	}
	return true
}

// rubyTok is a token of rubyTokens: punctuation and words by their text,
// literals as "".
type rubyTok struct {
	pos, end int
	word     string
	kw       bool // a keyword (not after '.', not a symbol or a label)
	start    bool // it starts a statement
	nl       bool // a newline (end is after it)
	spaced   bool // white space before it
	constant bool // a capitalized identifier (not $X nor @X)
}

// rubyOperand reports whether the token word w is an operand: after
// these an if, unless, while or until is a modifier (`x if y`, `return if
// y`); after anything else (an operator, a newline, an opening bracket,
// then, do…) it opens a block (`x << if y`).
func rubyOperand(w string) bool {
	switch w {
	case "id", "lit", ")", "]", "}", "$", "end", "return", "break", "next", "redo", "retry", "self",
		"nil", "true", "false", "yield", "super":
		return true
	}
	return false
}

// rubyKeyword returns the keyword w is (a constant string: the token's
// word), or "".
func rubyKeyword(w []byte) string {
	if len(w) < 2 || len(w) > 7 || w[0] < 'a' || w[0] > 'z' {
		return ""
	}
	switch string(w) {
	case "alias":
		return "alias"
	case "and":
		return "and"
	case "begin":
		return "begin"
	case "break":
		return "break"
	case "case":
		return "case"
	case "class":
		return "class"
	case "def":
		return "def"
	case "defined":
		return "defined"
	case "do":
		return "do"
	case "else":
		return "else"
	case "elsif":
		return "elsif"
	case "end":
		return "end"
	case "ensure":
		return "ensure"
	case "false":
		return "false"
	case "for":
		return "for"
	case "if":
		return "if"
	case "in":
		return "in"
	case "module":
		return "module"
	case "next":
		return "next"
	case "nil":
		return "nil"
	case "not":
		return "not"
	case "or":
		return "or"
	case "redo":
		return "redo"
	case "rescue":
		return "rescue"
	case "retry":
		return "retry"
	case "return":
		return "return"
	case "self":
		return "self"
	case "super":
		return "super"
	case "then":
		return "then"
	case "true":
		return "true"
	case "undef":
		return "undef"
	case "unless":
		return "unless"
	case "until":
		return "until"
	case "when":
		return "when"
	case "while":
		return "while"
	case "yield":
		return "yield"
	}
	return ""
}

// rubyPunct returns the punctuation w as a constant string when it is
// one the lexer reads as two bytes (no allocation), else a copy.
func rubyPunct(w []byte) string {
	switch string(w) {
	case "&&":
		return "&&"
	case "||":
		return "||"
	case "=>":
		return "=>"
	case "->":
		return "->"
	}
	return string(w)
}

// rubyTokens reads src into tokens (appended to toks), and the text of
// its comments.
func rubyTokens(src []byte, toks []rubyTok) (_ []rubyTok, comments [][2]int, ok bool) {
	lx := lexer{sx: rubySyntax, src: src}
	var heredocs [][]byte // ids whose bodies start at the next newline
	var squiggly []bool
	prev := "\n"
	spaced := false
	push := func(t rubyTok) {
		if t.word == "" {
			t.word = "lit" // a literal: an operand
		}
		t.spaced = spaced
		spaced = false
		t.start = !rubyOperand(prev)
		toks = append(toks, t)
		prev = t.word
	}
	n := len(src)
	for off := 0; off < n; {
		c := src[off]
		lineStart := off == 0 || src[off-1] == '\n'
		switch {
		case lineStart && bytes.HasPrefix(src[off:], []byte("=begin")):
			k := bytes.Index(src[off:], []byte("\n=end"))
			if k < 0 {
				return toks[:0], nil, false
			}
			e := off + k + 5
			for e < n && src[e] != '\n' {
				e++
			}
			comments = append(comments, [2]int{off + 6, off + k}) // "=begin" and "\n=end" stay
			off = e
			continue
		case lineStart && bytes.HasPrefix(src[off:], []byte("__END__")) && (off+7 == n || src[off+7] == '\n' || src[off+7] == '\r'):
			return toks, comments, true
		case c == '\n':
			push(rubyTok{pos: off, end: off + 1, word: "\n", nl: true})
			off++
			for i, id := range heredocs {
				e := heredocBody(src, off, id, squiggly[i])
				if e < 0 {
					return toks[:0], nil, false
				}
				off = e
			}
			heredocs, squiggly = nil, nil
			lx.operand = false
			continue
		case c == ' ' || c == '\t' || c == '\r':
			spaced = true
			off++
			continue
		case c == '\\' && off+1 < n && src[off+1] == '\n':
			spaced = true
			off += 2
			continue
		case c == '#':
			e := off + bytes.IndexByte(src[off:], '\n')
			if e < off {
				e = n
			}
			if lineStartsAt(src, off) && e < n {
				// A comment line goes whole, with its newline.
				ls := off
				for ls > 0 && src[ls-1] != '\n' {
					ls--
				}
				comments = append(comments, [2]int{ls, e + 1})
			} else {
				comments = append(comments, [2]int{off + 1, e})
			}
			off = e
			continue
		case c == '<' && off+2 < n && src[off+1] == '<' && (src[off+2] == '~' || src[off+2] == '-' || (!lx.operand || spaced && src[off+2] != ' ') && (src[off+2] >= 'A' && src[off+2] <= 'Z' || src[off+2] == '"' || src[off+2] == '\'')):
			i := off + 2
			sq := src[i] == '~' || src[i] == '-'
			if sq {
				i++
			}
			q := byte(0)
			if i < n && (src[i] == '"' || src[i] == '\'' || src[i] == '`') {
				q = src[i]
				i++
			}
			s := i
			for i < n && isIdentByte(src[i]) {
				i++
			}
			if i == s {
				break // a shift
			}
			id := src[s:i]
			if q != 0 {
				if i >= n || src[i] != q {
					return toks[:0], nil, false
				}
				i++
			}
			heredocs, squiggly = append(heredocs, id), append(squiggly, sq)
			push(rubyTok{pos: off, end: i})
			lx.operand = true
			off = i
			continue
		case c == '%' && off+1 < n && !rubyMethodName(toks, off) && (!lx.operand || spaced && prev == "id" && src[off+1] != ' ' && src[off+1] != '=' && src[off+1] != '\n'):
			i := off + 1
			if bytes.IndexByte([]byte("qQwWiIrsx"), src[i]) >= 0 {
				i++
			}
			if i < n && !isIdentByte(src[i]) && src[i] != ' ' && src[i] != '\n' && src[i] != '=' {
				e := percentEnd(src, i)
				if e < 0 {
					return toks[:0], nil, false
				}
				push(rubyTok{pos: off, end: e})
				lx.operand = true
				off = e
				continue
			}
		case c == '?' && !lx.operand && off+2 <= n && off+1 < n && src[off+1] != ' ' && src[off+1] != '\n' && (off+2 == n || !isIdentByte(src[off+2])):
			e := off + 2
			if src[off+1] == '\\' {
				e = off + 3
			}
			push(rubyTok{pos: off, end: min(e, n)})
			lx.operand = true
			off = min(e, n)
			continue
		case c == '"' || c == '`':
			e := rubyString(&lx, off, c)
			if e < 0 {
				return toks[:0], nil, false
			}
			push(rubyTok{pos: off, end: e})
			lx.operand = true
			off = e
			continue
		case c == '$' && off+1 < n && !isIdentByte(src[off+1]):
			push(rubyTok{pos: off, end: off + 2, word: "$"})
			lx.operand = true
			off += 2
			continue
		case c == '/' && rubyMethodName(toks, off):
			push(rubyTok{pos: off, end: off + 1, word: "/"})
			off++
			continue
		}
		k, e := lx.next(off)
		switch k {
		case tBad:
			return toks[:0], nil, false
		case tEOF:
			return toks, comments, true
		case tIdent:
			if e < n && (src[e] == '?' || src[e] == '!') && (e+1 >= n || src[e+1] != '=') {
				e++ // a predicate or bang method name
			}
			w := rubyKeyword(src[off:e])
			before := byte(0)
			if off > 0 {
				before = src[off-1]
			}
			label := e < n && src[e] == ':' && (e+1 >= n || src[e+1] != ':')
			kw := w != "" && before != '.' && before != ':' && before != '@' && before != '$' && !label && !rubyAfterDot(toks)
			if prev == "def" && toks[len(toks)-1].kw {
				kw = false // def end, def class: a method's name
			}
			if !kw {
				w = "id"
			}
			push(rubyTok{pos: off, end: e, word: w, kw: kw, constant: c >= 'A' && c <= 'Z' && before != '$' && before != '@'})
			lx.operand = !kw || w == "end" || w == "self" || w == "nil" || w == "true" || w == "false"
		case tPunct:
			if (c == '&' || c == '|') && e < n && src[e] == c {
				e++
			}
			var w string
			switch {
			case c == '=' && e < n && (src[e] == '=' || src[e] == '~'):
				e++
				w = "=="
			case e == off+1:
				w = string(src[off:e]) // one byte: no allocation
			default:
				w = rubyPunct(src[off:e])
			}
			push(rubyTok{pos: off, end: e, word: w})
		default:
			push(rubyTok{pos: off, end: e})
		}
		off = e
	}
	return toks, comments, true
}

// rubyAfterDot reports whether the last token but newlines is a method
// call's dot (`x.\n  for(y)`: a method's name, not a keyword).
func rubyAfterDot(toks []rubyTok) bool {
	for k := len(toks) - 1; k >= 0; k-- {
		if !toks[k].nl {
			return toks[k].word == "."
		}
	}
	return false
}

// rubyMethodName reports whether the '/' or '%' at off names a method (`def /`,
// `alias / +`, `:/`, `x./`) rather than starting a regular expression.
func rubyMethodName(toks []rubyTok, off int) bool {
	n := len(toks)
	if n == 0 {
		return false
	}
	p := toks[n-1]
	switch {
	case p.kw && (p.word == "def" || p.word == "alias" || p.word == "undef"):
		return true
	case (p.word == ":" || p.word == ".") && p.end == off:
		return true
	case n >= 2 && !p.nl && toks[n-2].kw && toks[n-2].word == "alias":
		return true
	}
	return false
}

// rubyString returns the end of the "..." or `...` string at off, its
// #{...} interpolations read as code; -1 when it is not closed.
func rubyString(lx *lexer, off int, q byte) int {
	src := lx.src
	for i := off + 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case q:
			return i + 1
		case '#':
			if i+1 < len(src) && src[i+1] == '{' {
				e := rubyInterp(lx, i+2)
				if e < 0 {
					return -1
				}
				i = e
			}
		}
	}
	return -1
}

// rubyInterp returns the offset of the '}' closing the interpolation whose
// code starts at off, or -1.
func rubyInterp(lx *lexer, off int) int {
	src := lx.src
	depth := 0
	for i := off; i < len(src); i++ {
		switch c := src[i]; c {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return i
			}
			depth--
		case '"', '`':
			e := rubyString(lx, i, c)
			if e < 0 {
				return -1
			}
			i = e - 1
		case '\'':
			e := skipQuotedML(src, i, '\'', true)
			if e < 0 {
				return -1
			}
			i = e - 1
		}
	}
	return -1
}

// percentCloser returns the delimiter that closes a %-literal opened by
// open: the matching bracket, or open itself.
func percentCloser(open byte) byte {
	switch open {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	case '<':
		return '>'
	}
	return open
}

// percentEnd returns the end of the %-literal whose delimiter is at off.
func percentEnd(src []byte, off int) int {
	open := src[off]
	close := percentCloser(open)
	depth := 0
	for i := off + 1; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			i++
		case c == close && depth == 0:
			return i + 1
		case c == close:
			depth--
		case c == open && open != close:
			depth++
		}
	}
	return -1
}

// heredocBody returns the offset after the heredoc body starting at off
// and ending with a line that is id (squiggly: after blanks).
func heredocBody(src []byte, off int, id []byte, squiggly bool) int {
	for line := off; line < len(src); {
		j := line
		if squiggly {
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
		}
		e := bytes.IndexByte(src[line:], '\n')
		end := len(src)
		if e >= 0 {
			end = line + e
		}
		if bytes.Equal(bytes.TrimRight(src[j:end], "\r"), id) {
			if e < 0 {
				return len(src)
			}
			return end + 1
		}
		if e < 0 {
			return -1
		}
		line = end + 1
	}
	return -1
}
