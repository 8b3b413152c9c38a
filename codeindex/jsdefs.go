package codeindex

import "bytes"

// jsDefs finds the definitions of a JavaScript file in a build without
// tree-sitter, as rustDefs and csDefs do for theirs: it reads the file's
// skeleton (bodies without a definition, parameter lists and large
// literals left out) as a small JavaScript — statements ended by ';' or
// by the grammar's automatic semicolons (asi), declarations, imports and
// exports, classes, object literals, function and arrow expressions, the
// code in templates, and between them expressions read as operands and
// operators — and sets x.caps to the captures of queries/javascript.scm's
// patterns that the walk of the skeleton's parse finds, mapped to the
// file as parseDefs maps them. It reports false, leaving the file to the
// parse, where the text may not be what it reads it as: decorators, JSX,
// Flow's or TypeScript's types, a line comment, an assignment that does
// not start an expression, a newline where the grammar may or may not end
// a statement (after async, let, yield, before =>, in a ternary), a name
// that is not ASCII...
//
// The parse of the skeleton and its walk were two thirds of the
// JavaScript corpus's build. Buffers keep their parse
// (Language.buildPass). TestJSDefsCorpus checks this reader against the
// skeleton's parse file by file, FuzzJSDefs against the parse of any text
// it reads.
//
// What the patterns see of tree-sitter-javascript's nodes: a declaration
// (function, class) runs from its first word (async, function, class) to
// its '}'; a variable_declarator from its name to its value's end; a
// method_definition from its first modifier to its '}'; a
// field_definition from `static` or its name to its value's end, the ';'
// not in it; a pair from its key to its value's end; an
// assignment_expression from its left side's first token to its right
// side's end.
func jsDefs(x *extractor, l *Language, src []byte) bool {
	if x.jsIDs == nil {
		ids, ok := jsCapIDs(l)
		if !ok {
			return false
		}
		x.jsIDs = &ids
	}
	x.js.failAt = -1
	if !x.buildSkeleton(l, src) {
		return false
	}
	r := &x.js
	*r = jsReader{tokReader: tokReader{skelCaps: skelCaps{src: x.sk.buf, name: x.jsIDs.name, caps: r.caps[:0], lines: r.lines[:0]}, failAt: -1, maxDepth: 200}, ids: *x.jsIDs}
	r.lx = lexer{sx: l.syn, src: r.src}
	if bytes.HasPrefix(r.src, []byte("\xef\xbb\xbf")) {
		r.end = 3
	}
	if bytes.HasPrefix(r.src[r.end:], []byte("#!")) {
		// A hash-bang line, a node of its own to the grammar.
		if i := bytes.IndexByte(r.src[r.end:], '\n'); i >= 0 {
			r.end += i
		} else {
			r.end = len(r.src)
		}
	}
	r.advance(false)
	for !r.fail && r.kind != tEOF {
		r.stmt(true)
	}
	if r.fail {
		return false
	}
	x.caps = r.toFile(x.caps[:0], &x.sk) // collect(l, src, &x.sk) fixes the ends and starts
	return true
}

// jsIDs are the capture ids of queries/javascript.scm's definitions
// patterns.
type jsIDs struct {
	name, function, class, method, field, variable, container uint16
}

func jsCapIDs(l *Language) (jsIDs, bool) {
	var ids jsIDs
	want := map[string]*uint16{
		"name": &ids.name, "definition.function": &ids.function, "definition.class": &ids.class, "definition.method": &ids.method,
		"definition.field": &ids.field, "definition.variable": &ids.variable, "container": &ids.container,
	}
	return ids, capIDs(l, want)
}

// The patterns of queries/javascript.scm, in order.
const (
	jsPatFunction = iota
	jsPatGenerator
	jsPatClassDecl
	jsPatClass
	jsPatMemberClass
	jsPatPair
	jsPatMethod
	jsPatField
	jsPatLexicalFunc
	jsPatVarFunc
	jsPatLexical
	jsPatVar
	jsPatExportLexical
	jsPatMemberFunc
)

// What an expression is, as far as the patterns ask: exactly a
// function_expression, a generator_function, an arrow_function, a class,
// or anything else.
const (
	jsOther = iota
	jsFunc
	jsGen
	jsArrow
	jsClass
)

// jsReader reads the definitions of a JavaScript skeleton.
type jsReader struct {
	tokReader // failAt -1 when it did not stop
	lx        lexer
	nl        bool // a newline (or a comment) before the token
	ids       jsIDs
}

