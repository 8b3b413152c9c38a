package codeindex

import "bytes"

// tokKind is the kind of a token of the lexer.
type tokKind uint8

const (
	tEOF       tokKind = iota
	tSpace             // white space, newlines included
	tComment           // a line or block comment (lexer.inner is what is inside its markers)
	tDirective         // a preprocessor line (C), continuation lines included
	tString            // a string or character literal, template, heredoc or regular expression
	tIdent             // an identifier or keyword
	tNumber            // a number
	tPunct             // one byte of punctuation, or an arrow (=> ->)
	tBad               // an unterminated literal or comment, or what the lexer cannot read
)

// A lexer reads the tokens of one file by its language's syntax record.
// It keeps what it needs from token to token: whether an operand came last
// (a '/' then divides, else starts a regular expression).
type lexer struct {
	sx      *syntax
	src     []byte
	operand bool   // the last significant token was an operand
	inner   [2]int // of the last comment: its text between the markers
	define  bool   // the last directive was #define
}

// next returns the kind and end of the token at off.
func (lx *lexer) next(off int) (tokKind, int) {
	src, sx := lx.src, lx.sx
	n := len(src)
	if off >= n {
		return tEOF, n
	}
	c := src[off]
	switch c {
	case ' ', '\t', '\r', '\n', '\f', '\v':
		e := off + 1
		for e < n && (src[e] == ' ' || src[e] == '\t' || src[e] == '\r' || src[e] == '\n' || src[e] == '\f' || src[e] == '\v') {
			e++
		}
		return tSpace, e
	}
	if sx.commentStart[c] {
		if e, ok := lx.comment(off); ok {
			if e < 0 {
				return tBad, n
			}
			return tComment, e
		}
	}
	if sx.preproc && c == '#' && lineStartsAt(src, off) {
		return tDirective, lx.directive(off)
	}
	switch {
	case isIdentByte(c) && (c < '0' || c > '9'):
		e := off + 1
		for e < n && isIdentByte(src[e]) {
			e++
		}
		if e < n && sx.rawPrefix && (src[e] == '"' || src[e] == '#') {
			if end, ok := lx.rawString(off, e); ok {
				if end < 0 {
					return tBad, n
				}
				lx.operand = true
				return tString, end
			}
		}
		// Whether an operand came last matters to regular expressions
		// and JSX only (a map lookup per name otherwise saved).
		lx.operand = !sx.regex && !sx.jsx || sx.kw[string(src[off:e])]&kwControl == 0
		return tIdent, e
	case c >= '0' && c <= '9':
		e := off + 1
		for e < n && (isIdentByte(src[e]) || src[e] == '.' && e+1 < n && src[e+1] >= '0' && src[e+1] <= '9' ||
			(src[e] == '+' || src[e] == '-') && (src[e-1] == 'e' || src[e-1] == 'E' || src[e-1] == 'p' || src[e-1] == 'P') && !bytes.HasPrefix(src[off:], []byte("0x")) ||
			src[e] == '\'' && sx.rawPrefix && e+1 < n && isIdentByte(src[e+1])) { // C++ 1'000
			e++
		}
		lx.operand = true
		return tNumber, e
	}
	if sx.literalStart[c] {
		if e, ok := lx.literal(off); ok {
			if e < 0 {
				return tBad, n
			}
			lx.operand = true
			return tString, e
		}
	}
	if c == '<' && sx.jsx && !lx.operand && off+1 < n && (isIdentByte(src[off+1]) || src[off+1] == '>') {
		// JSX: one literal, unless it hides a definition or is none the
		// lexer can read (then the skeleton lets the parser see it all).
		e := lx.jsxElement(off, 0)
		if e < 0 {
			return tBad, n
		}
		lx.operand = true
		return tString, e
	}
	e := off + 1
	if (c == '=' || c == '-') && e < n && src[e] == '>' {
		e++
	}
	lx.operand = c == ')' || c == ']' || c == '}'
	return tPunct, e
}

// lineStartsAt reports whether only blanks come before off on its line
// (and a byte order mark, on the first).
func lineStartsAt(src []byte, off int) bool {
	for i := off - 1; i >= 0; i-- {
		switch src[i] {
		case ' ', '\t':
		case '\n':
			return true
		default:
			return i == 2 && src[0] == 0xef && src[1] == 0xbb && src[2] == 0xbf
		}
	}
	return true
}

