package codeindex

// csDefs finds the definitions of a C# file in a build without
// tree-sitter, as rustDefs does for Rust: it reads the file's skeleton
// (bodies, accessors, parameters, values, attributes, directives, using
// directives and type qualifiers left out), a small language of
// declarations (`namespace N {`, `public class C : B {`, `private int
// a, b;`, `public T P {}`, `public void M<T>() where T : I {}`, `enum E
// { A, B }`, `delegate void D();`), and sets x.caps to the captures that
// the walk of the skeleton's parse finds (patterns, capture ids, node
// ranges, in its order), mapped to the file as parseDefs maps them. It
// reports false, leaving the file to the parse, for text it does not know
// to be what the grammar reads without error: a value or a body the
// skeleton kept, parameters or arguments other than typed names, names
// and integers, an expression-bodied member, a literal, a tuple, a
// pointer, a record, a file-scoped namespace, a name that is a keyword or
// a contextual one...
//
// The parse of the skeleton and its walk were most of the C# corpus's
// build. Buffers keep their parse (Language.buildPass).
// TestCSharpDefsCorpus checks this reader against the skeleton's parse
// file by file; TestCSharpDefsSnippets on the corners below.
//
// What the patterns of queries/csharp.scm see of tree-sitter-c-sharp's
// nodes: a declaration runs from its first modifier (or attribute: the
// skeleton's start fixes) to its '}' or ';'; a field_declaration holds
// all its declarators, each a match; an enum member is its name (and
// value: the end fixes); a namespace's name is an identifier or a
// qualified_name, captured whole.
func csDefs(x *extractor, l *Language, src []byte) bool {
	if x.csIDs == nil {
		ids, ok := csCapIDs(l)
		if !ok {
			return false
		}
		x.csIDs = &ids
	}
	if !x.buildSkeleton(l, src) {
		return false
	}
	r := &x.cs
	*r = csReader{tokReader: tokReader{skelCaps: skelCaps{src: x.sk.buf, name: x.csIDs.name, caps: r.caps[:0], lines: r.lines[:0]}, maxDepth: 64}, ids: *x.csIDs}
	if len(r.src) >= 3 && r.src[0] == 0xef && r.src[1] == 0xbb && r.src[2] == 0xbf {
		r.end = 3
	}
	r.next()
	for !r.fail && r.kind != tEOF {
		r.member(true)
	}
	if r.fail {
		return false
	}
	x.caps = r.toFile(x.caps[:0], &x.sk) // collect(l, src, &x.sk) fixes the ends and starts
	return true
}

// csIDs are the capture ids of queries/csharp.scm's definitions patterns.
type csIDs struct {
	name, class, strct, iface, enum, typ, module, method, field, constant uint16
}

// csCapIDs returns the capture ids of l's definitions (loaded), as the
// walk numbers them.
func csCapIDs(l *Language) (csIDs, bool) {
	var ids csIDs
	want := map[string]*uint16{
		"name": &ids.name, "definition.class": &ids.class, "definition.struct": &ids.strct, "definition.interface": &ids.iface,
		"definition.enum": &ids.enum, "definition.type": &ids.typ, "definition.module": &ids.module, "definition.method": &ids.method,
		"definition.field": &ids.field, "definition.constant": &ids.constant,
	}
	return ids, capIDs(l, want)
}

// The patterns of queries/csharp.scm, in order.
const (
	csPatClass = iota
	csPatRecord
	csPatStruct
	csPatInterface
	csPatEnum
	csPatDelegate
	csPatNamespace
	csPatFileNamespace
	csPatMethod
	csPatConstructor
	csPatProperty
	csPatField
	csPatEnumMember
)

// csReader reads the declarations of a C# skeleton.
type csReader struct {
	tokReader
	ids csIDs
}

// next reads the next token, past blanks; it fails on what the reader
// does not know (comments, literals, numbers but decimal integers,
// verbatim names, bytes of UTF-8 names).
func (r *csReader) next() {
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
		if e < len(src) && (src[e] >= 0x80 || src[e] == '"' || src[e] == '\'') {
			r.bad()
			return
		}
		r.kind, r.end = tIdent, e
	case c >= '0' && c <= '9':
		e := i + 1
		for e < len(src) && src[e] >= '0' && src[e] <= '9' {
			e++
		}
		if e < len(src) && (isIdentByte(src[e]) || src[e] == '.' || src[e] == '\'') {
			r.bad() // 0x1, 1L, 1.5
			return
		}
		r.kind, r.end = tNumber, e
	case c == ':' && i+1 < len(src) && src[i+1] == ':':
		r.kind, r.end = tPunct, i+2
	case c == '{' || c == '}' || c == '(' || c == ')' || c == '[' || c == ']' || c == '<' || c == '>' || c == ',' || c == ';' || c == ':' || c == '.' || c == '?' || c == '~':
		r.kind, r.end = tPunct, i+1
	default:
		r.bad() // a literal, a number, a comment, '=', '*', '@'...
	}
}