// advance reads the next token; operand says whether an operand came
// last (a '/' then divides, else starts a regular expression), which the
// reader knows from where it is, better than the lexer's guess.
func (r *jsReader) advance(operand bool) {
	if r.fail {
		return
	}
	src := r.src
	r.prevEnd = r.end
	r.nl = false
	i := r.end
	for {
		if i < len(src) && (src[i] == '$' || src[i] == '_' || src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z') {
			// A name, '$' in it (the lexer takes '$' for punctuation).
			e := i + 1
			for e < len(src) && (isIdentByte(src[e]) || src[e] == '$') {
				if src[e] >= 0x80 {
					r.pos = e
					r.bad()
					return
				}
				e++
			}
			r.pos, r.end, r.kind = i, e, tIdent
			return
		}
		r.lx.operand = operand
		k, e := r.lx.next(i)
		switch k {
		case tSpace:
			if bytes.IndexByte(src[i:e], '\n') >= 0 {
				r.nl = true
			}
			i = e
			continue
		case tComment:
			if src[i+1] == '*' && bytes.IndexByte(src[i:e], '\n') < 0 {
				// A block comment on one line (the skeleton keeps those
				// between two tokens: `/** @type {T} */(x)`) is a blank
				// to the grammar's automatic semicolons too.
				i = e
				continue
			}
			r.pos = i
			r.bad() // the grammar's automatic semicolons read line comments otherwise
			return
		case tBad, tDirective, tIdent:
			// tIdent: a name that starts with a byte not ASCII.
			r.pos = i
			r.bad()
			return
		case tString:
			if src[i] == '`' {
				if e-i < 2 || src[e-1] != '`' {
					r.pos = i
					r.bad()
					return
				}
			} else if !r.literalOK(i, e) {
				r.pos = i
				r.bad()
				return
			}
		case tPunct:
			if e-i == 2 && src[i] == '-' || src[i] == '@' || src[i] == '\\' || bytes.HasPrefix(src[i:], []byte("<!--")) {
				r.pos = i
				r.bad() // -> (a-->b, an HTML comment), decorators, escapes, <!-- (an HTML comment)
				return
			}
		}
		r.pos, r.end, r.kind = i, e, k
		return
	}
}

// literalOK reports whether the literal src[i:e] is one the reader takes
// whole: a string on one line, a regular expression, a template whose
// ${} hold only names, numbers, strings without braces and operators (no
// function, class or object that the grammar would read there: where the
// reader skips a template, see skip; elsewhere it reads their code); not
// JSX.
func (r *jsReader) literalOK(i, e int) bool {
	src := r.src
	switch src[i] {
	case '"', '\'':
		return e-i >= 2 && src[e-1] == src[i] && bytes.IndexByte(src[i:e], '\n') < 0
	case '/':
		j := e
		for j > i && isIdentByte(src[j-1]) {
			j--
		}
		return j-i >= 2 && src[j-1] == '/' && bytes.IndexByte(src[i:e], '\n') < 0
	case '`':
		if e-i < 2 || src[e-1] != '`' {
			return false
		}
		for j := i + 1; j < e-1; j++ {
			switch src[j] {
			case '\\':
				j++
			case '`':
				return false
			case '$':
				if src[j+1] != '{' {
					continue
				}
				j += 2
				for ; j < e-1 && src[j] != '}'; j++ {
					c := src[j]
					switch {
					case c == '"' || c == '\'':
						k := j + 1
						for k < e-1 && src[k] != c && src[k] != '\\' && src[k] != '\n' && src[k] != '{' && src[k] != '}' && src[k] != '`' {
							k++
						}
						if k >= e-1 || src[k] != c {
							return false
						}
						j = k
					case isIdentByte(c) || c == '$':
						k := j
						for k < e-1 && (isIdentByte(src[k]) || src[k] == '$') {
							k++
						}
						if w := string(src[j:k]); w == "function" || w == "class" || src[j] >= 0x80 {
							return false
						}
						j = k - 1
					case c == '=' && src[j+1] == '>':
						return false
					case bytes.IndexByte([]byte(" \t\n.,()[]+-*%!<>=?:|&^~"), c) < 0:
						return false
					}
				}
				if j >= e-1 {
					return false
				}
			}
		}
		return true
	}
	return false
}

// next reads the next token after an operand or not, by the current one.
func (r *jsReader) next() {
	switch r.kind {
	case tEOF:
		return
	case tIdent:
		r.advance(r.lx.sx.kw[string(r.src[r.pos:r.end])]&kwControl == 0)
	case tNumber, tString:
		r.advance(true)
	default:
		c := r.src[r.pos]
		r.advance(r.end-r.pos == 1 && (c == ')' || c == ']' || c == '}'))
	}
}

// isArrow reports whether the token is =>.
func (r *jsReader) isArrow() bool {
	return r.kind == tPunct && r.end-r.pos == 2 && r.src[r.pos] == '='
}

// byteAfter returns the byte right after the token, or 0.
func (r *jsReader) byteAfter() byte {
	if r.end < len(r.src) {
		return r.src[r.end]
	}
	return 0
}

// expect reads the punctuation p (then a statement or an operand may
// start), or fails.
func (r *jsReader) expect(p byte) {
	if !r.is(p) {
		r.bad()
		return
	}
	r.advance(false)
}

// asi reports whether the grammar's automatic semicolon comes before the
// token, where a statement may end: the end, a '}', or a newline before
// the token unless it starts with what may go on an expression (an
// operator, a bracket, `in`, `instanceof`): the rule of
// tree-sitter-javascript's scanner, which JavaScript's differs from (it
// reads `return\n(x)` as one statement; so does the reader).
func (r *jsReader) asi() bool {
	if r.kind == tEOF || r.is('}') {
		return true
	}
	if !r.nl {
		return false
	}
	src, i := r.src, r.pos
	at := func(j int) byte {
		if j < len(src) {
			return src[j]
		}
		return 0
	}
	alpha := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	switch c := src[i]; c {
	case ',', ':', ';', '*', '%', '>', '<', '=', '[', '(', '?', '^', '|', '&', '/':
		return false
	case '.':
		return at(i+1) >= '0' && at(i+1) <= '9'
	case '+', '-':
		return at(i+1) == c
	case '!':
		return at(i+1) != '='
	case 'i':
		if at(i+1) != 'n' {
			return true
		}
		if !alpha(at(i + 2)) {
			return false // in
		}
		if !bytes.HasPrefix(src[i+2:], []byte("stanceof")) {
			return true
		}
		return alpha(at(i + 10)) // instanceof
	}
	return true
}