// comment returns the end of the comment at off (ok false when none
// starts there; end -1 when it is not closed).
func (lx *lexer) comment(off int) (end int, ok bool) {
	src, sx := lx.src, lx.sx
	rest := src[off:]
	if sx.longBrackets && bytes.HasPrefix(rest, []byte("--[")) {
		if open, close := longBracket(src, off+2); open > 0 {
			lx.inner = [2]int{open, close}
			if close < 0 {
				return -1, true
			}
			return close + (open - (off + 2)), true
		}
	}
	if b := sx.blockComment[0]; b != "" && bytes.HasPrefix(rest, []byte(b)) {
		e := blockEnd(src, off, sx.blockComment, sx.nested)
		if e >= 0 {
			lx.inner = [2]int{off + len(b), e - len(sx.blockComment[1])}
		}
		return e, true
	}
	for _, m := range sx.lineComments {
		if bytes.HasPrefix(rest, []byte(m)) {
			if m == "#" && sx.hashAttr && len(rest) > 1 && rest[1] == '[' {
				return 0, false
			}
			e := bytes.IndexByte(rest, '\n')
			if e < 0 {
				e = len(rest)
			}
			lx.inner = [2]int{off + len(m), off + e}
			return off + e, true
		}
	}
	return 0, false
}

// blockEnd returns the offset after the block comment at off, or -1.
func blockEnd(src []byte, off int, marks [2]string, nested bool) int {
	open, close := []byte(marks[0]), []byte(marks[1])
	depth := 0
	for i := off + len(open); i < len(src); {
		switch {
		case bytes.HasPrefix(src[i:], close):
			if depth == 0 {
				return i + len(close)
			}
			depth--
			i += len(close)
		case nested && bytes.HasPrefix(src[i:], open):
			depth++
			i += len(open)
		default:
			j := bytes.IndexByte(src[i+1:], close[0])
			if nested {
				if k := bytes.IndexByte(src[i+1:], open[0]); k >= 0 && (j < 0 || k < j) {
					j = k
				}
			}
			if j < 0 {
				return -1
			}
			i += 1 + j
		}
	}
	return -1
}

// longBracket reads a Lua long bracket at off ('[' '='* '['): it returns
// where its text starts and the offset of its closing bracket, or open 0
// when none starts at off (close -1 when it is not closed).
func longBracket(src []byte, off int) (open, close int) {
	if off >= len(src) || src[off] != '[' {
		return 0, 0
	}
	i := off + 1
	for i < len(src) && src[i] == '=' {
		i++
	}
	if i >= len(src) || src[i] != '[' {
		return 0, 0
	}
	level := i - off - 1
	end := make([]byte, 0, level+2)
	end = append(end, ']')
	for range level {
		end = append(end, '=')
	}
	end = append(end, ']')
	k := bytes.Index(src[i+1:], end)
	if k < 0 {
		return i + 1, -1
	}
	return i + 1, i + 1 + k
}

// directive returns the end of the preprocessor line at off: its newline,
// after the lines it continues with a backslash and the block comments
// it opens.
func (lx *lexer) directive(off int) int {
	src := lx.src
	i := off + 1
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	lx.define = bytes.HasPrefix(src[i:], []byte("define"))
	for i < len(src) {
		switch src[i] {
		case '\n':
			if src[i-1] != '\\' && !(src[i-1] == '\r' && i >= 2 && src[i-2] == '\\') {
				return i
			}
		case '/':
			if i+1 < len(src) && src[i+1] == '*' {
				if e := blockEnd(src, i, lx.sx.blockComment, false); e > 0 {
					i = e
					continue
				}
				return len(src)
			}
			if i+1 < len(src) && src[i+1] == '/' {
				if k := bytes.IndexByte(src[i:], '\n'); k >= 0 {
					i += k
					continue
				}
				return len(src)
			}
		case '"', '\'':
			i = skipQuoted(src, i, src[i])
			continue
		}
		i++
	}
	return i
}

