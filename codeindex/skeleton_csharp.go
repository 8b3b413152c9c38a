package codeindex

// plainBody reads the brace body whose '{' ends at off, in a language
// whose bodies hold no definition but where a word says so
// (syntax.plainBodies), and returns the offset of its closing '}', or -1
// when block must read it: a container or def word followed by a name
// (`class C`, `delegate void D(...)`: the body may hold a definition), a
// #define, brackets that do not close where block would close them, or a
// literal or comment the lexer cannot read. Block would leave such a body
// out whole too, but it reads every token with the state of a
// declaration (most of the skeleton's time went to the bodies); this
// passes over names, numbers, blanks and operators byte by byte and asks
// the lexer only where a literal, a comment or a directive may start,
// which are what could hide a bracket.
func (b *bskel) plainBody(off int) int {
	src, sx := b.src, b.sx
	var outer [32]int // the open parentheses of the braces around
	depth, paren := 0, 0
	for off < len(src) {
		c := src[off]
		switch plainBytes[c] {
		case pbOther:
			off++
		case pbIdent:
			e := off + 1
			for e < len(src) && identBytes[src[e]] {
				e++
			}
			if e-off < 32 && sx.defLens[c]&(1<<(e-off)) != 0 {
				if _, f := sx.wordKw(src[off:e]); f&(kwContainer|kwDef) != 0 && b.nameAfter(e) {
					return -1
				}
			}
			off = e
		case pbLex:
			k, e := b.lx.next(off)
			switch k {
			case tBad, tEOF:
				return -1
			case tDirective:
				if b.lx.define {
					return -1
				}
			}
			off = e
		case pbOpen:
			if c == '{' {
				if depth == len(outer) {
					return -1
				}
				outer[depth] = paren
				depth, paren = depth+1, 0
			} else {
				paren++
			}
			off++
		case pbClose:
			if c == '}' {
				if paren != 0 {
					return -1
				}
				if depth == 0 {
					return off
				}
				depth--
				paren = outer[depth]
			} else {
				if paren == 0 {
					return -1
				}
				paren--
			}
			off++
		}
	}
	return -1
}

// Byte classes of plainBody.
const (
	pbOther = iota // a byte of an operator or a blank
	pbIdent        // a byte that starts a name or a number
	pbLex          // a byte that may start a literal, a comment or a directive
	pbOpen
	pbClose
)

var plainBytes = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case identBytes[c]:
			t[c] = pbIdent
		case c == '"' || c == '\'' || c == '@' || c == '/' || c == '#':
			t[c] = pbLex
		case c == '{' || c == '(' || c == '[':
			t[c] = pbOpen
		case c == '}' || c == ')' || c == ']':
			t[c] = pbClose
		}
	}
	return t
}()

// cutDirective leaves out the preprocessor line src[off:e] (the lexer's
// directive) with its indentation and newline, and returns where the
// skeleton reads on. C#'s grammar reads #if, #elif, #else and #endif as
// nodes that hold whole members or statements: one around an attribute,
// a base type or an argument (`#if !NET20 [Serializable] #endif`, most
// of Newtonsoft.Json's files) is a syntax error whose recovery costs more
// than the file's other members, and may lose definitions. Without the
// lines the parser sees every branch, as it does with them; the others
// (#region, #pragma, #nullable...) are nodes that define nothing.
func (b *bskel) cutDirective(off, e int) int {
	src := b.src
	for off > b.from && (src[off-1] == ' ' || src[off-1] == '\t') {
		off--
	}
	if e < len(src) && src[e] == '\n' && (off == 0 || src[off-1] == '\n') {
		e++
	}
	b.cut(off, e)
	return e
}