// semicolon reads the end of a statement: its ';', or none where the grammar
// puts an automatic semicolon (asi); else it fails.
func (r *jsReader) semicolon() {
	switch {
	case r.is(';'):
		r.advance(false)
	case !r.asi():
		r.bad()
	}
}

// peek returns the kind and offsets of the token after the current one
// (as after an operand when operand), and whether a newline comes before
// it.
func (r *jsReader) peek(operand bool) (k tokKind, pos, end int, nl bool) {
	save := *r
	r.caps = nil // no capture is made
	r.advance(operand)
	k, pos, end, nl = r.kind, r.pos, r.end, r.nl
	if r.fail {
		k = tBad
	}
	caps, lines := save.caps, save.lines
	*r = save
	r.caps, r.lines = caps, lines
	return
}

// name reads an identifier that names a declaration and returns its
// range, or fails.
func (r *jsReader) name() (int, int) {
	if r.kind != tIdent || jsReserved[string(r.src[r.pos:r.end])] {
		r.bad()
		return 0, 0
	}
	s, e := r.pos, r.end
	r.next()
	return s, e
}

// jsReserved are the words the reader takes for no name (some the grammar
// does take: it reads them otherwise where they stand).
var jsReserved = words("break case catch class const continue debugger default delete do else enum export extends finally for function if import in instanceof new return super switch this throw try typeof var void while with null true false undefined yield await let implements interface package private protected public arguments eval")

// def adds a definition over [start, end) named [ns, ne).
func (r *jsReader) def(pattern int, id uint16, start, end, ns, ne int) {
	r.capture(pattern, id, start, end, ns, ne)
}

// stmt reads a statement (top: of the program, where declarations define
// variables).
func (r *jsReader) stmt(top bool) {
	if !r.enter() {
		return
	}
	defer r.leave()
	start := r.pos
	if r.kind == tPunct {
		switch {
		case r.is(';'):
			r.advance(false)
			return
		case r.is('{'):
			r.block()
			return
		}
	}
	if r.kind != tIdent {
		r.exprStmt()
		return
	}
	switch string(r.src[r.pos:r.end]) {
	case "var", "const":
		r.decl(top, false)
	case "let":
		if k, p, _, nl := r.peek(false); nl || !(k == tIdent || k == tPunct && (r.src[p] == '{' || r.src[p] == '[')) {
			r.bad()
			return
		}
		r.decl(top, false)
	case "function":
		r.funcDecl(start)
	case "async":
		if k, p, e, nl := r.peek(false); k == tIdent && !nl && string(r.src[p:e]) == "function" {
			r.next()
			r.funcDecl(start)
			return
		}
		r.exprStmt()
	case "class":
		r.next()
		ns, ne := r.name()
		r.classTail()
		r.def(jsPatClassDecl, r.ids.class, start, r.end, ns, ne)
		r.restart()
	case "if":
		r.next()
		r.parens()
		r.stmt(false)
		if r.word("else") {
			r.advance(false)
			r.stmt(false)
		}
	case "for":
		r.next()
		if r.word("await") {
			r.next()
		}
		if !r.is('(') {
			r.bad()
			return
		}
		r.skip()
		r.restart()
		r.stmt(false)
	case "while", "with":
		r.next()
		r.parens()
		r.stmt(false)
	case "do":
		r.advance(false)
		r.stmt(false)
		if !r.word("while") {
			r.bad()
			return
		}
		r.next()
		r.parens()
		if r.is(';') {
			r.advance(false)
		}
	case "try":
		r.next()
		r.block()
		if r.word("catch") {
			r.next()
			if r.is('(') {
				r.skip()
				r.next()
			}
			r.block()
		}
		if r.word("finally") {
			r.next()
			r.block()
		}
	case "switch":
		r.next()
		r.parens()
		r.expect('{')
		for !r.fail && !r.is('}') {
			switch {
			case r.word("case"):
				r.advance(false)
				r.sequence()
			case r.word("default"):
				r.next()
			default:
				r.bad()
				return
			}
			r.expect(':')
			for !r.fail && !r.is('}') && !r.word("case") && !r.word("default") {
				if r.kind == tEOF {
					r.bad()
					return
				}
				r.stmt(false)
			}
		}
		r.restart()
	case "return", "throw":
		// throw's value is not optional: the grammar puts no semicolon
		// after it (`throw\nx` is one statement to it).
		throw := r.word("throw")
		r.advance(false)
		if !r.is(';') && (throw || !r.asi()) {
			r.sequence()
		}
		r.semicolon()
	case "break", "continue":
		r.next()
		if r.kind == tIdent && !r.nl {
			r.next()
		}
		r.semicolon()
	case "export":
		r.next()
		if !top {
			r.bad()
			return
		}
		def := r.word("default")
		if def {
			r.next()
		}
		switch {
		case (r.word("const") || r.word("let") || r.word("var")) && !def:
			r.decl(true, true)
		case r.word("function") || r.word("async") || r.word("class"):
			r.exportDecl(def)
		case r.is('{') && !def || r.is('*') && !def:
			r.clause() // export { a, b as c } from "m"; export * as ns from "m";
		case def:
			r.sequence() // an object literal too
			r.semicolon()
		default:
			r.bad()
		}
	case "import":
		if k, p, _, _ := r.peek(false); k == tPunct && (r.src[p] == '(' || r.src[p] == '.') {
			r.bad() // import(...), import.meta
			return
		}
		r.next()
		if r.word("type") || r.word("typeof") {
			if k, p, e, _ := r.peek(true); !(k == tIdent && string(r.src[p:e]) == "from" || k == tPunct && r.src[p] == ',') {
				r.bad() // Flow's import type {T}, import typeof X
				return
			}
		}
		r.clause() // import x, { a as b } from "m"; import * as ns from "m"; import "m";
	case "debugger", "else", "case", "default", "catch", "finally", "extends", "enum", "yield":
		r.bad()
	default:
		if k, p, _, _ := r.peek(true); k == tPunct && r.src[p] == ':' {
			// A label: the statement after it is the label's.
			r.name()
			r.expect(':')
			r.stmt(false)
			return
		}
		r.exprStmt()
	}
}

