package codeindex

// javaDefs finds the definitions of a Java file in a build without
// tree-sitter, as csDefs does for C#: it reads the file's skeleton
// (bodies, parameters, arguments, imports and comments left out), a
// small language of declarations (`package a.b;`, `@A public class C<T>
// extends B implements I {`, `private int a = 1, b;`, `public <T> T m()
// throws E {}`, `C() {}`, `enum E { A, B; ... }`), and sets x.caps to the
// captures that the walk of the skeleton's parse finds (patterns, capture
// ids, node ranges, in its order), mapped to the file as parseDefs maps
// them. It reports false, leaving the file to the parse, for text it does
// not know to be what the grammar reads without error: a body or
// parameters the skeleton kept, a value but a name, an integer, `{}`,
// true, false or null, an annotation with arguments, an annotation type,
// a record, a name that is a keyword or a contextual one (sealed, var...)
// and whatever else is not in the shapes above.
//
// The parse of the skeleton and its walk were most of the Java corpus's
// build. Buffers keep their parse (Language.buildPass).
// TestJavaDefsCorpus checks this reader against the skeleton's parse file
// by file; FuzzJavaDefs against the parse of any text that parses cleanly.
//
// What the patterns of queries/java.scm see of tree-sitter-java's nodes:
// a declaration runs from its first modifier or annotation to its '}' or
// ';'; a field_declaration (in an interface: a constant_declaration)
// holds all its declarators, each a match; an enum constant runs from its
// name to the end of its arguments.
func javaDefs(x *extractor, l *Language, src []byte) bool {
	if x.javaIDs == nil {
		ids, ok := javaCapIDs(l)
		if !ok {
			return false
		}
		x.javaIDs = &ids
	}
	if !x.buildSkeleton(l, src) {
		return false
	}
	r := &x.java
	*r = javaReader{tokReader: tokReader{skelCaps: skelCaps{src: x.sk.buf, name: x.javaIDs.name, caps: r.caps[:0], lines: r.lines[:0]}, maxDepth: 64}, ids: *x.javaIDs}
	r.next()
	if r.word("package") {
		r.next()
		r.qualified()
		r.expect(';')
	}
	for !r.fail && r.word("import") {
		r.next()
		if r.word("static") {
			r.next()
		}
		r.qualified()
		if r.is('.') {
			r.next()
			r.expect('*')
		}
		r.expect(';')
	}
	for !r.fail && r.kind != tEOF {
		r.member(false, true)
	}
	if r.fail {
		return false
	}
	x.caps = r.toFile(x.caps[:0], &x.sk)
	return true
}

// javaIDs are the capture ids of queries/java.scm's definitions patterns.
type javaIDs struct {
	name, class, iface, enum, method, field, constant uint16
}

// javaCapIDs returns the capture ids of l's definitions (loaded), as the
// walk numbers them.
func javaCapIDs(l *Language) (javaIDs, bool) {
	var ids javaIDs
	want := map[string]*uint16{
		"name": &ids.name, "definition.class": &ids.class, "definition.interface": &ids.iface,
		"definition.enum": &ids.enum, "definition.method": &ids.method, "definition.field": &ids.field,
		"definition.constant": &ids.constant,
	}
	return ids, capIDs(l, want)
}

// The patterns of queries/java.scm, in order.
const (
	javaPatClass = iota
	javaPatRecord
	javaPatInterface
	javaPatAnnotationType
	javaPatEnum
	javaPatMethod
	javaPatConstructor
	javaPatField
	javaPatConstant
	javaPatEnumConstant
)

// javaReader reads the declarations of a Java skeleton.
type javaReader struct {
	tokReader
	ids javaIDs
}

// next reads the next token, past blanks; it fails on what the reader
// does not know (comments, literals, numbers but decimal integers with
// an optional L, names with bytes of UTF-8 or '$').
func (r *javaReader) next() {
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
		if e < len(src) && (src[e] >= 0x80 || src[e] == '$' || src[e] == '"' || src[e] == '\'') {
			r.bad()
			return
		}
		r.kind, r.end = tIdent, e
	case c >= '0' && c <= '9':
		e := i + 1
		for e < len(src) && src[e] >= '0' && src[e] <= '9' {
			e++
		}
		if e < len(src) && (src[e] == 'L' || src[e] == 'l') {
			e++
		}
		if e < len(src) && (isIdentByte(src[e]) || src[e] == '.' || src[e] == '\'' || src[e] >= 0x80 || src[e] == '$') {
			r.bad() // 0x1, 1.5, 1_000
			return
		}
		r.kind, r.end = tNumber, e
	case c == '{' || c == '}' || c == '(' || c == ')' || c == '[' || c == ']' || c == '<' || c == '>' || c == ',' || c == ';' || c == '.' || c == '?' || c == '@' || c == '&' || c == '-' || c == '*' || c == '=':
		r.kind, r.end = tPunct, i+1
	default:
		r.bad() // a literal, a comment, '$'...
	}
}

