package codeindex

// rustDefs finds the definitions of a Rust file in a build without
// tree-sitter: it reads the file's skeleton (bracketSkeleton: bodies,
// and the statements of the bodies that hold an item, comments,
// attributes, use declarations, type parameters, where clauses, return
// types and values left out), a small language of items, and sets x.caps
// to the captures that the walk of the skeleton's parse finds, in the
// walk's terms (patterns, capture ids, node ranges, in its order), mapped
// to the file as parseDefs maps them. It reports false, leaving the file
// to the parse, for text it does not know to be what the grammar reads
// without error: a statement the skeleton kept (it holds an item), a
// where clause, a qualified path in an impl's header, a literal other
// than a string or an integer, anything it does not read below.
//
// The parse of the skeleton and its walk were two thirds of the Rust
// corpus's build. Buffers keep their parse (Language.buildPass), for
// their incremental updates. TestRustDefsCorpus checks this reader
// against the skeleton's parse file by file; TestRustDefsSnippets on the
// corners below.
//
// What the patterns of queries/rust.scm see of tree-sitter-rust's nodes:
// an item's range runs from its visibility (pub, pub(crate)) or its first
// modifier to its ';' or '}'; a field_declaration's from its visibility or
// name to the end of its type; an enum_variant's to the end of its
// fields or discriminant; impl_item's type field is the type after `for`
// (or the only one), captured as @name when it is a type_identifier, a
// generic_type of one, or a scoped_type_identifier (a::B, not a::B<T>).
// `type X;` and `type X: Bound;` are associated_type (no pattern), `type X
// = T;` a type_item wherever it stands.
func rustDefs(x *extractor, l *Language, src []byte) bool {
	if x.rustIDs == nil {
		ids, ok := rustCapIDs(l)
		if !ok {
			return false
		}
		x.rustIDs = &ids
	}
	if !x.buildSkeleton(l, src) {
		return false
	}
	r := &x.rust
	*r = rustReader{tokReader: tokReader{skelCaps: skelCaps{src: x.sk.buf, name: x.rustIDs.name, caps: r.caps[:0], lines: r.lines[:0]}, maxDepth: 64}, ids: *x.rustIDs}
	r.next()
	r.items(false)
	if r.fail || r.kind != tEOF {
		return false
	}
	x.caps = r.toFile(x.caps[:0], &x.sk) // collect(l, src, &x.sk) fixes the ends and starts
	return true
}

// rustIDs are the capture ids of queries/rust.scm's definitions patterns.
type rustIDs struct {
	name, scope, function, method, strct, enum, iface, typ, constant, variable, module, macro, field uint16
}

// rustCapIDs returns the capture ids of l's definitions (loaded), as the
// walk numbers them.
func rustCapIDs(l *Language) (rustIDs, bool) {
	var ids rustIDs
	want := map[string]*uint16{
		"name": &ids.name, "scope": &ids.scope, "definition.function": &ids.function, "definition.method": &ids.method,
		"definition.struct": &ids.strct, "definition.enum": &ids.enum, "definition.interface": &ids.iface, "definition.type": &ids.typ,
		"definition.constant": &ids.constant, "definition.variable": &ids.variable, "definition.module": &ids.module,
		"definition.macro": &ids.macro, "definition.field": &ids.field,
	}
	return ids, capIDs(l, want)
}

// The patterns of queries/rust.scm, in order.
const (
	rustPatImpl = iota
	rustPatFunc
	rustPatSig
	rustPatStruct
	rustPatUnion
	rustPatEnum
	rustPatTrait
	rustPatType
	rustPatConst
	rustPatStatic
	rustPatMod
	rustPatMacro
	rustPatField
	rustPatVariant
)

// rustReader reads the items of a Rust skeleton.
type rustReader struct {
	tokReader
	inTrait bool // reading the items of a trait
	ids     rustIDs
}