// literal returns the end of the string, character, template, heredoc or
// regular expression at off (ok false when none starts there; end -1 when
// it is not closed).
func (lx *lexer) literal(off int) (end int, ok bool) {
	src, sx := lx.src, lx.sx
	n := len(src)
	c := src[off]
	switch {
	case sx.lifetimes && c == '\'':
		// 'a' and '\n' are characters, 'a a lifetime.
		if off+1 < n && src[off+1] == '\\' {
			return skipQuoted(src, off, '\''), true
		}
		if off+1 < n {
			l := utf8Len(src[off+1])
			if off+1+l < n && src[off+1+l] == '\'' {
				return off + 2 + l, true
			}
		}
		return off + 1, true
	case sx.triple && (c == '"' || c == '\'' && sx.body == bodyIndent) && bytes.HasPrefix(src[off:], []byte{c, c, c}):
		q := []byte{c, c, c}
		for i := off + 3; i < n; {
			k := bytes.IndexAny(src[i:], string([]byte{'\\', c}))
			if k < 0 {
				return -1, true
			}
			i += k
			if src[i] == '\\' {
				i += 2
				continue
			}
			if bytes.HasPrefix(src[i:], q) {
				e := i + 3
				for e < n && src[e] == c { // """a"""" ends at the last quote
					e++
				}
				return e, true
			}
			i++
		}
		return -1, true
	case sx.verbatim && c == '@' && off+1 < n && src[off+1] == '"':
		for i := off + 2; i < n; i++ {
			if src[i] == '"' {
				if i+1 < n && src[i+1] == '"' {
					i++
					continue
				}
				return i + 1, true
			}
		}
		return -1, true
	case inSet(sx.quotes, c):
		e := skipQuotedML(src, off, c, sx.multiline)
		return e, true
	case c == '`' && sx.backtick == 'r':
		k := bytes.IndexByte(src[off+1:], '`')
		if k < 0 {
			return -1, true
		}
		return off + k + 2, true
	case c == '`' && sx.backtick == 't':
		return lx.template(off), true
	case sx.longBrackets && c == '[':
		if open, close := longBracket(src, off); open > 0 {
			if close < 0 {
				return -1, true
			}
			return close + (open - off), true
		}
	case sx.regex && c == '/' && !lx.operand:
		return regexEnd(src, off, sx.multiline), true
	case sx.heredoc && c == '<' && bytes.HasPrefix(src[off:], []byte("<<<")):
		return heredocEnd(src, off), true
	}
	return 0, false
}

func inSet(set string, c byte) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}

func utf8Len(c byte) int {
	switch {
	case c < 0xC0:
		return 1
	case c < 0xE0:
		return 2
	case c < 0xF0:
		return 3
	}
	return 4
}

// skipQuotedML is skipQuoted where a string may span lines (ml); it returns
// -1 when a multi-line string is not closed.
func skipQuotedML(src []byte, off int, q byte, ml bool) int {
	if !ml {
		return skipQuoted(src, off, q)
	}
	for i := off + 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case q:
			return i + 1
		}
	}
	return -1
}

// template returns the end of the JavaScript template at off, its ${}
// expressions read as code; -1 when it is not closed.
func (lx *lexer) template(off int) int {
	src := lx.src
	for i := off + 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '`':
			return i + 1
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				e := lx.balanced(i + 2)
				if e < 0 {
					return -1
				}
				i = e // the closing brace
			}
		}
	}
	return -1
}

// balanced returns the offset of the '}' that closes the code starting at
// off, or -1.
func (lx *lexer) balanced(off int) int {
	depth := 0
	save := lx.operand
	defer func() { lx.operand = save }()
	lx.operand = false
	for off < len(lx.src) {
		k, e := lx.next(off)
		switch k {
		case tBad, tEOF:
			return -1
		case tPunct:
			switch lx.src[off] {
			case '{':
				depth++
			case '}':
				if depth == 0 {
					return off
				}
				depth--
			}
		}
		off = e
	}
	return -1
}

// regexEnd returns the end of the regular expression at off (its flags
// included); a newline ends a malformed one unless ml (Ruby's /x).
func regexEnd(src []byte, off int, ml bool) int {
	class := false
	for i := off + 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '[':
			class = true
		case ']':
			class = false
		case '\n':
			if !ml {
				return i
			}
		case '/':
			if !class {
				i++
				for i < len(src) && isIdentByte(src[i]) {
					i++
				}
				return i
			}
		}
	}
	return len(src)
}