// restart reads the token after the '}' or ')' that is the current one,
// where a statement starts.
func (r *jsReader) restart() {
	if !r.is('}') && !r.is(')') {
		r.bad()
		return
	}
	r.advance(false)
}

// block reads a statement block and the token after it.
func (r *jsReader) block() {
	r.body()
	r.restart()
}

// body reads a block of statements from its '{' to its '}', which stays
// the token.
func (r *jsReader) body() {
	if !r.is('{') {
		r.bad()
		return
	}
	r.advance(false)
	for !r.fail && !r.is('}') {
		if r.kind == tEOF {
			r.bad()
			return
		}
		r.stmt(false)
	}
}

// parens reads a parenthesized condition and the token after it.
func (r *jsReader) parens() {
	if !r.is('(') {
		r.bad()
		return
	}
	r.advance(false)
	r.sequence()
	r.restart()
}

// exprStmt reads an expression statement, which a ';' ends.
func (r *jsReader) exprStmt() {
	if r.is('{') || r.word("function") || r.word("class") {
		r.bad()
		return
	}
	r.sequence()
	r.semicolon()
}

// sequence reads expressions separated by commas.
func (r *jsReader) sequence() {
	for !r.fail {
		r.expr()
		if !r.is(',') {
			return
		}
		r.advance(false)
	}
}

// decl reads a var, let or const declaration (top: of the program;
// exported: after `export`).
func (r *jsReader) decl(top, exported bool) {
	lexical := !r.word("var")
	r.next()
	for !r.fail {
		if r.is('{') || r.is('[') {
			// A pattern: it defines nothing the query takes.
			r.skip()
			r.next()
			if !r.plainEq() {
				r.bad()
				return
			}
			r.advance(false)
			r.expr()
		} else {
			ns, ne := r.name()
			kind := jsOther
			if r.plainEq() {
				r.advance(false)
				kind = r.expr()
			}
			switch {
			case r.fail:
			case kind == jsFunc || kind == jsGen || kind == jsArrow:
				p := jsPatVarFunc
				if lexical {
					p = jsPatLexicalFunc
				}
				r.def(p, r.ids.function, ns, r.prevEnd, ns, ne)
			case top && lexical && exported:
				r.def(jsPatExportLexical, r.ids.variable, ns, r.prevEnd, ns, ne)
			case top && !exported:
				p := jsPatVar
				if lexical {
					p = jsPatLexical
				}
				r.def(p, r.ids.variable, ns, r.prevEnd, ns, ne)
			}
		}
		if !r.is(',') {
			break
		}
		r.advance(false)
	}
	r.semicolon()
}

// plainEq reports whether the token is an assignment's '=' (not ==, =>,
// nor a compound assignment's).
func (r *jsReader) plainEq() bool {
	if !r.is('=') || r.byteAfter() == '=' {
		return false
	}
	if r.pos > 0 && bytes.IndexByte([]byte("=!<>+-*/%&|^?~"), r.src[r.pos-1]) >= 0 {
		return false
	}
	return true
}

// funcDecl reads a function declaration from its `function` (start: its
// first word).
func (r *jsReader) funcDecl(start int) {
	r.next()
	p := jsPatFunction
	if r.is('*') {
		p = jsPatGenerator
		r.next()
	}
	ns, ne := r.name()
	r.params()
	r.body()
	r.def(p, r.ids.function, start, r.end, ns, ne)
	r.restart()
}

// params reads a parameter list (the skeleton empties most).
func (r *jsReader) params() {
	if !r.is('(') {
		r.bad()
		return
	}
	r.skip()
	r.next()
}