// next reads the next token, past blanks; it fails on what the reader does
// not know (comments, raw strings, characters, floats, attributes,
// macro variables).
func (r *rustReader) next() {
	src := r.src
	if !r.begin() {
		return
	}
	i := r.pos
	c := src[i]
	switch {
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		e := i + 1
		for e < len(src) && isIdentByte(src[e]) {
			e++
		}
		if e == i+1 && c == 'r' && e+1 < len(src) && src[e] == '#' && (src[e+1] == '_' || src[e+1] >= 'a' && src[e+1] <= 'z' || src[e+1] >= 'A' && src[e+1] <= 'Z') {
			// A raw identifier, r#try: one identifier to the grammar,
			// and no keyword.
			for e += 2; e < len(src) && isIdentByte(src[e]); e++ {
			}
		}
		if e < len(src) && (src[e] == '"' || src[e] == '#' || src[e] == '\'' || src[e] >= 0x80) {
			r.bad() // b"..", r#"..", b'x'
			return
		}
		r.kind, r.end = tIdent, e
	case c >= '0' && c <= '9':
		e := i + 1
		for e < len(src) && isIdentByte(src[e]) {
			e++
		}
		if e < len(src) && (src[e] == '.' || src[e] == '\'' || src[e] >= 0x80) {
			r.bad() // a float, 1.., 1'
			return
		}
		r.kind, r.end = tNumber, e
	case c == '"':
		e := i + 1
		for e < len(src) && src[e] != '"' {
			if src[e] == '\\' {
				e++
			}
			e++
		}
		if e >= len(src) {
			r.bad()
			return
		}
		r.kind, r.end = tString, e+1
	case c == '\'':
		// A lifetime ('a, 'static, '_), not a character.
		e := i + 1
		for e < len(src) && isIdentByte(src[e]) && src[e] < 0x80 {
			e++
		}
		if e == i+1 || e < len(src) && (src[e] == '\'' || src[e] >= 0x80) || src[i+1] >= '0' && src[i+1] <= '9' {
			r.bad()
			return
		}
		r.kind, r.end = tLifetime, e
	case c == ':' && i+1 < len(src) && src[i+1] == ':', c == '-' && i+1 < len(src) && src[i+1] == '>':
		r.kind, r.end = tPunct, i+2
	case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'), c == '#', c == '$', c == '\\', c == '`', c == '@', c >= 0x80 || c < ' ':
		r.bad()
	default:
		r.kind, r.end = tPunct, i+1
	}
}

// isPair reports whether the token is :: (c ':') or -> (c '-').
func (r *rustReader) isPair(c byte) bool {
	return r.kind == tPunct && r.end-r.pos == 2 && r.src[r.pos] == c
}

// expect reads the punctuation p, or fails.
func (r *rustReader) expect(p byte) {
	if !r.is(p) {
		r.bad()
		return
	}
	r.next()
}

// name reads an identifier that names an item (not a keyword the grammar
// reserves) and returns its range, or fails.
func (r *rustReader) name() (int, int) {
	if r.kind != tIdent || rustReserved[string(r.src[r.pos:r.end])] {
		r.bad()
		return 0, 0
	}
	s, e := r.pos, r.end
	r.next()
	return s, e
}

// rustReserved are the words tree-sitter-rust does not take for an
// identifier where an item's name stands (and yield and try, left to the
// parse; default, union, raw, gen and auto are names to it, which
// TestRustDefsCorpus sees).
var rustReserved = words("_ as async await break const continue crate dyn else enum extern false fn for if impl in let loop macro_rules match mod move mut pub ref return self Self static struct super trait true type unsafe use where while yield try")

// items reads items up to the end of the text (or, in a block, to its
// '}', which it leaves to the caller).
func (r *rustReader) items(block bool) {
	r.itemsIn(block, false)
}

// itemsIn is items; in a body, a block among them holds items too (a
// statement the skeleton kept, as `{ ... }`, which holds one).
func (r *rustReader) itemsIn(block, body bool) {
	if !r.enter() {
		return
	}
	defer r.leave()
	for !r.fail {
		switch {
		case r.kind == tEOF:
			if block {
				r.bad()
			}
			return
		case r.is('}'):
			if !block {
				r.bad()
			}
			return
		case body && r.is('{'):
			r.next()
			r.itemsIn(true, true)
			r.expect('}')
			continue
		}
		r.item()
	}
}