// expect reads the punctuation p, or fails.
func (r *csReader) expect(p byte) {
	if !r.is(p) {
		r.bad()
		return
	}
	r.next()
}

// name reads an identifier that names a declaration (not a keyword, nor
// a contextual one) and returns its range, or fails.
func (r *csReader) name() (int, int) {
	if r.kind != tIdent || csKeywords[string(r.src[r.pos:r.end])] || csContextual[string(r.src[r.pos:r.end])] {
		r.bad()
		return 0, 0
	}
	s, e := r.pos, r.end
	r.next()
	return s, e
}

// csModifiers are the modifiers the reader takes before a declaration.
var csModifiers = words("public private protected internal static readonly virtual override abstract sealed extern unsafe volatile async const new partial")

// csOperatorBytes are the bytes of the symbols of C#'s operators.
var csOperatorBytes = func() (t [256]bool) {
	for _, c := range []byte("+-*/%&|^!~=<>") {
		t[c] = true
	}
	return t
}()

// csKeywords are C#'s reserved words; csContextual the contextual ones the
// reader does not take for a name (the grammar may read them otherwise).
var (
	csKeywords   = words("abstract as base bool break byte case catch char checked class const continue decimal default delegate do double else enum event explicit extern false finally fixed float for foreach goto if implicit in int interface internal is lock long namespace new null object operator out override params private protected public readonly ref return sbyte sealed short sizeof stackalloc static string struct switch this throw true try typeof uint ulong unchecked unsafe ushort using virtual void volatile while")
	csContextual = words("add alias and ascending async await by descending dynamic equals file from get global group init into join let managed nameof nint not notnull nuint on or orderby partial record remove required scoped select set unmanaged value var when where with yield")
)

// member reads a declaration of a namespace or a type's body (top: of
// the file or a namespace, where only namespaces and types stand).
func (r *csReader) member(top bool) {
	if !r.enter() {
		return
	}
	defer r.leave()
	start := r.pos
	if r.word("namespace") {
		r.namespace(start)
		return
	}
	for r.kind == tIdent && csModifiers[string(r.src[r.pos:r.end])] {
		r.next()
	}
	switch {
	case r.word("class"):
		r.typeDecl(start, csPatClass, r.ids.class)
		return
	case r.word("struct"):
		r.typeDecl(start, csPatStruct, r.ids.strct)
		return
	case r.word("interface"):
		r.typeDecl(start, csPatInterface, r.ids.iface)
		return
	case r.word("enum"):
		r.enumDecl(start)
		return
	case r.word("delegate"):
		r.next()
		r.typ()
		ns, ne := r.name()
		r.typeParams()
		r.params()
		r.constraints()
		if !r.is(';') {
			r.bad()
			return
		}
		r.next()
		r.capture(csPatDelegate, r.ids.typ, start, r.prevEnd, ns, ne)
		return
	}
	if top {
		r.bad()
		return
	}
	switch {
	case r.is('~'): // a destructor: no pattern
		r.next()
		r.name()
		r.emptyParens()
		r.body()
		return
	case r.word("event"): // an event: no pattern
		r.next()
		r.typ()
		r.name()
		for r.is(',') {
			r.next()
			r.name()
		}
		if r.is('{') {
			r.next()
			r.expect('}')
			return
		}
		r.expect(';')
		return
	case r.word("implicit") || r.word("explicit"): // a conversion: no pattern
		r.next()
		if !r.word("operator") {
			r.bad()
			return
		}
		r.next()
		r.typ()
		if !r.is('(') {
			r.bad()
			return
		}
		r.skipBalanced('(', ')') // the skeleton keeps those after `int?`
		r.body()
		return
	case r.kind == tIdent && r.end < len(r.src) && r.src[r.end] == '(':
		// A constructor: its name and parameters.
		ns, ne := r.name()
		r.params()
		if r.is(':') {
			r.next()
			if !r.word("base") && !r.word("this") {
				r.bad()
				return
			}
			r.next()
			r.args()
		}
		r.body()
		r.capture(csPatConstructor, r.ids.method, start, r.prevEnd, ns, ne)
		return
	}
	r.typ()
	switch {
	case r.word("operator"): // an operator: no pattern
		// Its symbol (+, ==, >>, true...): bytes the tokens do not take.
		i := r.end
		for i < len(r.src) && (r.src[i] == ' ' || r.src[i] == '\t') {
			i++
		}
		for i < len(r.src) && csOperatorBytes[r.src[i]] {
			i++
		}
		r.end = i
		r.next()
		if r.word("true") || r.word("false") {
			r.next()
		}
		if !r.is('(') {
			r.bad()
			return
		}
		r.skipBalanced('(', ')') // the skeleton keeps an operator's parameters
		r.body()
		return
	case r.word("this"):
		r.indexer()
		return
	}
	ns, ne := r.name()
	for r.is('.') || r.is('<') && r.qualifier() {
		// An explicit implementation (IEnumerable.GetEnumerator,
		// IList<T>.IndexOf) whose qualifier starts the declaration: the
		// skeleton keeps it.
		r.next()
		if r.word("this") { // IList.this[int i]
			r.indexer()
			return
		}
		ns, ne = r.name()
	}
	switch {
	case r.is('(') || r.is('<'):
		r.typeParams()
		r.params()
		r.constraints()
		r.body()
		r.capture(csPatMethod, r.ids.method, start, r.prevEnd, ns, ne)
	case r.is('{'):
		r.next()
		r.expect('}')
		r.capture(csPatProperty, r.ids.field, start, r.prevEnd, ns, ne)
	case r.is(';') || r.is(','):
		// A field: a match for each of its names, all over the whole
		// declaration.
		first := len(r.caps)
		r.capture(csPatField, r.ids.field, start, 0, ns, ne)
		for r.is(',') {
			r.next()
			ns, ne := r.name()
			r.capture(csPatField, r.ids.field, start, 0, ns, ne)
		}
		r.expect(';')
		for i := first; i < len(r.caps); i += 2 {
			r.caps[i].end = r.prevEnd
		}
	default:
		r.bad()
	}
}