// skip reads from the open bracket (the token) to its closer (then the
// token), where nothing may define: it fails on a function, a class, an
// arrow or a method's braces (`) {`).
func (r *jsReader) skip() {
	var stack [64]byte
	depth := 0
	for !r.fail {
		switch {
		case r.kind == tEOF:
			r.bad()
			return
		case r.kind == tIdent && (r.word("function") || r.word("class")), r.isArrow(),
			r.kind == tString && r.src[r.pos] == '`' && !r.literalOK(r.pos, r.end):
			r.bad()
			return
		case r.kind == tPunct:
			switch c := r.src[r.pos]; c {
			case ':', '?':
				if depth == 1 && stack[0] == '(' {
					r.bad() // a type (Flow, TypeScript): `(x: T)`, `(x?)`
					return
				}
			case '(', '[', '{':
				if c == '{' && depth > 0 && r.prevEnd > 0 && r.src[r.prevEnd-1] == ')' {
					r.bad()
					return
				}
				if depth == len(stack) {
					r.bad()
					return
				}
				stack[depth] = c
				depth++
			case ')', ']', '}':
				if depth == 0 || stack[depth-1] != opener(c) {
					r.bad()
					return
				}
				if depth--; depth == 0 {
					return
				}
			}
		}
		r.next()
	}
}

// expr reads an assignment expression (no comma at its top) and returns
// what it is.
func (r *jsReader) expr() int {
	if !r.enter() {
		return jsOther
	}
	defer r.leave()
	start := r.pos
	ncaps := len(r.caps)
	kind, lhs := r.unary()
	if r.fail {
		return jsOther
	}
	if r.plainEq() {
		if lhs.kind == lhsNone || lhs.kind == lhsPattern && len(r.caps) != ncaps {
			r.bad()
			return jsOther
		}
		r.advance(false)
		right := r.expr()
		switch {
		case r.fail:
		case lhs.kind == lhsMember && lhs.objIdent && (right == jsFunc || right == jsArrow):
			i := r.capture(jsPatMemberFunc, r.ids.function, start, r.prevEnd, lhs.ns, lhs.ne)
			// the container, in the same match
			r.caps = append(r.caps, skelCap{r.caps[i].match, jsPatMemberFunc, r.ids.container, lhs.os, lhs.oe})
		case lhs.kind == lhsMember && right == jsClass:
			r.capture(jsPatMemberClass, r.ids.class, start, r.prevEnd, lhs.ns, lhs.ne)
		}
		return jsOther
	}
	ternary := 0
	for !r.fail {
		if r.kind == tEOF {
			return kind
		}
		if r.nl && r.asi() {
			if ternary > 0 {
				r.bad()
			}
			return kind // the grammar's automatic semicolon
		}
		if kind == jsArrow && !(r.kind == tPunct && r.end-r.pos == 1 && bytes.IndexByte([]byte(",;)]}:"), r.src[r.pos]) >= 0) {
			r.bad() // an operator after an arrow function: the grammar ends it with a semicolon
			return jsOther
		}
		if r.kind == tIdent {
			if !r.word("in") && !r.word("instanceof") || r.nl {
				r.bad()
				return jsOther
			}
			r.advance(false)
		} else {
			if r.kind != tPunct || r.isArrow() {
				r.bad()
				return jsOther
			}
			switch c := r.src[r.pos]; c {
			case ',', ';', ')', ']', '}':
				return kind
			case ':':
				if ternary == 0 {
					return kind
				}
				ternary--
				r.advance(false)
			case '?':
				if r.byteAfter() == '?' { // ??, ??=
					r.advance(false)
					r.advance(false)
					if r.is('=') && r.prevEnd == r.pos {
						r.advance(false)
					}
				} else {
					ternary++
					r.advance(false)
				}
			case '=', '+', '-', '*', '/', '%', '<', '>', '&', '|', '^', '!':
				if c == '=' && r.plainEq() {
					r.bad() // an assignment that does not start the expression
					return jsOther
				}
				if (c == '+' || c == '-') && r.byteAfter() == c {
					// a postfix ++ or --
					if r.nl {
						r.bad()
						return jsOther
					}
					r.advance(false)
					r.advance(true)
					kind = jsOther
					continue
				}
				if c == '!' && r.byteAfter() != '=' {
					r.bad()
					return jsOther
				}
				r.advance(false)
				for r.kind == tPunct && r.pos == r.prevEnd && r.end-r.pos == 1 && bytes.IndexByte([]byte("=<>&|*"), r.src[r.pos]) >= 0 {
					r.advance(false) // the operator's other bytes
				}
			default:
				r.bad()
				return jsOther
			}
		}
		kind = jsOther
		if _, lhs := r.unary(); lhs.kind != lhsNone && r.plainEq() {
			r.bad()
			return jsOther
		}
	}
	return jsOther
}

// What the left side of an assignment is.
const (
	lhsNone    = iota // no target (a call, a literal, an operator's result)
	lhsName           // an identifier, a subscript, a member with a private name
	lhsMember         // a member with a property_identifier
	lhsPattern        // an array or object (a destructuring pattern)
)

// lhsInfo is what unary read, as an assignment's left side.
type lhsInfo struct {
	kind     int
	objIdent bool // a member whose object is an identifier: os..oe
	os, oe   int
	ns, ne   int // the property's name
}