// item reads one item (or an empty statement, or a macro invocation).
func (r *rustReader) item() {
	start := r.pos
	if r.is(';') {
		r.next()
		return
	}
	r.visibility()
	if r.fail {
		return
	}
	vis := r.pos != start
	switch {
	case r.word("mod"):
		r.next()
		ns, ne := r.name()
		r.itemBody(r.capture(rustPatMod, r.ids.module, start, 0, ns, ne))
	case r.word("struct"):
		r.structItem(start)
	case r.word("union") && r.peekIdent():
		r.next()
		ns, ne := r.name()
		i := r.capture(rustPatUnion, r.ids.strct, start, 0, ns, ne)
		if !r.is('{') {
			r.bad()
			return
		}
		r.fields()
		r.closeItem(i, '}')
	case r.word("enum"):
		r.next()
		ns, ne := r.name()
		i := r.capture(rustPatEnum, r.ids.enum, start, 0, ns, ne)
		r.variants()
		r.closeItem(i, '}')
	case r.word("type"):
		r.typeItem(start, vis)
	case r.word("static"):
		r.next()
		if r.word("mut") {
			r.next()
		}
		r.valueItem(rustPatStatic, r.ids.variable, start)
	case r.word("const") && r.peekName():
		r.next()
		r.valueItem(rustPatConst, r.ids.constant, start)
	case r.word("macro_rules") && !vis:
		if r.end >= len(r.src) || r.src[r.end] != '!' {
			r.bad()
			return
		}
		r.next()
		r.next()
		ns, ne := r.name()
		i := r.capture(rustPatMacro, r.ids.macro, start, 0, ns, ne)
		r.macroTokens()
		r.caps[i].end = r.prevEnd
	case r.word("use"):
		r.useDecl() // one the skeleton kept
	case r.word("extern") && r.peekWord("crate"):
		r.next()
		r.next()
		if r.word("self") {
			r.next()
		} else {
			r.name()
		}
		if r.word("as") {
			r.next()
			r.name()
		}
		r.closeItem(-1, ';')
	case r.kind == tIdent && !vis && !rustReserved[string(r.src[r.pos:r.end])] && (r.peekPath() || r.peekBang()) || r.isPair(':'):
		// A macro's invocation by a path (cfg_if::cfg_if! {}), its
		// tokens left out.
		r.path(false)
		r.expect('!')
		r.macroTokens()
	default:
		r.qualifiedItem(start, vis)
	}
}

// useDecl reads a use declaration: paths, braces, commas, *, as.
func (r *rustReader) useDecl() {
	r.next()
	depth := 0
	for !r.fail {
		switch {
		case r.is(';') && depth == 0:
			r.next()
			return
		case r.is('{'):
			depth++
		case r.is('}'):
			if depth--; depth < 0 {
				r.bad()
				return
			}
		case r.kind == tIdent, r.isPair(':'), r.is(','), r.is('*'):
		default:
			r.bad()
			return
		}
		r.next()
	}
}

// closeItem ends the item whose match starts at caps[i] (none: -1) at its
// closing token c, the current one, and reads past it.
func (r *rustReader) closeItem(i int, c byte) {
	if !r.is(c) {
		r.bad()
		return
	}
	if i >= 0 {
		r.caps[i].end = r.end
	}
	r.next()
}

// structItem reads a struct: a unit, a tuple or fields.
func (r *rustReader) structItem(start int) {
	r.next()
	ns, ne := r.name()
	i := r.capture(rustPatStruct, r.ids.strct, start, 0, ns, ne)
	switch {
	case r.is(';'):
		r.closeItem(i, ';')
	case r.is('('):
		r.tupleFields()
		r.closeItem(i, ';')
	case r.is('{'):
		r.fields()
		r.closeItem(i, '}')
	default:
		r.bad()
	}
}

// typeItem reads `type X = T;` (a type_item) or `type X;`, `type X:
// Bound;` (an associated_type, which no pattern takes).
func (r *rustReader) typeItem(start int, vis bool) {
	r.next()
	ns, ne := r.name()
	switch {
	case r.is('='):
		i := r.capture(rustPatType, r.ids.typ, start, 0, ns, ne)
		r.next()
		r.typ()
		r.closeItem(i, ';')
	case r.is(':') && !vis:
		r.next()
		r.bounds()
		r.closeItem(-1, ';')
	case r.is(';') && !vis:
		r.next()
	default:
		r.bad()
	}
}

// macroTokens reads the tokens of a macro's rules or invocation, which
// the skeleton leaves out: {}, or () or [] and its ';'.
func (r *rustReader) macroTokens() {
	brace := r.is('{')
	r.emptyGroup()
	if !brace {
		r.expect(';')
	}
}