// heredocEnd returns the end of the PHP heredoc or nowdoc at off, or -1.
func heredocEnd(src []byte, off int) int {
	i := off + 3
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if i < len(src) && (src[i] == '\'' || src[i] == '"') {
		i++
	}
	s := i
	for i < len(src) && isIdentByte(src[i]) {
		i++
	}
	id := src[s:i]
	if len(id) == 0 {
		return off + 3 // a shift, not a heredoc
	}
	nl := bytes.IndexByte(src[i:], '\n')
	if nl < 0 {
		return -1
	}
	for line := i + nl + 1; line < len(src); {
		j := line
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if bytes.HasPrefix(src[j:], id) && (j+len(id) == len(src) || !isIdentByte(src[j+len(id)])) {
			return j + len(id)
		}
		k := bytes.IndexByte(src[line:], '\n')
		if k < 0 {
			return -1
		}
		line += k + 1
	}
	return -1
}

// rawString reads a raw string whose prefix is src[off:e] (Rust r"", r#""#,
// br""; C++ R"d(...)d", u8R, LR…): ok false when the prefix is not one.
func (lx *lexer) rawString(off, e int) (end int, ok bool) {
	src := lx.src
	p := string(src[off:e])
	switch p {
	case "r", "br":
		if lx.sx.lifetimes {
			i := e
			for i < len(src) && src[i] == '#' {
				i++
			}
			if i >= len(src) || src[i] != '"' {
				return 0, false
			}
			close := append([]byte{'"'}, bytes.Repeat([]byte{'#'}, i-e)...)
			k := bytes.Index(src[i+1:], close)
			if k < 0 {
				return -1, true
			}
			return i + 1 + k + len(close), true
		}
	case "b":
		if lx.sx.lifetimes && src[e] == '"' {
			return skipQuotedML(src, e, '"', true), true
		}
	case "R", "u8R", "uR", "UR", "LR":
		if !lx.sx.lifetimes && src[e] == '"' {
			k := bytes.IndexByte(src[e+1:], '(')
			if k < 0 || k > 16 {
				return -1, true
			}
			delim := src[e+1 : e+1+k]
			close := append(append([]byte{')'}, delim...), '"')
			j := bytes.Index(src[e+2+k:], close)
			if j < 0 {
				return -1, true
			}
			return e + 2 + k + j + len(close), true
		}
	}
	return 0, false
}

// maxJSXDepth bounds the nesting of JSX elements and expressions the
// lexer reads.
const maxJSXDepth = 64

// jsxElement returns the end of the JSX element or fragment at off (a '<'
// where an operand is expected), or -1 when it is not one the lexer can
// read (a TypeScript arrow's type parameters, <T,>(x) => x, read as JSX
// never find their closing tag) or an expression in it holds the word
// function or class (it may define something).
func (lx *lexer) jsxElement(off, depth int) int {
	src := lx.src
	n := len(src)
	if depth > maxJSXDepth {
		return -1
	}
	i := skipBlank(src, off+1)
	if i < n && src[i] == '>' { // a fragment
		return lx.jsxChildren(i+1, nil, depth)
	}
	s := i
	for i < n && (isIdentByte(src[i]) || src[i] == '.' || src[i] == ':' || src[i] == '-') {
		i++
	}
	tag := src[s:i]
	if len(tag) == 0 {
		return -1
	}
	for {
		i = skipBlank(src, i)
		if i >= n {
			return -1
		}
		switch c := src[i]; {
		case c == '/' && i+1 < n && src[i+1] == '>':
			return i + 2
		case c == '>':
			return lx.jsxChildren(i+1, tag, depth)
		case c == '{': // {...props}
			if i = lx.jsxExpr(i+1, depth); i < 0 {
				return -1
			}
			i++
			continue
		}
		a := i
		for i < n && (isIdentByte(src[i]) || src[i] == '-' || src[i] == ':') {
			i++
		}
		if i == a {
			return -1 // not an attribute: , of <T,>
		}
		i = skipBlank(src, i)
		if i >= n || src[i] != '=' {
			continue // an attribute without a value
		}
		i = skipBlank(src, i+1)
		if i >= n {
			return -1
		}
		switch src[i] {
		case '"', '\'':
			k := bytes.IndexByte(src[i+1:], src[i])
			if k < 0 {
				return -1
			}
			i += k + 2
		case '{':
			if i = lx.jsxExpr(i+1, depth); i < 0 {
				return -1
			}
			i++
		case '<':
			if i = lx.jsxElement(i, depth+1); i < 0 {
				return -1
			}
		default:
			return -1
		}
	}
}

