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
	isKw := func(i int, w string) bool { return toks[i].word == w && toks[i].kw }
	var bodies [][2]int
	for i := 0; i < len(toks); i++ {
		if !isKw(i, "def") {
			continue
		}
		// The signature: the name, the parameters, up to the line's end.
		j, depth := i+1, 0
		for ; j < len(toks); j++ {
			t := toks[j]
			if depth == 0 && (t.nl || t.word == ";") {
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
		depth = 0
		defs, endAt := false, -1
		loop := false
		for k := j + 1; k < len(toks) && endAt < 0; k++ {
			t := toks[k]
			if t.nl {
				loop = false
			}
			if !t.kw {
				if t.constant && k+1 < len(toks) && toks[k+1].word == "=" && toks[k+1].spaced {
					defs = true
				}
				continue
			}
			switch t.word {
			case "def", "class", "module":
				defs = true
				depth++
			case "case", "begin":
				depth++
			case "for":
				depth++
				loop = true
			case "if", "unless", "while", "until":
				if t.start {
					depth++
					loop = t.word == "while" || t.word == "until"
				}
			case "do":
				if loop {
					loop = false
				} else {
					depth++
				}
			case "end":
				if depth == 0 {
					endAt = k
				}
				depth--
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
	// The cuts in order: bodies, then parentheses and comments outside
	// them.
	cuts := append(append(append(append([][2]int(nil), bodies...), lits...), parens...), comments...)
	slices.SortStableFunc(cuts, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	s := skeleton{src: src, out: out}
	last := 0
	for _, c := range cuts {
		if c[0] < last || c[1] <= c[0] {
			continue
		}
		s.cut(c[0], c[1])
		last = c[1]
	}
	if s.cuts == 0 {
		return false
	}
	s.cut(len(src), len(src))
	return true
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
		if t.kw || heredoc(t) || t.constant && toks[k+1].word == "=" && toks[k+1].spaced {
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
	constant bool // a capitalized identifier
}

// rubyOperand: after these an if, unless, while or until is a modifier
// (`x if y`, `return if y`); after anything else (an operator, a newline,
// an opening bracket, then, do…) it opens a block (`x << if y`).
var rubyOperand = map[string]bool{"id": true, "lit": true, ")": true, "]": true, "}": true, "$": true,
	"end": true, "return": true, "break": true, "next": true, "redo": true, "retry": true, "self": true,
	"nil": true, "true": true, "false": true, "yield": true, "super": true}

var rubyKeywords = words("alias and begin break case class def defined do else elsif end ensure false for if in module next nil not or redo rescue retry return self super then true undef unless until when while yield")

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
		t.start = !rubyOperand[prev]
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
				return nil, nil, false
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
					return nil, nil, false
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
					return nil, nil, false
				}
				i++
			}
			heredocs, squiggly = append(heredocs, id), append(squiggly, sq)
			push(rubyTok{pos: off, end: i})
			lx.operand = true
			off = i
			continue
		case c == '%' && !lx.operand && off+1 < n:
			i := off + 1
			if bytes.IndexByte([]byte("qQwWiIrsx"), src[i]) >= 0 {
				i++
			}
			if i < n && !isIdentByte(src[i]) && src[i] != ' ' && src[i] != '\n' && src[i] != '=' {
				e := percentEnd(src, i)
				if e < 0 {
					return nil, nil, false
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
				return nil, nil, false
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
		}
		k, e := lx.next(off)
		switch k {
		case tBad:
			return nil, nil, false
		case tEOF:
			return toks, comments, true
		case tIdent:
			w := string(src[off:e])
			if e < n && (src[e] == '?' || src[e] == '!') && (e+1 >= n || src[e+1] != '=') {
				e++ // a predicate or bang method name
				w = string(src[off:e])
			}
			before := byte(0)
			if off > 0 {
				before = src[off-1]
			}
			label := e < n && src[e] == ':' && (e+1 >= n || src[e+1] != ':')
			kw := rubyKeywords[w] && before != '.' && before != ':' && before != '@' && before != '$' && !label
			if prev == "def" && toks[len(toks)-1].kw {
				kw = false // def end, def class: a method's name
			}
			if !kw {
				w = "id"
			}
			push(rubyTok{pos: off, end: e, word: w, kw: kw, constant: c >= 'A' && c <= 'Z'})
			lx.operand = !kw || w == "end" || w == "self" || w == "nil" || w == "true" || w == "false"
		case tPunct:
			w := string(src[off:e])
			if (c == '&' || c == '|') && e < n && src[e] == c {
				e++
				w = string(src[off:e])
			}
			if c == '=' && e < n && (src[e] == '=' || src[e] == '~') {
				e++
				w = "=="
			}
			push(rubyTok{pos: off, end: e, word: w})
		default:
			push(rubyTok{pos: off, end: e})
		}
		off = e
	}
	return toks, comments, true
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

// percentEnd returns the end of the %-literal whose delimiter is at off.
func percentEnd(src []byte, off int) int {
	open := src[off]
	close := open
	switch open {
	case '(':
		close = ')'
	case '[':
		close = ']'
	case '{':
		close = '}'
	case '<':
		close = '>'
	}
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