// qualifiedItem reads a fn, an impl, a trait or a block of foreign items,
// after its modifiers (default, const, async, unsafe, extern "abi").
func (r *rustReader) qualifiedItem(start int, vis bool) {
	for !r.fail {
		switch {
		case r.word("default") && r.peekIdent(), r.word("const"), r.word("async"), r.word("unsafe"):
			r.next()
			continue
		case r.word("extern"):
			r.next()
			if r.kind == tString {
				r.next()
			}
			if r.is('{') {
				// A block of foreign items.
				r.next()
				r.items(true)
				r.closeItem(-1, '}')
				return
			}
			continue
		}
		break
	}
	switch {
	case r.word("fn"):
		r.fnItem(start)
	case r.word("impl") && !vis:
		r.next()
		ts, name := r.implType()
		if r.word("for") {
			r.next()
			ts, name = r.implType()
		}
		if r.fail {
			return
		}
		i := -1
		if ts >= 0 {
			i = r.capture(rustPatImpl, r.ids.scope, start, 0, ts, name)
		}
		r.itemBody(i)
	case r.word("trait"):
		r.next()
		ns, ne := r.name()
		i := r.capture(rustPatTrait, r.ids.iface, start, 0, ns, ne)
		if r.is(':') {
			r.next()
			r.bounds()
		}
		if !r.is('{') {
			r.bad()
			return
		}
		r.inTrait = true
		r.itemBody(i)
		r.inTrait = false
	default:
		r.bad()
	}
}

// fnItem reads a fn from its keyword: a signature (function_signature_item)
// or a definition with its body (function_item), empty or holding items
// (the skeleton leaves out the statements that define nothing).
func (r *rustReader) fnItem(start int) {
	r.next()
	ns, ne := r.name()
	if r.is('<') {
		r.typeParams() // those the skeleton kept (fn new<S: AsRef<str>>)
	}
	if !r.is('(') {
		r.bad()
		return
	}
	r.params()
	if r.isPair('-') {
		r.next()
		r.typ()
	}
	if r.word("where") {
		r.whereClause() // one the skeleton kept (a signature's, with an '=' in it)
	}
	switch {
	case r.is(';'):
		r.capture(rustPatSig, r.ids.method, start, r.end, ns, ne)
		r.next()
	case r.is('{'):
		i := r.capture(rustPatFunc, r.ids.function, start, 0, ns, ne)
		r.next()
		inTrait := r.inTrait
		r.inTrait = false
		r.itemsIn(true, true)
		r.inTrait = inTrait
		r.closeItem(i, '}')
	default:
		r.bad()
	}
}

// itemBody reads the ';' or the block of items of a mod, trait or impl
// whose match starts at caps[i] (none: -1), and sets its end.
func (r *rustReader) itemBody(i int) {
	switch {
	case r.is(';'):
	case r.is('{'):
		r.next()
		r.items(true)
	default:
		r.bad()
	}
	if r.fail {
		return
	}
	if i >= 0 {
		r.caps[i].end = r.end
	}
	r.next()
}

// valueItem reads a const or static item after its keyword (and mut):
// its name, type, and value if the skeleton kept one.
func (r *rustReader) valueItem(pattern int, def uint16, start int) {
	var ns, ne int
	if r.word("_") && pattern == rustPatConst && !r.inTrait {
		// const _: T = v; names _ (in a trait, the grammar reads no
		// const_item).
		ns, ne = r.pos, r.end
		r.next()
	} else {
		ns, ne = r.name()
	}
	if !r.is(':') {
		r.bad()
		return
	}
	r.next()
	i := r.capture(pattern, def, start, 0, ns, ne)
	r.typ()
	if r.is('=') {
		r.next()
		r.expr(';', ';')
	}
	if !r.is(';') {
		r.bad()
		return
	}
	r.caps[i].end = r.end
	r.next()
}

// peekWord reports whether the word w follows the current token.
func (r *rustReader) peekWord(w string) bool {
	i := r.after()
	e := i
	for e < len(r.src) && isIdentByte(r.src[e]) {
		e++
	}
	return string(r.src[i:e]) == w
}

// peekName reports whether a name that is not a modifier of a fn follows
// (const NAME: a const item; const fn, const unsafe fn: a fn).
func (r *rustReader) peekName() bool {
	if !r.peekIdent() {
		return false
	}
	return !r.peekWord("fn") && !r.peekWord("unsafe") && !r.peekWord("async") && !r.peekWord("extern")
}