// expect reads the punctuation p, or fails.
func (r *javaReader) expect(p byte) {
	if !r.is(p) {
		r.bad()
		return
	}
	r.next()
}

// name reads an identifier that names a declaration (not a keyword, nor
// a contextual one) and returns its range, or fails.
func (r *javaReader) name() (int, int) {
	if r.kind != tIdent || javaKeywords[string(r.src[r.pos:r.end])] || javaContextual[string(r.src[r.pos:r.end])] {
		r.bad()
		return 0, 0
	}
	s, e := r.pos, r.end
	r.next()
	return s, e
}

// qualified reads a name, or names joined by '.'; a '.' not followed by
// a name stays the token.
func (r *javaReader) qualified() {
	r.name()
	for !r.fail && r.is('.') && r.peekIdent() {
		r.next()
		r.name()
	}
}

// javaModifiers are the modifiers the reader takes before a declaration.
var javaModifiers = words("public private protected static final abstract synchronized native transient volatile strictfp default")

// javaPrimitives are the types that are keywords.
var javaPrimitives = words("boolean byte char short int long float double")

// javaKeywords are Java's reserved words; javaContextual the contextual
// ones the reader does not take for a name (the grammar may read them
// otherwise).
var (
	javaKeywords   = words("abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while true false null")
	javaContextual = words("exports module non open opens permits provides record requires sealed to transitive uses var when with yield")
)

// member reads a declaration of a type's body or of the file (top);
// iface: of an interface's body, where fields are constants.
func (r *javaReader) member(iface, top bool) {
	if !r.enter() {
		return
	}
	defer r.leave()
	start := r.pos
	for !r.fail {
		if r.is('@') {
			r.annotation()
			continue
		}
		if r.kind == tIdent && javaModifiers[string(r.src[r.pos:r.end])] {
			r.next()
			continue
		}
		break
	}
	switch {
	case r.word("class"):
		r.typeDecl(start, javaPatClass, r.ids.class, false)
		return
	case r.word("interface"):
		r.typeDecl(start, javaPatInterface, r.ids.iface, true)
		return
	case r.word("enum"):
		r.enumDecl(start)
		return
	}
	if top {
		r.bad()
		return
	}
	if r.is('{') && r.pos == start || r.is('{') && r.word2(start, "static") {
		// An initializer: no pattern.
		r.next()
		r.expect('}')
		return
	}
	if r.is('<') {
		r.typeParams()
	}
	if r.kind == tIdent && r.end < len(r.src) && r.src[r.end] == '(' {
		// A constructor: its name and parameters.
		ns, ne := r.name()
		r.params()
		r.throws()
		r.expect('{')
		r.expect('}')
		r.capture(javaPatConstructor, r.ids.method, start, r.prevEnd, ns, ne)
		return
	}
	if r.word("void") {
		r.next()
	} else {
		r.typ()
	}
	ns, ne := r.name()
	switch {
	case r.is('('):
		r.params()
		r.throws()
		if r.is(';') {
			r.next()
		} else {
			r.expect('{')
			r.expect('}')
		}
		r.capture(javaPatMethod, r.ids.method, start, r.prevEnd, ns, ne)
	case r.is(';') || r.is(',') || r.is('='):
		// A field: a match for each of its names, all over the whole
		// declaration.
		pat, def := javaPatField, r.ids.field
		if iface {
			pat, def = javaPatConstant, r.ids.constant
		}
		first := len(r.caps)
		r.capture(pat, def, start, 0, ns, ne)
		r.value()
		for !r.fail && r.is(',') {
			r.next()
			ns, ne := r.name()
			r.capture(pat, def, start, 0, ns, ne)
			r.value()
		}
		r.expect(';')
		for i := first; i < len(r.caps); i += 2 {
			r.caps[i].end = r.prevEnd
		}
	default:
		r.bad()
	}
}

// word2 reports whether the declaration from start is the single word w
// up to the token.
func (r *javaReader) word2(start int, w string) bool {
	return r.prevEnd-start == len(w) && string(r.src[start:r.prevEnd]) == w
}

// annotation reads a marker annotation (@A, @a.b.C) or one whose
// arguments the skeleton emptied (@A()); an annotation type's @interface
// goes to the parse.
func (r *javaReader) annotation() {
	r.next()
	if r.word("interface") {
		r.bad()
		return
	}
	r.qualified()
	if r.is('(') {
		r.next()
		r.expect(')')
	}
}