// unary reads an operand: prefixes, a primary, then members, calls,
// subscripts and tagged templates. It returns what it is, and what it is
// as an assignment's left side.
func (r *jsReader) unary() (int, lhsInfo) {
	if !r.enter() {
		return jsOther, lhsInfo{}
	}
	defer r.leave()
	var lhs lhsInfo
	src := r.src
	start := r.pos
	switch r.kind {
	case tNumber, tString:
		r.template()
		r.next()
		r.chain(&lhs, start)
		return jsOther, lhsInfo{}
	case tPunct:
		switch c := src[r.pos]; c {
		case '!', '~', '+', '-':
			if (c == '+' || c == '-') && r.byteAfter() == c {
				r.advance(false)
			}
			r.advance(false)
			r.unary()
			return jsOther, lhsInfo{}
		case '.':
			if r.byteAfter() != '.' { // a spread: ...x
				r.bad()
				return jsOther, lhsInfo{}
			}
			r.advance(false)
			r.advance(false)
			r.expect('.')
			r.expr()
			return jsOther, lhsInfo{}
		case '#':
			// #x in obj
			r.next()
			if r.kind != tIdent || r.pos != r.prevEnd {
				r.bad()
			}
			r.next()
			return jsOther, lhsInfo{}
		case '(':
			if r.arrowParens() {
				r.params()
				return r.arrowBody(), lhsInfo{}
			}
			r.advance(false)
			r.sequence()
			if !r.is(')') {
				r.bad()
				return jsOther, lhsInfo{}
			}
			r.next()
			lhs.kind = lhsName // (a) = 1
			r.chain(&lhs, start)
			return jsOther, lhs
		case '[':
			r.advance(false)
			for !r.fail && !r.is(']') {
				if r.is(',') {
					r.advance(false)
					continue
				}
				r.expr()
				if !r.is(',') {
					break
				}
				r.advance(false)
			}
			if !r.is(']') {
				r.bad()
				return jsOther, lhsInfo{}
			}
			r.next()
			lhs.kind = lhsPattern
			r.chain(&lhs, start)
			return jsOther, lhs
		case '{':
			r.object()
			r.next()
			lhs.kind = lhsPattern
			r.chain(&lhs, start)
			return jsOther, lhs
		}
		r.bad()
		return jsOther, lhsInfo{}
	case tIdent:
	default:
		r.bad()
		return jsOther, lhsInfo{}
	}
	w := string(src[r.pos:r.end])
	switch w {
	case "function":
		r.next()
		kind := jsFunc
		if r.is('*') {
			kind = jsGen
			r.next()
		}
		if r.kind == tIdent {
			r.name()
		}
		r.params()
		r.body()
		r.next()
		if r.chain(&lhs, start) {
			return jsOther, lhsInfo{}
		}
		return kind, lhsInfo{}
	case "class":
		r.next()
		if r.kind == tIdent && !r.word("extends") {
			ns, ne := r.name()
			r.classTail()
			r.def(jsPatClass, r.ids.class, start, r.end, ns, ne)
		} else {
			r.classTail()
		}
		r.next()
		if r.chain(&lhs, start) {
			return jsOther, lhsInfo{}
		}
		return jsClass, lhsInfo{}
	case "async":
		k, p, e, nl := r.peek(true)
		switch {
		case k == tIdent && !nl && string(src[p:e]) == "function":
			r.next()
			return r.unary()
		case k == tPunct && !nl && src[p] == '(':
			r.next()
			if r.arrowParens() {
				r.params()
				return r.arrowBody(), lhsInfo{}
			}
			// a call of a function named async
			r.chain(&lhs, start)
			return jsOther, lhsInfo{}
		case k == tIdent && !nl:
			r.next()
			if k, p, _, _ := r.peek(true); k != tPunct || src[p] != '=' || !r.arrowAt(p) {
				r.bad()
				return jsOther, lhsInfo{}
			}
			r.next()
			return r.arrowBody(), lhsInfo{}
		}
	case "new", "typeof", "void", "delete", "await":
		r.advance(false)
		if w == "new" && r.is('.') {
			r.bad() // new.target
			return jsOther, lhsInfo{}
		}
		r.unary()
		if w == "new" {
			r.chain(&lhs, start)
		}
		return jsOther, lhsInfo{}
	case "yield":
		r.advance(false)
		if r.nl {
			r.bad()
			return jsOther, lhsInfo{}
		}
		if r.is('*') {
			r.advance(false)
		}
		if r.kind == tEOF || r.kind == tPunct && bytes.IndexByte([]byte(",;)]}:"), src[r.pos]) >= 0 {
			return jsOther, lhsInfo{}
		}
		r.expr()
		return jsOther, lhsInfo{}
	case "this", "super", "null", "true", "false", "undefined":
		r.next()
		lhs.kind = lhsNone
		if w == "this" || w == "super" {
			lhs.kind = lhsName
		}
		r.chain(&lhs, start)
		return jsOther, lhs
	case "import", "let", "if", "for", "while", "do", "try", "switch", "return", "throw", "break", "continue", "var", "const",
		"else", "case", "default", "catch", "finally", "export", "extends", "debugger", "with", "enum", "in", "instanceof":
		r.bad()
		return jsOther, lhsInfo{}
	}
	// A name; an arrow's parameter when => follows.
	if k, p, _, _ := r.peek(true); k == tPunct && src[p] == '=' && r.arrowAt(p) {
		r.next()
		return r.arrowBody(), lhsInfo{}
	}
	os, oe := r.pos, r.end
	r.next()
	lhs.kind, lhs.os, lhs.oe = lhsName, os, oe
	r.chain(&lhs, start)
	return jsOther, lhs
}