// emptyGroup reads an empty (), [] or {} (a macro's tokens, left out).
func (r *rustReader) emptyGroup() {
	var closer byte
	switch {
	case r.is('('):
		closer = ')'
	case r.is('['):
		closer = ']'
	case r.is('{'):
		closer = '}'
	default:
		r.bad()
		return
	}
	r.next()
	r.expect(closer)
}

// fields reads a field_declaration_list from its '{' to its '}' (left
// current): each field a match of rustPatField.
func (r *rustReader) fields() {
	r.next()
	for !r.fail && !r.is('}') {
		start := r.pos
		r.visibility()
		ns, ne := r.name()
		if !r.is(':') {
			r.bad()
			return
		}
		r.next()
		i := r.capture(rustPatField, r.ids.field, start, 0, ns, ne)
		r.typ()
		r.caps[i].end = r.prevEnd
		if r.is(',') {
			r.next()
		} else if !r.is('}') {
			r.bad()
		}
	}
}

// tupleFields reads an ordered_field_declaration_list from its '(' past
// its ')'.
func (r *rustReader) tupleFields() {
	r.next()
	for !r.fail && !r.is(')') {
		r.visibility()
		r.typ()
		if r.is(',') {
			r.next()
		} else if !r.is(')') {
			r.bad()
		}
	}
	r.next()
}

// visibility reads pub, pub(crate), pub(self), pub(super) or pub(in
// path) if there.
func (r *rustReader) visibility() {
	if !r.word("pub") {
		return
	}
	r.next()
	if !r.is('(') {
		return
	}
	r.next()
	switch {
	case r.word("crate"), r.word("self"), r.word("super"):
		r.next()
	case r.word("in"):
		r.next()
		r.path(false)
	default:
		r.bad()
		return
	}
	r.expect(')')
}

// variants reads an enum_variant_list from its '{' to its '}' (left
// current): each variant a match of rustPatVariant, its fields after it.
func (r *rustReader) variants() {
	if !r.is('{') {
		r.bad()
		return
	}
	r.next()
	for !r.fail && !r.is('}') {
		start := r.pos
		r.visibility()
		ns, ne := r.name()
		i := r.capture(rustPatVariant, r.ids.constant, start, 0, ns, ne)
		switch {
		case r.is('('):
			r.tupleFields()
		case r.is('{'):
			r.fields()
			r.expect('}')
		}
		if r.is('=') {
			r.next()
			r.expr(',', '}')
		}
		r.caps[i].end = r.prevEnd
		if r.is(',') {
			r.next()
		} else if !r.is('}') {
			r.bad()
		}
	}
}

// params reads a fn's parameters from '(' past ')': self, [mut] name:
// type, or a type alone.
func (r *rustReader) params() {
	r.next()
	for !r.fail && !r.is(')') {
		switch {
		case r.is('&'):
			// &self, &'a mut self
			r.next()
			if r.kind == tLifetime {
				r.next()
			}
			if r.word("mut") {
				r.next()
			}
			if !r.word("self") {
				r.bad()
				return
			}
			r.next()
		case r.word("mut") || r.word("self") || r.word("_") || r.kind == tIdent && r.peekColon():
			if r.word("mut") {
				r.next()
			}
			self := r.word("self")
			if r.kind != tIdent {
				r.bad()
				return
			}
			r.next()
			if r.is(':') {
				r.next()
				r.typ()
			} else if !self {
				r.bad()
				return
			}
		default:
			r.typ()
		}
		if r.is(',') {
			r.next()
		} else if !r.is(')') {
			r.bad()
		}
	}
	r.next()
}

// peekColon reports whether a single ':' follows the current token.
func (r *rustReader) peekColon() bool {
	i := r.after()
	return i < len(r.src) && r.src[i] == ':' && (i+1 == len(r.src) || r.src[i+1] != ':')
}