// value reads a declarator's value, if any: a name, a qualified name, an
// integer (negative too), `{}`, true, false, null, a call or a creation
// with no arguments (`f()`, `a.b()`, `new T()`).
func (r *javaReader) value() {
	if !r.is('=') {
		return
	}
	r.next()
	switch {
	case r.is('-'):
		r.next()
		if r.kind != tNumber {
			r.bad()
			return
		}
		r.next()
	case r.kind == tNumber:
		r.next()
	case r.is('{'):
		r.next()
		r.expect('}')
	case r.word("true") || r.word("false") || r.word("null"):
		r.next()
	case r.word("new"): // new T(): its arguments emptied, no class body
		r.next()
		r.typ()
		r.expect('(')
		r.expect(')')
	default: // a name, a field, a call whose arguments the skeleton emptied
		r.qualified()
		if r.is('(') {
			r.next()
			r.expect(')')
		}
	}
	if !r.is(',') && !r.is(';') {
		r.bad()
	}
}

// typeDecl reads a class or interface whose keyword is the token.
func (r *javaReader) typeDecl(start, pattern int, def uint16, iface bool) {
	r.next()
	ns, ne := r.name()
	r.typeParams()
	if !iface && r.word("extends") {
		r.next()
		r.typ()
	}
	if r.word("extends") && iface || r.word("implements") && !iface {
		r.next()
		r.typ()
		for r.is(',') {
			r.next()
			r.typ()
		}
	}
	if !r.is('{') {
		r.bad()
		return
	}
	i := r.capture(pattern, def, start, 0, ns, ne)
	r.next()
	r.body(iface)
	r.caps[i].end = r.prevEnd
	if r.is(';') {
		r.bad()
	}
}

// body reads the members of a type's body up to and past its '}'.
func (r *javaReader) body(iface bool) {
	for !r.fail && !r.is('}') {
		if r.kind == tEOF {
			r.bad()
			return
		}
		r.member(iface, false)
	}
	r.next()
}

// enumDecl reads an enum whose keyword is the token.
func (r *javaReader) enumDecl(start int) {
	r.next()
	ns, ne := r.name()
	if r.word("implements") {
		r.next()
		r.typ()
		for r.is(',') {
			r.next()
			r.typ()
		}
	}
	if !r.is('{') {
		r.bad()
		return
	}
	i := r.capture(javaPatEnum, r.ids.enum, start, 0, ns, ne)
	r.next()
	for !r.fail && r.kind == tIdent {
		s, e := r.name()
		if r.is('(') {
			r.next()
			r.expect(')')
		}
		r.capture(javaPatEnumConstant, r.ids.constant, s, r.prevEnd, s, e)
		if !r.is(',') {
			break
		}
		r.next()
	}
	if r.is(';') {
		r.next()
		r.body(false)
	} else {
		r.expect('}')
	}
	r.caps[i].end = r.prevEnd
	if r.is(';') {
		r.bad()
	}
}

// typ reads a type: a primitive, a name, qualified (a.b.C), with type
// arguments (wildcards too), arrays.
func (r *javaReader) typ() {
	if !r.enter() {
		return
	}
	defer r.leave()
	if r.kind == tIdent && javaPrimitives[string(r.src[r.pos:r.end])] {
		r.next()
	} else {
		r.typeName()
		for !r.fail && r.is('.') {
			r.next()
			r.typeName()
		}
	}
	for !r.fail && r.is('[') {
		r.next()
		r.expect(']')
	}
}

// typeName reads a name of a type and its type arguments.
func (r *javaReader) typeName() {
	r.name()
	if r.fail || !r.is('<') {
		return
	}
	r.next()
	for !r.fail {
		if r.is('?') {
			r.next()
			if r.word("extends") || r.word("super") {
				r.next()
				r.typ()
			}
		} else {
			r.typ()
		}
		if !r.is(',') {
			break
		}
		r.next()
	}
	r.expect('>')
}

// typeParams reads type parameters (<T, U extends A & B<U>>), if any.
func (r *javaReader) typeParams() {
	if !r.is('<') {
		return
	}
	r.next()
	for !r.fail {
		r.name()
		if r.word("extends") {
			r.next()
			r.typ()
			for !r.fail && r.is('&') {
				r.next()
				r.typ()
			}
		}
		if !r.is(',') {
			break
		}
		r.next()
	}
	r.expect('>')
}

// params reads a parameter list: `()`, or one the skeleton kept as too
// short to cut (`(E e)`, `(final int[] a)`).
func (r *javaReader) params() {
	r.expect('(')
	for !r.fail && !r.is(')') {
		if r.word("final") {
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

// throws reads a throws clause, if any.
func (r *javaReader) throws() {
	if !r.word("throws") {
		return
	}
	r.next()
	r.typ()
	for !r.fail && r.is(',') {
		r.next()
		r.typ()
	}
}
