package codeindex

import (
	"bytes"
	"slices"

	sitter "github.com/smacker/go-tree-sitter"
)

// luaDefs finds the definitions of a Lua file without tree-sitter: a
// reader of Lua's own syntax (lparser.c's statements and expressions,
// nothing kept but what the patterns of queries/lua.scm look at) sets
// x.caps to the captures that the definitions walk finds in a full parse
// of the file (its comments blanked, as the skeleton parse sees it), in
// the walk's terms: patterns, capture ids and node ranges. It reports
// false, leaving the file to the parser, for text it cannot read (a
// syntax error, or syntax it does not know).
//
// tree-sitter-lua's parse costs more than ctags' whole run, and its
// scanner keeps state in C globals, so its parses take turns
// (serialParse): this reader takes a fifth of the time of the skeleton's
// parse and runs on every core. TestLuaDefsCorpus checks it against the
// full parse file by file, TestLuaDefsSnippets on the corners below.
//
// What the patterns see of the grammar (tjdevries' tree-sitter-lua):
//   - function_statement: `function a.b:c() end` is a function_name whose
//     named children are the identifiers and the table_dot / table_colon
//     between them (patterns 0, 2, 3); `local function f` names an
//     identifier (pattern 1).
//   - variable_declaration: `local a, b = x, y` and `a.b, c[d] = x, y`,
//     each target a variable_declarator whose named children are those
//     of the variable with every hidden node (_var, _prefix_exp) flattened:
//     `a.b.c` has the identifiers a, b, c; `a[k]` a and k; `f().x` a
//     function_call and x; `(a).x` left_paren, a, right_paren and x. A
//     declarator of one identifier (4), or each identifier after another
//     that the query engine takes for its last named child (5, the other
//     the container: see luaOpen), is a function when some value is a
//     function literal; of one identifier, at the top level, a variable
//     (6).
//   - field: `name = function() end` in a table constructor (7).
func luaDefs(x *extractor, l *Language, src []byte) bool {
	if x.luaIDs == nil {
		ids, ok := luaCapIDs(l)
		if !ok {
			return false
		}
		x.luaIDs = &ids
	}
	p := &x.lua
	*p = luaParser{src: src, ids: *x.luaIDs, caps: p.caps[:0], offs: p.offs[:0], items: p.items[:0]}
	if len(src) >= 2 && src[0] == '#' {
		// A first line starting with # (a shebang) is not Lua.
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			p.pos = i
		} else {
			p.pos = len(src)
		}
	}
	p.next()
	p.block(true)
	if !p.fail && p.tok != ltEOF {
		p.fail = true
	}
	if !p.fail {
		x.caps = p.captures(x.caps[:0])
	}
	p.src = nil // the text is not the extractor's to keep (a buffer's)
	return !p.fail
}

// luaIDs are the capture ids of queries/lua.scm's definitions patterns.
type luaIDs struct {
	name, function, container, method, variable uint16
}

// luaCapIDs returns the capture ids of l's definitions (loaded), as the
// walk numbers them.
func luaCapIDs(l *Language) (luaIDs, bool) {
	var ids luaIDs
	want := map[string]*uint16{
		"name": &ids.name, "definition.function": &ids.function, "container": &ids.container,
		"definition.method": &ids.method, "definition.variable": &ids.variable,
	}
	return ids, capIDs(l, want)
}

// The patterns of queries/lua.scm, in order.
const (
	luaPatFunc      = iota // function f
	luaPatLocalFunc        // local function f
	luaPatDotFunc          // function a.b
	luaPatMethod           // function a:b
	luaPatVarFunc          // x = function
	luaPatFieldVar         // a.b = function
	luaPatTopVar           // x = 1 at the top level
	luaPatFieldFunc        // { name = function }
)

// Tokens of luaParser.
const (
	ltEOF = iota
	ltName
	ltKeyword // p.kw
	ltString
	ltNumber
	ltOp // p.op: the byte of one-byte operators, or one of the luaOp constants
)

// Operators of more than one byte.
const (
	luaOpEq     = 128 + iota // ==
	luaOpNe                  // ~=
	luaOpLe                  // <=
	luaOpGe                  // >=
	luaOpShl                 // <<
	luaOpShr                 // >>
	luaOpIdiv                // //
	luaOpConcat              // ..
	luaOpDots                // ...
	luaOpLabel               // ::
)