// namespace reads a namespace whose keyword starts at start.
func (r *csReader) namespace(start int) {
	r.next()
	ns, _ := r.name()
	ne := r.prevEnd
	for r.is('.') {
		r.next()
		r.name()
		ne = r.prevEnd
	}
	if !r.is('{') {
		r.bad() // a file-scoped namespace
		return
	}
	i := r.capture(csPatNamespace, r.ids.module, start, 0, ns, ne)
	r.next()
	for !r.fail && !r.is('}') {
		if r.kind == tEOF {
			r.bad()
			return
		}
		r.member(true)
	}
	r.next()
	r.caps[i].end = r.prevEnd
	if r.is(';') {
		r.bad() // whether the grammar takes it into the namespace: to the parse
	}
}

// typeDecl reads a class, struct or interface whose keyword is the token.
func (r *csReader) typeDecl(start, pattern int, def uint16) {
	r.next()
	ns, ne := r.name()
	r.typeParams()
	if r.is(':') {
		r.next()
		r.typ()
		for r.is(',') {
			r.next()
			r.typ()
		}
	}
	r.constraints()
	if !r.is('{') {
		r.bad()
		return
	}
	i := r.capture(pattern, def, start, 0, ns, ne)
	r.next()
	for !r.fail && !r.is('}') {
		if r.kind == tEOF {
			r.bad()
			return
		}
		r.member(false)
	}
	r.next()
	r.caps[i].end = r.prevEnd
	if r.is(';') {
		r.bad()
	}
}

// enumDecl reads an enum whose keyword is the token.
func (r *csReader) enumDecl(start int) {
	r.next()
	ns, ne := r.name()
	if r.is(':') {
		r.next()
		r.typ()
	}
	if !r.is('{') {
		r.bad()
		return
	}
	i := r.capture(csPatEnum, r.ids.enum, start, 0, ns, ne)
	r.next()
	for !r.fail && !r.is('}') {
		s, e := r.name()
		r.capture(csPatEnumMember, r.ids.constant, s, e, s, e)
		if !r.is(',') {
			break
		}
		r.next()
	}
	r.expect('}')
	r.caps[i].end = r.prevEnd
	if r.is(';') {
		r.bad()
	}
}