// implType reads the type of an impl's header and returns, when the walk
// captures it as the impl's name, that name's range, else -1, -1: a plain
// name (type_identifier), one with type arguments (generic_type), a path
// (scoped_type_identifier), not a path with type arguments.
func (r *rustReader) implType() (start, end int) {
	if r.isPair(':') || r.word("Self") || r.is('<') {
		r.bad() // ::a::B, Self, <T as U>::V: left to the parse
		return -1, -1
	}
	w := string(r.src[r.pos:r.end])
	if r.kind != tIdent || rustReserved[w] && w != "crate" && w != "self" && w != "super" || rustPrimitive[w] && !r.peekPath() {
		r.typ()
		return -1, -1
	}
	segs := 0
	for {
		if r.kind != tIdent {
			r.bad()
			return -1, -1
		}
		start, end = r.pos, r.end
		segs++
		r.next()
		if !r.isPair(':') {
			break
		}
		r.next()
	}
	if r.is('<') {
		r.generics()
		if segs > 1 {
			start, end = -1, -1
		}
	}
	if r.is('(') || r.isPair(':') {
		r.bad() // Fn(A) sugar, X<T>::Y
		return -1, -1
	}
	return start, end
}

// peekPath reports whether :: follows the current token.
func (r *rustReader) peekPath() bool {
	i := r.after()
	return i+1 < len(r.src) && r.src[i] == ':' && r.src[i+1] == ':'
}

// rustPrimitive are the types tree-sitter-rust reads as primitive_type.
var rustPrimitive = words("u8 i8 u16 i16 u32 i32 u64 i64 u128 i128 isize usize f32 f64 bool str char")

// typ reads a type.
func (r *rustReader) typ() {
	if !r.enter() {
		return
	}
	defer r.leave()
	switch {
	case r.is('&'):
		r.next()
		if r.kind == tLifetime {
			r.next()
		}
		if r.word("mut") {
			r.next()
		}
		r.typ()
	case r.is('*'):
		r.next()
		if !r.word("const") && !r.word("mut") {
			r.bad()
			return
		}
		r.next()
		r.typ()
	case r.is('('):
		r.next()
		for !r.fail && !r.is(')') {
			r.typ()
			if r.is(',') {
				r.next()
			} else if !r.is(')') {
				r.bad()
			}
		}
		r.next()
	case r.is('['):
		r.next()
		r.typ()
		if r.is(';') {
			r.next()
			r.expr(']', ']')
		}
		r.expect(']')
	case r.is('<'):
		// <T as Trait>::Name, <T>::Name
		r.next()
		r.typ()
		if r.word("as") {
			r.next()
			r.pathType()
		}
		r.expect('>')
		if !r.isPair(':') {
			r.bad()
			return
		}
		r.next()
		r.path(true)
	case r.is('!'):
		r.next()
	case r.word("_"):
		r.next()
	case r.word("dyn"), r.word("impl"):
		r.next()
		r.bounds()
	case r.word("fn"), r.word("unsafe"), r.word("extern"), r.word("for"):
		r.fnPointer()
	case r.isPair(':') || r.kind == tIdent && (!rustReserved[string(r.src[r.pos:r.end])] || r.word("crate") || r.word("self") || r.word("super") || r.word("Self")):
		r.pathType()
	default:
		r.bad()
	}
}

// fnPointer reads [for<'a>] [unsafe] [extern "abi"] fn(...) [-> T].
func (r *rustReader) fnPointer() {
	if r.word("for") {
		r.next()
		r.generics()
	}
	if r.word("unsafe") {
		r.next()
	}
	if r.word("extern") {
		r.next()
		if r.kind == tString {
			r.next()
		}
	}
	if !r.word("fn") {
		r.bad()
		return
	}
	r.next()
	if !r.is('(') {
		r.bad()
		return
	}
	// Its parameters: [name:] type.
	r.next()
	for !r.fail && !r.is(')') {
		if r.kind == tIdent && r.peekColon() {
			r.next()
			r.next()
		}
		r.typ()
		if r.is(',') {
			r.next()
		} else if !r.is(')') {
			r.bad()
		}
	}
	r.next()
	if r.isPair('-') {
		r.next()
		r.typ()
	}
}

// pathType reads a path as a type: a::b::C<T>, Fn(A) -> B.
func (r *rustReader) pathType() {
	r.path(true)
	if r.is('(') {
		// Fn(A, B) -> C
		r.next()
		for !r.fail && !r.is(')') {
			r.typ()
			if r.is(',') {
				r.next()
			} else if !r.is(')') {
				r.bad()
			}
		}
		r.next()
		if r.isPair('-') {
			r.next()
			r.typ()
		}
	}
}