// arrowAt reports whether the token at p is =>.
func (r *jsReader) arrowAt(p int) bool {
	return p+1 < len(r.src) && r.src[p] == '=' && r.src[p+1] == '>'
}

// arrowParens reports whether the parenthesis (the token) holds an arrow
// function's parameters: => follows its closer.
func (r *jsReader) arrowParens() bool {
	save := *r
	r.caps = nil
	depth := 0
	arrow := false
	for !r.fail && r.kind != tEOF {
		if r.kind == tPunct {
			switch r.src[r.pos] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			}
			if depth == 0 {
				r.next()
				arrow = r.isArrow() && !r.nl
				break
			}
		}
		r.next()
	}
	caps, lines := save.caps, save.lines
	*r = save
	r.caps, r.lines = caps, lines
	return arrow
}

// arrowBody reads an arrow function from its => (the token).
func (r *jsReader) arrowBody() int {
	if !r.isArrow() || r.nl {
		r.bad()
		return jsOther
	}
	r.advance(false)
	if r.is('{') {
		r.body()
		r.next()
		return jsArrow
	}
	r.expr()
	return jsArrow
}

// chain reads what follows an operand: members, calls, subscripts,
// tagged templates. It reports whether it read any, and sets lhs for the
// last: a member with a property_identifier (its object an identifier
// when the member is the first of the chain after a name at os..oe), a
// subscript or a private member (a name), a call (none).
func (r *jsReader) chain(lhs *lhsInfo, start int) bool {
	any := false
	first := lhs.kind == lhsName && lhs.oe > lhs.os
	for !r.fail {
		if r.nl && r.asi() {
			return any // the grammar's automatic semicolon
		}
		switch {
		case r.is('.') || r.is('?') && r.byteAfter() == '.':
			optional := r.is('?')
			r.next()
			if optional {
				r.next()
				if r.is('(') || r.is('[') {
					continue // a?.(x), a?.[x]
				}
			}
			if r.is('#') {
				r.next()
				if r.kind != tIdent || r.pos != r.prevEnd {
					r.bad()
					return any
				}
				r.next()
				lhs.kind = lhsName
				if optional {
					lhs.kind = lhsNone
				}
				first = false
				any = true
				continue
			}
			if r.kind != tIdent {
				r.bad()
				return any
			}
			lhs.ns, lhs.ne = r.pos, r.end
			lhs.kind = lhsMember
			if optional {
				lhs.kind = lhsNone
			}
			lhs.objIdent = first && !jsNotIdent[string(r.src[lhs.os:lhs.oe])]
			first = false
			r.advance(true)
		case r.is('('):
			r.advance(false)
			for !r.fail && !r.is(')') {
				r.expr()
				if !r.is(',') {
					break
				}
				r.advance(false)
			}
			if !r.is(')') {
				r.bad()
				return any
			}
			r.next()
			lhs.kind = lhsNone
			first = false
		case r.is('['):
			r.advance(false)
			r.sequence()
			if !r.is(']') {
				r.bad()
				return any
			}
			r.next()
			lhs.kind = lhsName
			first = false
		case r.kind == tString && r.src[r.pos] == '`':
			r.template()
			r.next()
			lhs.kind = lhsNone
			first = false
		default:
			return any
		}
		any = true
	}
	return any
}

// jsNotIdent are the words that are no identifier as a member's object
// (tree-sitter reads them as nodes of their own).
var jsNotIdent = words("this super null true false undefined")

// classTail reads a class from after its name: its heritage and its body,
// whose '}' stays the token.
func (r *jsReader) classTail() {
	if r.word("extends") {
		r.advance(false)
		r.unary()
	}
	if !r.is('{') {
		r.bad()
		return
	}
	r.advance(false)
	for !r.fail && !r.is('}') {
		if r.is(';') {
			r.advance(false)
			continue
		}
		r.member(true)
	}
}

// object reads an object literal from its '{' (the token) to its '}'
// (then the token).
func (r *jsReader) object() {
	r.advance(false)
	for !r.fail && !r.is('}') {
		if r.is('.') {
			r.unary() // ...x
		} else {
			r.member(false)
		}
		if r.is(',') {
			r.advance(false)
			continue
		}
		if !r.is('}') {
			r.bad()
		}
	}
}