// Keywords.
const (
	lkNone = iota
	lkAnd
	lkBreak
	lkDo
	lkElse
	lkElseif
	lkEnd
	lkFalse
	lkFor
	lkFunction
	lkGoto
	lkIf
	lkIn
	lkLocal
	lkNil
	lkNot
	lkOr
	lkRepeat
	lkReturn
	lkThen
	lkTrue
	lkUntil
	lkWhile
)

// Classes of bytes (luaByte).
const (
	lbOther = iota
	lbSpace
	lbName  // ASCII letters and '_': a name starts and goes on
	lbDigit // a name goes on
)

// luaByte is the class of each byte (a table: the tokenizer's loops over
// names and white space are most of its time).
var luaByte = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_':
			t[c] = lbName
		case c >= '0' && c <= '9':
			t[c] = lbDigit
		case c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			t[c] = lbSpace
		}
	}
	return t
}()

// luaNumber reports whether w, read as Lua's lexer reads a numeral (its
// letters, digits, dots and exponent signs), is a well-formed one:
// decimal (3, 3.0, .5, 1e-3) or hexadecimal (0xff, 0x1p4).
func luaNumber(w []byte) bool {
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	hex := func(c byte) bool { return digit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	isDigit, exp1, exp2 := digit, byte('e'), byte('E')
	if len(w) > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X') {
		w = w[2:]
		isDigit, exp1, exp2 = hex, 'p', 'P'
	}
	i, digits := 0, 0
	for i < len(w) && isDigit(w[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(w) && w[i] == '.' {
		i++
		for i < len(w) && isDigit(w[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(w) && (w[i] == exp1 || w[i] == exp2) {
		i++
		if i < len(w) && (w[i] == '+' || w[i] == '-') {
			i++
		}
		if i == len(w) || !digit(w[i]) {
			return false
		}
		for i < len(w) && digit(w[i]) {
			i++
		}
	}
	return i == len(w)
}

// luaKeyword returns the keyword w is, or lkNone.
func luaKeyword(w []byte) int {
	if len(w) < 2 || len(w) > 8 || w[0] < 'a' {
		return lkNone
	}
	switch string(w) {
	case "and":
		return lkAnd
	case "break":
		return lkBreak
	case "do":
		return lkDo
	case "else":
		return lkElse
	case "elseif":
		return lkElseif
	case "end":
		return lkEnd
	case "false":
		return lkFalse
	case "for":
		return lkFor
	case "function":
		return lkFunction
	case "goto":
		return lkGoto
	case "if":
		return lkIf
	case "in":
		return lkIn
	case "local":
		return lkLocal
	case "nil":
		return lkNil
	case "not":
		return lkNot
	case "or":
		return lkOr
	case "repeat":
		return lkRepeat
	case "return":
		return lkReturn
	case "then":
		return lkThen
	case "true":
		return lkTrue
	case "until":
		return lkUntil
	case "while":
		return lkWhile
	}
	return lkNone
}

// luaCap is a capture by byte offsets (luaParser.captures makes them
// captures).
type luaCap struct {
	match          uint32
	pattern, index uint16
	start, end     int32
}

// A luaItem is a named child of a variable_declarator: an identifier or
// another node, and whether the patterns take it for the last named
// child.
type luaItem struct {
	ident      bool
	last       uint8 // luaOpen, luaLast, luaNotLast
	start, end int32
}

// Whether a named child of a variable_declarator is its last, as the
// query engine (and the walk) sees it: ts_tree_cursor_current_status
// looks for later named siblings only at the first level up (through the
// hidden nodes _var and _prefix_exp that the declarator's children are
// flattened from) where the node has later siblings at all. So the
// identifiers that end the key of `t[k]` or `t[a.b].c` are last (only
// "]" follows them there), those before a '.' or '[' are not, and those
// in parentheses not either (right_paren is named). luaOpen: not yet
// known (the level that decides is further up).
const (
	luaOpen = iota
	luaLast
	luaNotLast
)

type luaParser struct {
	src  []byte
	pos  int // after the current token
	ids  luaIDs
	fail bool
	// The current token: its kind, start and end, keyword or operator.
	tok, kw, op int
	ts, te      int
	prevEnd     int // the end of the token before the current one
	caps        []luaCap
	match       uint32
	items       []luaItem // the named children of the targets being read (a stack)
	depth       int       // of blocks and expressions (enter)
	offs        []luaOff  // reused by captures
}

// next reads the next token (comments and white space skipped).
func (p *luaParser) next() {
	src := p.src
	n := len(src)
	p.prevEnd = p.te
	i := p.pos
	for {
		for i < n && luaByte[src[i]] == lbSpace {
			i++
		}
		if i+1 < n && src[i] == '-' && src[i+1] == '-' {
			if i+2 < n && src[i+2] == '[' {
				if open, close := longBracket(src, i+2); open > 0 {
					if close < 0 {
						p.fail = true
						p.tok, p.ts, p.te, p.pos = ltEOF, n, n, n
						return
					}
					i = close + (open - (i + 2))
					continue
				}
			}
			k := bytes.IndexByte(src[i:], '\n')
			if k < 0 {
				i = n
			} else {
				i += k
			}
			continue
		}
		break
	}
	p.ts = i
	if i >= n {
		p.tok, p.te, p.pos = ltEOF, n, n
		return
	}
	c := src[i]
	switch {
	case luaByte[c] == lbName:
		e := i + 1
		for e < n && luaByte[src[e]] >= lbName {
			e++
		}
		p.tok, p.te = ltName, e
		if k := luaKeyword(src[i:e]); k != lkNone {
			p.tok, p.kw = ltKeyword, k
		}
	case c >= '0' && c <= '9' || c == '.' && i+1 < n && src[i+1] >= '0' && src[i+1] <= '9':
		e := i + 1
		for e < n {
			d := src[e]
			if isIdentByte(d) || d == '.' || (d == '+' || d == '-') && (src[e-1] == 'e' || src[e-1] == 'E' || src[e-1] == 'p' || src[e-1] == 'P') {
				e++
				continue
			}
			break
		}
		if !luaNumber(src[i:e]) {
			p.fail = true // malformed: `2local`, LuaJIT's 1ULL
			p.tok, p.te, p.pos = ltEOF, n, n
			return
		}
		p.tok, p.te = ltNumber, e
	case c == '"' || c == '\'':
		e := i + 1
		for {
			if e >= n || src[e] == '\n' {
				p.fail = true
				p.tok, p.te, p.pos = ltEOF, n, n
				return
			}
			if src[e] == '\\' {
				e += 2
				if e-1 < n && src[e-1] == '\r' && e < n && src[e] == '\n' {
					e++
				}
				continue
			}
			if src[e] == c {
				e++
				break
			}
			e++
		}
		p.tok, p.te = ltString, e
	case c == '[' && i+1 < n && (src[i+1] == '[' || src[i+1] == '='):
		open, close := longBracket(src, i)
		if open > 0 {
			if close < 0 {
				p.fail = true
				p.tok, p.te, p.pos = ltEOF, n, n
				return
			}
			p.tok, p.te = ltString, close+(open-i)
			break
		}
		p.tok, p.op, p.te = ltOp, '[', i+1
	default:
		p.tok, p.op, p.te = ltOp, int(c), i+1
		if i+1 < n {
			d := src[i+1]
			switch {
			case c == '=' && d == '=':
				p.op = luaOpEq
			case c == '~' && d == '=':
				p.op = luaOpNe
			case c == '<' && d == '=':
				p.op = luaOpLe
			case c == '>' && d == '=':
				p.op = luaOpGe
			case c == '<' && d == '<':
				p.op = luaOpShl
			case c == '>' && d == '>':
				p.op = luaOpShr
			case c == '/' && d == '/':
				p.op = luaOpIdiv
			case c == ':' && d == ':':
				p.op = luaOpLabel
			case c == '.' && d == '.':
				p.op = luaOpConcat
				if i+2 < n && src[i+2] == '.' {
					p.op, p.te = luaOpDots, i+3
				}
			}
			if p.op >= 128 && p.op != luaOpDots {
				p.te = i + 2
			}
		}
	}
	p.pos = p.te
}

func (p *luaParser) isOp(op int) bool { return p.tok == ltOp && p.op == op }
func (p *luaParser) isKw(kw int) bool { return p.tok == ltKeyword && p.kw == kw }
func (p *luaParser) expectOp(op int)  { p.expect(p.isOp(op)) }
func (p *luaParser) expectKw(kw int)  { p.expect(p.isKw(kw)) }
func (p *luaParser) expectName() (int, int) {
	s, e := p.ts, p.te
	p.expect(p.tok == ltName)
	return s, e
}

// expect reads past the current token when ok, else fails.
func (p *luaParser) expect(ok bool) {
	if !ok {
		p.fail = true
		p.tok = ltEOF
		return
	}
	p.next()
}

// peekAssign reports whether the token after the current one is '='
// (not '==').
func (p *luaParser) peekAssign() bool {
	pos, tok, kw, op, ts, te, prevEnd := p.pos, p.tok, p.kw, p.op, p.ts, p.te, p.prevEnd
	p.next()
	ok := p.isOp('=')
	p.pos, p.tok, p.kw, p.op, p.ts, p.te, p.prevEnd, p.fail = pos, tok, kw, op, ts, te, prevEnd, false
	return ok
}

// capture adds a capture to the current match.
func (p *luaParser) capture(pattern int, index uint16, start, end int) {
	p.caps = append(p.caps, luaCap{match: p.match, pattern: uint16(pattern), index: index, start: int32(start), end: int32(end)})
}

// luaMaxDepth is how deep blocks and expressions may nest (Lua's own
// limit, LUAI_MAXCCALLS): deeper text is left to the parser rather than
// to a recursion as deep as the file is long.
const luaMaxDepth = 200

// enter goes one level deeper (a block or an expression); false, and
// the reading fails, past luaMaxDepth.
func (p *luaParser) enter() bool {
	p.depth++
	if p.depth > luaMaxDepth {
		p.fail = true
		p.tok = ltEOF
	}
	return !p.fail
}

func (p *luaParser) leave() { p.depth-- }

// blockEnds reports whether the current token ends a block.
func (p *luaParser) blockEnds() bool {
	switch p.tok {
	case ltEOF:
		return true
	case ltKeyword:
		switch p.kw {
		case lkElse, lkElseif, lkEnd, lkUntil:
			return true
		}
	}
	return false
}

// block reads statements up to what ends the block; top: the file's.
func (p *luaParser) block(top bool) {
	if !p.enter() {
		return
	}
	defer p.leave()
	for !p.fail && !p.blockEnds() {
		if p.isKw(lkReturn) {
			p.next()
			if !p.blockEnds() && !p.isOp(';') {
				p.exprList()
			}
			if p.isOp(';') {
				p.next()
			}
			if !p.blockEnds() {
				p.fail = true
			}
			return
		}
		p.statement(top)
	}
}

func (p *luaParser) statement(top bool) {
	start := p.ts
	switch p.tok {
	case ltOp:
		switch p.op {
		case ';':
			p.next()
			return
		case luaOpLabel:
			p.next()
			p.expectName()
			p.expectOp(luaOpLabel)
			return
		}
	case ltKeyword:
		switch p.kw {
		case lkIf:
			p.next()
			p.exprDrop()
			p.expectKw(lkThen)
			p.block(false)
			for p.isKw(lkElseif) {
				p.next()
				p.exprDrop()
				p.expectKw(lkThen)
				p.block(false)
			}
			if p.isKw(lkElse) {
				p.next()
				p.block(false)
			}
			p.expectKw(lkEnd)
			return
		case lkWhile:
			p.next()
			p.exprDrop()
			p.expectKw(lkDo)
			p.block(false)
			p.expectKw(lkEnd)
			return
		case lkDo:
			p.next()
			p.block(false)
			p.expectKw(lkEnd)
			return
		case lkFor:
			p.next()
			p.expectName()
			if p.isOp('=') {
				p.next()
				p.exprDrop()
				p.expectOp(',')
				p.exprDrop()
				if p.isOp(',') {
					p.next()
					p.exprDrop()
				}
			} else {
				for p.isOp(',') {
					p.next()
					p.expectName()
				}
				p.expectKw(lkIn)
				p.exprList()
			}
			p.expectKw(lkDo)
			p.block(false)
			p.expectKw(lkEnd)
			return
		case lkRepeat:
			p.next()
			p.block(false)
			p.expectKw(lkUntil)
			p.exprDrop()
			return
		case lkFunction:
			p.funcStatement(start)
			return
		case lkLocal:
			p.next()
			if p.isKw(lkFunction) {
				p.next()
				ns, ne := p.expectName()
				end := p.funcBody()
				if !p.fail {
					p.match++
					p.capture(luaPatLocalFunc, p.ids.name, ns, ne)
					p.capture(luaPatLocalFunc, p.ids.function, start, end)
				}
				return
			}
			base := len(p.items)
			for {
				s, e := p.expectName()
				p.items = append(p.items, luaItem{true, luaLast, int32(s), int32(e)})
				if p.isOp('<') { // an attribute: <const>, <close>
					p.next()
					p.expectName()
					p.expectOp('>')
				}
				if !p.isOp(',') {
					break
				}
				p.next()
			}
			var bounds [8]int32
			targets := bounds[:0]
			for i := base; i <= len(p.items); i++ {
				targets = append(targets, int32(i))
			}
			fn := false
			if p.isOp('=') {
				p.next()
				fn = p.exprList()
			}
			p.declaration(top, start, base, targets, fn)
			return
		case lkGoto:
			p.next()
			p.expectName()
			return
		case lkBreak:
			p.next()
			return
		}
	}
	// An assignment or a call.
	base := len(p.items)
	call := p.suffixed()
	if !p.isOp('=') && !p.isOp(',') {
		if !call {
			p.fail = true // an expression that is not a call
		}
		p.items = p.items[:base]
		return
	}
	var bounds [8]int32
	targets := append(bounds[:0], int32(base), int32(len(p.items)))
	for p.isOp(',') {
		p.next()
		p.suffixed()
		targets = append(targets, int32(len(p.items)))
	}
	p.expectOp('=')
	fn := p.exprList()
	p.declaration(top, start, base, targets, fn)
}

// declaration captures what patterns 4-6 find in a variable_declaration
// from start to the end of the token before the current one: its
// targets are the named children p.items[targets[i]:targets[i+1]]
// (dropped from p.items[base:] when done); fn: a value is a function
// literal.
func (p *luaParser) declaration(top bool, start, base int, targets []int32, fn bool) {
	defer func() { p.items = p.items[:base] }()
	if p.fail || !fn && !top {
		return
	}
	end := p.prevEnd
	for i := 0; i+1 < len(targets); i++ {
		items := p.items[targets[i]:targets[i+1]]
		if len(items) == 1 && items[0].ident {
			it := items[0]
			p.match++
			if fn {
				p.capture(luaPatVarFunc, p.ids.name, int(it.start), int(it.end))
				p.capture(luaPatVarFunc, p.ids.function, start, end)
			} else {
				p.capture(luaPatTopVar, p.ids.name, int(it.start), int(it.end))
				p.capture(luaPatTopVar, p.ids.variable, start, end)
			}
			continue
		}
		if !fn {
			continue
		}
		for j := 1; j < len(items); j++ {
			c, n := items[j-1], items[j]
			if c.ident && n.ident && n.last != luaNotLast { // open: the declarator's own last
				p.match++
				p.capture(luaPatFieldVar, p.ids.container, int(c.start), int(c.end))
				p.capture(luaPatFieldVar, p.ids.name, int(n.start), int(n.end))
				p.capture(luaPatFieldVar, p.ids.function, start, end)
			}
		}
	}
}

// funcStatement reads `function a.b:c body` from start.
func (p *luaParser) funcStatement(start int) {
	p.next()
	var ids [3][2]int // the last three names
	n := 0
	colon := false
	push := func(s, e int) {
		ids[0], ids[1], ids[2] = ids[1], ids[2], [2]int{s, e}
		n++
	}
	s, e := p.expectName()
	push(s, e)
	for p.isOp('.') {
		p.next()
		s, e := p.expectName()
		push(s, e)
	}
	if p.isOp(':') {
		p.next()
		s, e := p.expectName()
		push(s, e)
		colon = true
	}
	end := p.funcBody()
	if p.fail {
		return
	}
	p.match++
	switch {
	case colon:
		p.capture(luaPatMethod, p.ids.container, ids[1][0], ids[1][1])
		p.capture(luaPatMethod, p.ids.name, ids[2][0], ids[2][1])
		p.capture(luaPatMethod, p.ids.method, start, end)
	case n == 1:
		p.capture(luaPatFunc, p.ids.name, ids[2][0], ids[2][1])
		p.capture(luaPatFunc, p.ids.function, start, end)
	default:
		p.capture(luaPatDotFunc, p.ids.container, ids[1][0], ids[1][1])
		p.capture(luaPatDotFunc, p.ids.name, ids[2][0], ids[2][1])
		p.capture(luaPatDotFunc, p.ids.function, start, end)
	}
}

// funcBody reads `(params) block end` and returns the end of its end.
func (p *luaParser) funcBody() int {
	p.expectOp('(')
	if !p.isOp(')') {
		for !p.fail {
			if p.isOp(luaOpDots) {
				p.next()
				break
			}
			p.expectName()
			if !p.isOp(',') {
				break
			}
			p.next()
		}
	}
	p.expectOp(')')
	p.block(false)
	end := p.te
	p.expectKw(lkEnd)
	return end
}

// exprList reads expressions separated by commas and reports whether one
// is a function literal.
func (p *luaParser) exprList() (fn bool) {
	base := len(p.items)
	for !p.fail {
		fn = p.expr() || fn
		p.items = p.items[:base]
		if !p.isOp(',') {
			return fn
		}
		p.next()
	}
	return fn
}

// expr reads an expression, whose named children (as a child of a
// variable_declarator) it appends to p.items, and reports whether it is a
// function literal.
func (p *luaParser) expr() (fn bool) {
	if !p.enter() {
		return false
	}
	defer p.leave()
	base := len(p.items)
	ops := 0
	for !p.fail {
		for p.isKw(lkNot) || p.isOp('-') || p.isOp('#') || p.isOp('~') {
			p.next()
			ops++
		}
		fn = p.simple()
		if !p.binaryOp() {
			break
		}
		p.next()
		ops++
	}
	if ops > 0 {
		p.items = append(p.items[:base], luaItem{}) // an operation
		return false
	}
	return fn
}

// exprDrop reads an expression (see expr) and drops its children.
func (p *luaParser) exprDrop() {
	base := len(p.items)
	p.expr()
	p.items = p.items[:base]
}

// binaryOp reports whether the current token is a binary operator.
func (p *luaParser) binaryOp() bool {
	switch p.tok {
	case ltKeyword:
		return p.kw == lkAnd || p.kw == lkOr
	case ltOp:
		switch p.op {
		case '+', '-', '*', '/', '%', '^', '<', '>', '&', '|', '~',
			luaOpEq, luaOpNe, luaOpLe, luaOpGe, luaOpShl, luaOpShr, luaOpIdiv, luaOpConcat:
			return true
		}
	}
	return false
}

// simple reads an operand (see expr).
func (p *luaParser) simple() (fn bool) {
	switch p.tok {
	case ltNumber, ltString:
		p.next()
		p.items = append(p.items, luaItem{})
		return false
	case ltKeyword:
		switch p.kw {
		case lkNil, lkTrue, lkFalse:
			p.next()
			p.items = append(p.items, luaItem{})
			return false
		case lkFunction:
			p.next()
			p.funcBody()
			p.items = append(p.items, luaItem{})
			return true
		}
	case ltOp:
		switch p.op {
		case luaOpDots:
			p.next()
			p.items = append(p.items, luaItem{})
			return false
		case '{':
			p.table()
			p.items = append(p.items, luaItem{})
			return false
		}
	}
	p.suffixed()
	return false
}

// suffixed reads a prefix expression and its suffixes (see expr); call:
// it ends in a call.
func (p *luaParser) suffixed() (call bool) {
	base := len(p.items)
	// open marks the children whose last-ness is still open as not last:
	// more follows them at this level.
	notLast := func(from int) {
		for i := from; i < len(p.items); i++ {
			if p.items[i].last == luaOpen {
				p.items[i].last = luaNotLast
			}
		}
	}
	switch {
	case p.tok == ltName:
		p.items = append(p.items, luaItem{true, luaOpen, int32(p.ts), int32(p.te)})
		p.next()
	case p.isOp('('):
		p.items = append(p.items, luaItem{}) // left_paren
		p.next()
		p.expr()
		p.expectOp(')')
		notLast(base)
		p.items = append(p.items, luaItem{}) // right_paren
	default:
		p.fail = true
		return false
	}
	for !p.fail {
		switch {
		case p.isOp('.'):
			p.next()
			s, e := p.expectName()
			notLast(base)
			p.items = append(p.items, luaItem{true, luaOpen, int32(s), int32(e)})
			call = false
		case p.isOp('['):
			p.next()
			notLast(base)
			key := len(p.items)
			p.expr()
			p.expectOp(']')
			for i := key; i < len(p.items); i++ {
				if p.items[i].last == luaOpen {
					p.items[i].last = luaLast // only "]" follows
				}
			}
			call = false
		case p.isOp(':'):
			p.next()
			p.expectName()
			p.args()
			p.items = append(p.items[:base], luaItem{})
			call = true
		case p.isOp('(') || p.isOp('{') || p.tok == ltString:
			p.args()
			p.items = append(p.items[:base], luaItem{})
			call = true
		default:
			return call
		}
	}
	return call
}

// args reads the arguments of a call.
func (p *luaParser) args() {
	switch {
	case p.tok == ltString:
		p.next()
	case p.isOp('{'):
		p.table()
	case p.isOp('('):
		p.next()
		if !p.isOp(')') {
			p.exprList()
		}
		p.expectOp(')')
	default:
		p.fail = true
	}
}

// table reads a table constructor.
func (p *luaParser) table() {
	p.expectOp('{')
	for !p.fail && !p.isOp('}') {
		switch {
		case p.isOp('['):
			p.next()
			p.exprDrop()
			p.expectOp(']')
			p.expectOp('=')
			p.exprDrop()
		case p.tok == ltName && p.peekAssign():
			ns, ne := p.ts, p.te
			p.next()
			p.next()
			base := len(p.items)
			fn := p.expr()
			p.items = p.items[:base]
			if fn && !p.fail {
				p.match++
				p.capture(luaPatFieldFunc, p.ids.name, ns, ne)
				p.capture(luaPatFieldFunc, p.ids.function, ns, p.prevEnd)
			}
		default:
			p.exprDrop()
		}
		if !p.isOp(',') && !p.isOp(';') {
			break
		}
		p.next()
	}
	p.expectOp('}')
}

// captures appends the captures found, with their rows and columns, to
// buf. The offsets are put in order and the newlines between each and the
// next counted (bytes.Count: the text between definitions is long, and
// most of a file).
func (p *luaParser) captures(buf []capture) []capture {
	if len(p.caps) == 0 {
		return buf
	}
	n := len(buf)
	offs := p.offs[:0]
	for i, c := range p.caps {
		buf = append(buf, capture{match: c.match, pattern: c.pattern, index: c.index, rng: sitter.Range{
			StartByte: uint32(c.start), EndByte: uint32(c.end),
		}})
		offs = append(offs, luaOff{c.start, int32(2 * i)}, luaOff{c.end, int32(2*i + 1)})
	}
	p.offs = offs
	slices.SortFunc(offs, func(a, b luaOff) int { return int(a.off - b.off) })
	row, line, prev := uint32(0), 0, 0 // line: where row starts; prev: the last offset
	for _, o := range offs {
		off := int(o.off)
		if k := bytes.Count(p.src[prev:off], newline); k > 0 {
			row += uint32(k)
			line = prev + bytes.LastIndexByte(p.src[prev:off], '\n') + 1
		}
		prev = off
		pt := sitter.Point{Row: row, Column: uint32(off - line)}
		c := &buf[n+int(o.slot/2)]
		if o.slot%2 == 0 {
			c.rng.StartPoint = pt
		} else {
			c.rng.EndPoint = pt
		}
	}
	return buf
}

// luaOff is an offset of a capture: slot is 2 × its index, + 1 for its
// end.
type luaOff struct{ off, slot int32 }

var newline = []byte{'\n'}