// path reads [::]a::b::c, with type arguments after a segment when args.
func (r *rustReader) path(args bool) {
	if r.isPair(':') {
		r.next()
	}
	for !r.fail {
		if r.kind != tIdent {
			r.bad()
			return
		}
		r.next()
		if args && r.is('<') {
			r.generics()
		}
		if !r.isPair(':') {
			return
		}
		r.next()
		if args && r.is('<') {
			r.generics() // a::<T> (turbofish)
			if !r.isPair(':') {
				return
			}
			r.next()
		}
	}
}

// generics reads type arguments <...>: lifetimes, types, A = T, A: B,
// numbers.
func (r *rustReader) generics() {
	if !r.enter() {
		return
	}
	defer r.leave()
	r.next()
	for !r.fail && !r.is('>') {
		switch {
		case r.kind == tLifetime, r.kind == tNumber:
			r.next()
		case r.kind == tIdent && r.peekAssign():
			r.next()
			r.next()
			r.typ()
		case r.kind == tIdent && r.peekColon():
			r.next()
			r.next()
			r.bounds()
		default:
			r.typ()
		}
		if r.is(',') {
			r.next()
		} else if !r.is('>') {
			r.bad()
		}
	}
	r.next()
}

// whereClause reads a where clause up to the '{' or ';' after it: 'a:
// 'b, T: bounds, for<'a> T: bounds, each followed by a comma or not.
func (r *rustReader) whereClause() {
	r.next()
	for !r.fail && !r.is('{') && !r.is(';') {
		switch {
		case r.kind == tLifetime:
			r.next()
		case r.word("for"):
			r.next()
			r.generics()
			r.typ()
		default:
			r.typ()
		}
		r.expect(':')
		r.bounds()
		if r.is(',') {
			r.next()
		} else if !r.is('{') && !r.is(';') {
			r.bad()
		}
	}
}

// typeParams reads type parameters <...>: 'a, 'a: 'b + 'c, T, T: bounds,
// T = type, const N: type.
func (r *rustReader) typeParams() {
	r.next()
	for !r.fail && !r.is('>') {
		switch {
		case r.kind == tLifetime:
			r.next()
			if r.is(':') {
				r.next()
				r.bounds()
			}
		case r.word("const"):
			r.next()
			r.name()
			r.expect(':')
			r.typ()
		default:
			r.name()
			if r.is(':') {
				r.next()
				r.bounds()
			}
			if r.is('=') {
				r.next()
				r.typ()
			}
		}
		if r.is(',') {
			r.next()
		} else if !r.is('>') {
			r.bad()
		}
	}
	r.next()
}

// peekBang reports whether '!' follows the current token.
func (r *rustReader) peekBang() bool {
	i := r.after()
	return i < len(r.src) && r.src[i] == '!'
}

// peekAssign reports whether a single '=' follows the current token.
func (r *rustReader) peekAssign() bool {
	i := r.after()
	return i < len(r.src) && r.src[i] == '=' && (i+1 == len(r.src) || r.src[i+1] != '=' && r.src[i+1] != '>')
}

// bounds reads trait bounds: A + ?Sized + 'a + for<'b> Fn(&'b u8).
func (r *rustReader) bounds() {
	for !r.fail {
		switch {
		case r.kind == tLifetime:
			r.next()
		case r.is('?'):
			r.next()
			r.pathType()
		case r.word("for"):
			r.next()
			r.generics()
			r.pathType()
		default:
			r.pathType()
		}
		if !r.is('+') {
			return
		}
		r.next()
	}
}

// expr reads the tokens of a plain expression (a discriminant, an array's
// length, a value the skeleton kept) up to one of the tokens a or b
// outside brackets, left current: no braces (a block may hold an item),
// no empty expression.
func (r *rustReader) expr(a, b byte) {
	depth, n := 0, 0
	for !r.fail {
		switch {
		case r.kind == tEOF, r.is('{'):
			r.bad()
			return
		case depth == 0 && (r.is(a) || r.is(b)):
			if n == 0 {
				r.bad()
			}
			return
		case r.is('('), r.is('['):
			depth++
		case r.is(')'), r.is(']'), r.is('}'):
			if depth--; depth < 0 {
				r.bad()
				return
			}
		case depth == 0 && (r.is(',') || r.is(';')):
			r.bad()
			return
		}
		n++
		r.next()
	}
}