// jsxChildren returns the end of the closing tag of tag (nil for a
// fragment's) after the children that start at off, or -1.
func (lx *lexer) jsxChildren(off int, tag []byte, depth int) int {
	src := lx.src
	n := len(src)
	for i := off; i < n; {
		switch src[i] {
		case '{':
			if i = lx.jsxExpr(i+1, depth); i < 0 {
				return -1
			}
			i++
		case '<':
			if i+1 < n && src[i+1] == '/' {
				j := skipBlank(src, i+2)
				if !bytes.HasPrefix(src[j:], tag) {
					return -1
				}
				j = skipBlank(src, j+len(tag))
				if j >= n || src[j] != '>' {
					return -1
				}
				return j + 1
			}
			if i = lx.jsxElement(i, depth+1); i < 0 {
				return -1
			}
		default:
			i++ // text: quotes and apostrophes are text
		}
	}
	return -1
}

// jsxExpr returns the offset of the '}' that closes the JavaScript
// expression of JSX starting at off, or -1 where the expression may hold
// a definition (the skeleton then lets the parser see the file whole): the
// word function, class, interface, enum or namespace, `type` before a
// name (a TypeScript alias), an arrow right after an '=' (`const f = (e)
// => {...}` in a callback's body, `a.b = x => x`: render props define
// such functions; block's rule, see arrows there), or a brace right after
// a parenthesis that follows a name that is no control word (a method,
// `m() {}`).
func (lx *lexer) jsxExpr(off, depth int) int {
	if depth > maxJSXDepth {
		return -1
	}
	save := lx.operand
	defer func() { lx.operand = save }()
	lx.operand = false
	src := lx.src
	level := 0
	// The open parentheses: whether a name that is no control word comes
	// before (a method's, when a brace follows), and whether it opens right
	// after an '=' (an arrow's parameters, when => follows).
	var parens [16]struct{ named, afterEq bool }
	np := 0
	tok, eqTok := 0, -10 // significant tokens read, and the number of the last '='
	asyncTok := -10      // the number of the last async
	arrowEq := false     // a parenthesis opened right after '=' closed in this statement
	named := false       // the last token is a name that is no control word
	method := false      // the last token closed a parenthesis after such a name
	for off < len(src) {
		k, e := lx.next(off)
		if k == tSpace || k == tComment {
			off = e
			continue
		}
		tok++
		wasNamed, wasMethod := named, method
		named, method = false, false
		switch k {
		case tBad, tEOF:
			return -1
		case tIdent:
			switch w := string(src[off:e]); w {
			case "function", "class", "interface", "enum", "namespace":
				return -1
			case "type":
				op := lx.operand
				k2, n2 := lx.next(e)
				lx.operand = op
				if k2 == tSpace && n2 < len(src) && identBytes[src[n2]] {
					return -1
				}
			case "async":
				asyncTok = tok
			}
			named = lx.sx.kw[string(src[off:e])]&kwControl == 0
		case tPunct:
			switch c := src[off]; {
			case e-off == 2 && c == '=': // =>
				// = x =>, = async x =>, = (...) =>, = async (...) =>
				if arrowEq || tok == eqTok+2 && wasNamed || tok == eqTok+3 && wasNamed && asyncTok == eqTok+1 {
					return -1
				}
			case c == '=':
				if (off+1 >= len(src) || src[off+1] != '=') && (off == 0 || bytes.IndexByte([]byte("=!<>"), src[off-1]) < 0) {
					eqTok = tok
				}
			case c == '<':
				if tok == eqTok+1 {
					return -1 // = <T,>(x: T) => x
				}
			case c == ';':
				eqTok, arrowEq = -10, false
			case c == '(':
				if np == len(parens) {
					return -1
				}
				parens[np].named = wasNamed
				parens[np].afterEq = tok == eqTok+1 || tok == eqTok+2 && asyncTok == eqTok+1
				np++
			case c == ')':
				if np > 0 {
					np--
					method = parens[np].named
					arrowEq = arrowEq || parens[np].afterEq
				}
			case c == '{':
				if wasMethod {
					return -1
				}
				level++
				eqTok, arrowEq = -10, false
			case c == '}':
				if level == 0 {
					return off
				}
				level--
				eqTok, arrowEq = -10, false
			}
		}
		off = e
	}
	return -1
}

// skipBlank returns the offset of the first byte at or after off that is
// not white space.
func skipBlank(src []byte, off int) int {
	for off < len(src) && (src[off] == ' ' || src[off] == '\t' || src[off] == '\n' || src[off] == '\r') {
		off++
	}
	return off
}