// member reads a member of a class body (class) or an object literal.
func (r *jsReader) member(class bool) {
	if !r.enter() {
		return
	}
	defer r.leave()
	src := r.src
	start := r.pos
	// Modifiers: words before a name (not a name themselves: `get() {}`,
	// `static = 1`, `async: 1`).
	modifier := func(w string) bool {
		if !r.word(w) {
			return false
		}
		k, p, _, nl := r.peek(true)
		if k == tPunct && bytes.IndexByte([]byte("(=;},:"), src[p]) >= 0 || k == tEOF {
			return false
		}
		if nl {
			r.bad()
			return false
		}
		r.next()
		return true
	}
	static := class && modifier("static")
	if static && r.is('{') {
		r.block() // a static block
		return
	}
	fn := modifier("async") // a method's modifiers
	if r.is('*') {
		fn = true
		r.next()
	} else if modifier("get") || modifier("set") {
		fn = true
	}
	// The name.
	named := false // a property_identifier or a private one
	ns, ne := r.pos, r.end
	switch {
	case r.kind == tIdent:
		named = true
		r.next()
	case r.is('#') && class:
		r.next()
		if r.kind != tIdent || r.pos != r.prevEnd {
			r.bad()
			return
		}
		ne = r.end
		named = true
		r.next()
	case r.kind == tString && (src[r.pos] == '"' || src[r.pos] == '\''), r.kind == tNumber:
		r.next()
	case r.is('['):
		r.advance(false)
		r.expr()
		if !r.is(']') {
			r.bad()
			return
		}
		r.next()
	default:
		r.bad()
		return
	}
	switch {
	case r.is('('):
		r.params()
		r.body()
		if named {
			r.def(jsPatMethod, r.ids.method, start, r.end, ns, ne)
		}
		r.next()
		if class && r.is(';') {
			r.advance(false)
		}
	case fn:
		r.bad()
	case class:
		// A field: `x;`, `x = value;`, `static x;`
		if r.plainEq() {
			r.advance(false)
			r.expr()
		}
		if named && !r.fail {
			r.def(jsPatField, r.ids.field, start, r.prevEnd, ns, ne)
		}
		r.semicolon()
	case r.is(':'):
		r.advance(false)
		kind := r.expr()
		if named && src[ns] != '#' && kind == jsFunc && !r.fail {
			r.def(jsPatPair, r.ids.method, start, r.prevEnd, ns, ne)
		}
	case named && (r.is(',') || r.is('}')):
		// a shorthand property
		if jsReserved[string(src[ns:ne])] || jsNotIdent[string(src[ns:ne])] {
			r.bad()
		}
	default:
		r.bad()
	}
}

// opener returns the opening bracket of the closer c.
func opener(c byte) byte {
	switch c {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}

// template reads the code in the ${} of a template (the token, whose
// extent is the lexer's: the reading must end where it does), which
// stays the token.
func (r *jsReader) template() {
	src := r.src
	start, end := r.pos, r.end
	if r.kind != tString || src[start] != '`' || !r.enter() {
		return
	}
	defer r.leave()
	for i := start + 1; !r.fail; {
		for i < end && src[i] != '`' && !(src[i] == '$' && i+1 < end && src[i+1] == '{') {
			if src[i] == '\\' {
				i++
			}
			i++
		}
		if i >= end {
			r.bad()
			return
		}
		if src[i] == '`' {
			if i != end-1 {
				r.bad()
				return
			}
			break
		}
		r.end = i + 2
		r.advance(false)
		r.sequence()
		if !r.is('}') {
			r.bad()
			return
		}
		i = r.end
	}
	if !r.fail {
		r.pos, r.end, r.kind = start, end, tString
	}
}

// clause reads the rest of an import declaration or of an export of names
// (export { a }, export * from), which define nothing: names (two in a
// row only with as or from: not Flow's `import type {T}`), strings,
// braces, commas and '*', up to its source string (or the '}' of an
// export without one) and its end.
func (r *jsReader) clause() {
	prevWord := ""
	for !r.fail {
		switch {
		case r.kind == tIdent:
			w := string(r.src[r.pos:r.end])
			if prevWord != "" && w != "as" && w != "from" && prevWord != "as" && prevWord != "from" {
				r.bad()
				return
			}
			r.next()
			prevWord = w
			continue
		case r.kind == tString && (r.src[r.pos] == '"' || r.src[r.pos] == '\''):
			r.next()
			r.semicolon()
			return
		case r.is('}'):
			r.next()
			if !r.word("from") {
				r.semicolon()
				return
			}
		case r.is('{') || r.is(',') || r.is('*'):
			r.next()
		default:
			r.bad()
			return
		}
		prevWord = ""
	}
}

// exportDecl reads an exported function or class from its first word
// (def: after `export default`, where one without a name is an
// expression: `export default function () {}`).
func (r *jsReader) exportDecl(def bool) {
	start := r.pos
	if r.word("async") {
		if k, p, e, nl := r.peek(false); k != tIdent || nl || string(r.src[p:e]) != "function" {
			r.bad()
			return
		}
		r.next()
	}
	// Named: function f, function* (a generator's name must follow),
	// class C (not class extends B).
	k, p, e, _ := r.peek(false)
	named := k == tIdent && string(r.src[p:e]) != "extends" || r.word("function") && k == tPunct && r.src[p] == '*'
	switch {
	case r.word("class") && named:
		r.next()
		ns, ne := r.name()
		r.classTail()
		r.def(jsPatClassDecl, r.ids.class, start, r.end, ns, ne)
		r.restart()
	case r.word("function") && named:
		r.funcDecl(start)
	case def && start == r.pos:
		// An anonymous function or class: its statement ends at its '}'
		// where a newline and a word follow (the grammar's own rule
		// is no semicolon after the declaration).
		if r.word("class") {
			r.next()
			r.classTail()
		} else {
			r.next()
			r.params()
			r.body()
		}
		r.next()
		if r.is(';') {
			r.advance(false)
			return
		}
		if r.kind != tEOF && !(r.nl && r.kind == tIdent) {
			r.bad()
		}
	default:
		r.bad()
	}
}