// typ reads a type: a name, qualified (a.b, global::a), with type
// arguments, nullable, arrays.
func (r *csReader) typ() {
	if !r.enter() {
		return
	}
	defer r.leave()
	if r.kind != tIdent || csContextual[string(r.src[r.pos:r.end])] && !r.word("global") {
		r.bad()
		return
	}
	if r.word("global") {
		r.next()
		if !(r.kind == tPunct && r.end-r.pos == 2) {
			r.bad()
			return
		}
		r.next()
	}
	r.typeName()
	for r.is('.') {
		r.next()
		r.typeName()
	}
	if r.is('?') {
		r.next()
	}
	for r.is('[') {
		r.next()
		for r.is(',') {
			r.next()
		}
		r.expect(']')
		if r.is('?') {
			r.next()
		}
	}
}

// typeName reads a name of a type and its type arguments.
func (r *csReader) typeName() {
	if r.kind != tIdent || r.word("operator") || r.word("this") {
		r.bad()
		return
	}
	r.next()
	if r.is('<') {
		r.next()
		r.typ()
		for r.is(',') {
			r.next()
			r.typ()
		}
		r.expect('>')
	}
}

// typeParams reads type parameters (<T, in U, out V>), if any.
func (r *csReader) typeParams() {
	if !r.is('<') {
		return
	}
	r.next()
	for !r.fail {
		if r.word("in") || r.word("out") {
			r.next()
		}
		r.name()
		if !r.is(',') {
			break
		}
		r.next()
	}
	r.expect('>')
}

// constraints reads where clauses (where T : class, I<T>, new()).
func (r *csReader) constraints() {
	for !r.fail && r.word("where") {
		r.next()
		r.name()
		r.expect(':')
		for !r.fail {
			switch {
			case r.word("class") || r.word("struct"):
				r.next()
			case r.word("new"):
				r.next()
				r.emptyParens()
			default:
				r.typ()
			}
			if !r.is(',') {
				break
			}
			r.next()
		}
	}
}

// emptyParens reads `()`: the skeleton empties a parameter list; one it
// kept goes to the parse.
func (r *csReader) emptyParens() {
	r.expect('(')
	r.expect(')')
}

// indexer reads an indexer from its `this`: no pattern.
func (r *csReader) indexer() {
	r.next()
	if !r.is('[') {
		r.bad()
		return
	}
	r.skipBalanced('[', ']')
	r.expect('{')
	r.expect('}')
}

// params reads a parameter list: `()`, or one the skeleton kept as too
// short to cut (`(T o)`).
func (r *csReader) params() {
	r.expect('(')
	for !r.fail && !r.is(')') {
		if r.word("ref") || r.word("out") || r.word("params") || r.word("this") || r.word("in") {
			r.next()
		}
		r.typ()
		r.name()
		if !r.is(',') {
			break
		}
		r.next()
	}
	r.expect(')')
}

// args reads the arguments of a constructor's initializer: `()`, or names
// and integers the skeleton kept as too short to cut (`base(f)`,
// `this(2)`).
func (r *csReader) args() {
	r.expect('(')
	for !r.fail && !r.is(')') {
		if r.kind == tNumber {
			r.next()
		} else {
			r.name()
		}
		if !r.is(',') {
			break
		}
		r.next()
	}
	r.expect(')')
}

// qualifier reads, at a '<' after a name, the type arguments of an
// explicit implementation's interface (IList<T>.IndexOf) and reports true
// with the '.' after them the token; false, having read nothing, when no
// '.' follows (a method's type parameters).
func (r *csReader) qualifier() bool {
	save := *r
	r.next()
	r.typ()
	for r.is(',') {
		r.next()
		r.typ()
	}
	if r.is('>') {
		r.next()
		if r.is('.') {
			return true
		}
	}
	caps, lines := r.caps, r.lines
	*r = save
	r.caps, r.lines = caps, lines
	return false
}

// body reads `{}` or `;`.
func (r *csReader) body() {
	if r.is(';') {
		r.next()
		return
	}
	r.expect('{')
	r.expect('}')
}

// skipBalanced reads from the open bracket (the token) to its closer,
// brackets nested.
func (r *csReader) skipBalanced(open, close byte) {
	depth := 0
	for !r.fail {
		switch {
		case r.kind == tEOF:
			r.bad()
			return
		case r.is(open):
			depth++
		case r.is(close):
			if depth--; depth == 0 {
				r.next()
				return
			}
		case r.is('{') || r.is('}') || r.is(';'):
			r.bad()
			return
		}
		r.next()
	}
}
