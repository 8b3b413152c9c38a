package codeindex

import (
	"bytes"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// A syntax is what the index knows of a language's surface, apart from its
// grammar: the lexer (lexer.go) reads comments and literals by it, and the
// skeleton (skeleton*.go), the identifier scan, the doc-comment lookup and
// the import scan all go through that one lexer.
type syntax struct {
	family       string    // languages whose files use each other's definitions
	lineComments []string  // longest first
	blockComment [2]string // "" when the language has none
	nested       bool      // block comments nest (Rust)
	quotes       string    // string and character quotes, backslash escapes
	multiline    bool      // a quoted string may span lines (else a newline ends a malformed one)
	backtick     byte      // '`' strings: 'r' raw (Go), 't' templates with ${} (JavaScript)
	triple       bool      // """ strings (Python: and '''; Java text blocks, C# raw strings)
	verbatim     bool      // C#: @"..." without escapes, "" for a quote
	rawPrefix    bool      // Rust r#"..."#, C++ R"d(...)d"
	lifetimes    bool      // Rust: ' starts a lifetime unless it is a character literal
	longBrackets bool      // Lua: [[...]], [==[...]==] strings and --[[...]] comments
	regex        bool      // a / where an operand is expected starts a regular expression
	jsx          bool      // a < where an operand is expected may start JSX (a literal: lexer.jsxElement)
	preproc      bool      // C, C++, C#: # lines are directives
	heredoc      bool      // PHP: <<<ID ... ID
	hashAttr     bool      // "#[" starts an attribute, not a comment (PHP 8)
	// leadingComments: the grammar makes the comments before a statement
	// part of it (Lua's, for EmmyLua); a definition starts after them.
	leadingComments bool
	// reserved words are never the name of a definition (Lua's grammar
	// reads `-- @function f` annotations and may make one of the next
	// line's keyword).
	reserved map[string]bool

	body bodyRule
	// parens: which parentheses the brace skeleton empties (parensAny:
	// every one after a name but those after the keep words;
	// parensBody: a function's parameters before its body, where `T
	// x(1);` would become a prototype).
	parens parenRule
	keep   []string
	// generics: `name<T>(` is a name's parenthesis too.
	generics bool
	// templates: the skeleton empties C++'s `template <...>`.
	templates bool
	// attrMacros: the skeleton leaves out C's attribute macros (see
	// bskel.attrMacro).
	attrMacros bool
	// macroRuns: the skeleton leaves out runs of lines of macro
	// invocations without a terminator (see bskel.macroRun).
	macroRuns bool
	// macroStmts: the skeleton leaves out a statement that is one macro
	// invocation and its semicolon (C: DEFINE_PER_CPU(int, x);), not runs
	// of lines (see bskel.macroRun).
	macroStmts bool
	// macros: name!(...), name! {...} and macro_rules! name {...} hold
	// token trees (Rust): the skeleton leaves them out.
	macros bool
	// containers are keywords whose braces hold definitions (class,
	// namespace, impl…); funcs keywords that open a function (its braces
	// are a body); defs keywords that define something wherever they stand
	// (a body holding one keeps its contents).
	containers, funcs, defs []string
	// anyContainer: these container keywords hold definitions even after a
	// parameter list or an '=' (Java records, C# primary constructors,
	// TypeScript type literals).
	anyContainer []string
	// identBrace: in a block that holds definitions, a brace right after
	// an identifier holds definitions too (Rust struct variants, Java enum
	// constants with a body). Not C#'s: there it opens a property's or an
	// event's accessors, which define nothing (`int X {}` is a property
	// still), or a method's body after a constraint (`where T : IFoo {`).
	identBrace bool
	// declNames: a container or def keyword declares something only when
	// a name follows it (C#: `where T : class {` is a method's body,
	// `delegate (x) { ... }` an anonymous method; `class C`, `delegate
	// void D()` declare).
	declNames bool
	// importWord: the skeleton leaves out whole the directives this word
	// starts (C#'s `using System.Text;`, `using static M;`, `using A =
	// B.C<D>;`, Java's `import a.b.*;`, PHP's `use A\B as C;` and a
	// class's `use T;`): they define nothing, and they were a tenth of
	// C#'s skeleton, more of its parse, a quarter of PHP's skeleton.
	importWord string
	// mods: modifiers that mean nothing to the definitions query; the
	// skeleton leaves out those that follow another (`public static
	// readonly int x;` becomes `public int x;`: the first stays, where
	// the definition starts).
	mods map[string]bool
	// plainBodies: a brace that is not a container's holds a definition
	// only where a container or def word names one in it (C#: no local
	// classes nor anonymous ones); the skeleton reads such a brace by its
	// brackets alone (see bskel.plainBody).
	plainBodies bool
	// cBodies: a brace that is not a container's is read by its
	// brackets alone where nothing in it may define (C, C++: see
	// bskel.cBody).
	cBodies bool
	// cutIncludes: the skeleton leaves out #include lines whole (C, C++:
	// they define nothing, and were a tenth of C++'s skeleton).
	cutIncludes bool
	// cutIndent: the skeleton leaves out the indentation of lines (C++:
	// the parser's lexer skips it a byte at a time, and it was a sixth of
	// C++'s skeleton; C's, of tabs, is too little to pay its cuts).
	cutIndent bool
	// defineValues: the skeleton leaves out the value of a #define (see
	// bskel.defineValue).
	defineValues bool
	// cutDirectives: the skeleton leaves out preprocessor lines whole
	// (see bskel.cutDirective).
	cutDirectives bool
	// values: the skeleton leaves out the values of fields, properties
	// and enum members (see bskel.valueCut).
	values bool
	// attributes: the skeleton leaves out the attributes before a
	// declaration (see bskel.attrCut).
	attributes bool
	// typeQualifiers: the skeleton leaves out the qualifiers of a dotted
	// name that follows a word outside parentheses (`private
	// System.Windows.Forms.Button m_btn;` becomes `private Button
	// m_btn;`), not in a container's head (`namespace A.B`, whose name
	// the query takes whole; `class C : A.B`), nor one that starts a
	// declaration (the definition starts there).
	typeQualifiers bool
	// typeAliases: `type T` defines wherever it stands (TypeScript).
	typeAliases bool
	// jsBodies: a brace that is not a container's is read by its
	// brackets alone where nothing in it may define (JavaScript: see
	// bskel.jsSkip).
	jsBodies bool
	// anonClass: `new T(...) {` opens a class body (Java).
	anonClass bool
	// methods: `name(...) {` defines a method wherever it stands (object
	// literals of JavaScript).
	methods bool
	// assignFuncs: `= function` and `= (...) =>` define the name assigned;
	// pairFuncs: so does `name: function` in an object literal.
	assignFuncs, pairFuncs bool

	// imports, when set, reads the imports of a file (by this syntax's
	// lexer) by the name they are used with (goImports).
	imports func(sx *syntax, src []byte) map[string]string
	// testData: the language keeps fixtures under testdata/ (Go), which
	// define names they do not own.
	testData bool

	kw map[string]uint8 // the kw* flags of each word (set by init, see byExt)
	// words are the words the skeleton compares identifiers with, each
	// by itself (see word).
	words map[string]wordInfo
	// wordLens: for each first byte, the lengths (bits) of the words
	// starting with it.
	wordLens [256]uint32
	// defLens: the same of the container and def words.
	defLens [256]uint32
	// commentStart: the bytes a comment may start with.
	commentStart [256]bool
	// literalStart: the bytes a literal may start with (lexer.literal's
	// cases): the lexer asks literal about no other.
	literalStart [256]bool
}

// bodyRule is how a language delimits the bodies its skeleton leaves out.
type bodyRule uint8

const (
	bodyNone     bodyRule = iota // no skeleton: the whole file is parsed
	bodyGo                       // goSkeleton
	bodyBrackets                 // braces (bracketSkeleton)
	bodyIndent                   // indentation (pythonSkeleton)
	bodyEnd                      // keywords closed by `end` (luaSkeleton)
	bodyRuby                     // Ruby's `end` blocks (rubySkeleton)
)

// parenRule is which parentheses the brace skeleton empties.
type parenRule uint8

const (
	parensNone parenRule = iota
	parensAny
	parensBody
)

const (
	kwContainer = 1 << iota
	kwFunc
	kwDef
	kwAny
	kwControl // if, for, while…: `kw (...) {` is a statement
	kwKeep    // `kw (...)`: the parenthesis stays whole (see syntax.keep)
)

// control words before a parenthesis that make `(...) {` a statement, not
// a method, and words after which an operand is expected (a '/' there
// starts a regular expression).
var controlWords = []string{"if", "try", "for", "while", "switch", "catch", "with", "foreach", "elseif", "synchronized", "using", "lock", "fixed", "match", "return", "typeof", "instanceof", "new", "delete", "void", "throw", "case", "do", "else", "in", "of", "yield", "await"}

// rustControl are Rust's control words: new, with, lock… are names of
// functions there (`fn new(...)`, whose parameters the skeleton empties).
var rustControl = []string{"if", "for", "while", "match", "return", "else", "in", "loop", "await", "yield", "do", "try"}

func (sx *syntax) init() {
	sx.kw = make(map[string]uint8)
	for _, w := range sx.containers {
		sx.kw[w] |= kwContainer
	}
	for _, w := range sx.anyContainer {
		sx.kw[w] |= kwContainer | kwAny
	}
	for _, w := range sx.funcs {
		sx.kw[w] |= kwFunc
	}
	for _, w := range sx.defs {
		sx.kw[w] |= kwDef
	}
	control := controlWords
	if sx.macros {
		control = rustControl
	}
	for _, w := range control {
		sx.kw[w] |= kwControl
	}
	for _, w := range sx.keep {
		sx.kw[w] |= kwKeep
	}
	for _, m := range sx.lineComments {
		sx.commentStart[m[0]] = true
	}
	if b := sx.blockComment[0]; b != "" {
		sx.commentStart[b[0]] = true
	}
	for i := 0; i < len(sx.quotes); i++ {
		sx.literalStart[sx.quotes[i]] = true
	}
	for _, c := range []struct {
		on bool
		b  string
	}{{sx.lifetimes, "'"}, {sx.triple, `"'`}, {sx.verbatim, "@"}, {sx.backtick != 0, "`"}, {sx.longBrackets, "["}, {sx.regex, "/"}, {sx.heredoc, "<"}} {
		for i := 0; c.on && i < len(c.b); i++ {
			sx.literalStart[c.b[i]] = true
		}
	}
	sx.words = make(map[string]wordInfo)
	for w, f := range sx.kw {
		sx.words[w] = wordInfo{w, f}
	}
	for _, set := range []map[string]bool{qualifiers, cTypeWords, cBuiltinTypes, access, cppSpecifiers, words("async return new template macro_rules")} {
		for w := range set {
			sx.words[w] = wordInfo{w, sx.kw[w]}
		}
	}
	for w := range sx.mods {
		sx.words[w] = wordInfo{w, sx.kw[w]}
	}
	for w := range sx.words {
		if len(w) < 32 {
			sx.wordLens[w[0]] |= 1 << len(w)
			if sx.kw[w]&(kwContainer|kwDef) != 0 {
				sx.defLens[w[0]] |= 1 << len(w)
			}
		}
	}
}

var cLike = syntax{lineComments: []string{"//"}, blockComment: [2]string{"/*", "*/"}, quotes: `"'`}

// mk makes a syntax record; its tables for the lexer are built with the
// languages' (see byExt).
func mk(s syntax) *syntax {
	return &s
}

// withC is mk with C's comments and quotes where s names none.
func withC(s syntax) *syntax {
	if s.lineComments == nil {
		s.lineComments = cLike.lineComments
	}
	if s.blockComment[0] == "" {
		s.blockComment = cLike.blockComment
	}
	if s.quotes == "" {
		s.quotes = cLike.quotes
	}
	return mk(s)
}

// Words whose parenthesis must keep its contents (see syntax.keep).
var (
	cKeep  = strings.Fields("sizeof alignof _Alignof decltype typeof __typeof__ __attribute__ __declspec requires static_assert _Static_assert alignas noexcept throw asm __asm__ defined operator")
	jsKeep = strings.Fields("import extends implements is as keyof infer satisfies unique readonly asserts declare")
)

var (
	goSyntax = withC(syntax{family: "go", backtick: 'r', body: bodyGo, imports: goImports, testData: true})
	cSyntax  = withC(syntax{attrMacros: true, macroStmts: true, cBodies: true, defineValues: true, cutIncludes: true, family: "c", preproc: true, body: bodyBrackets, parens: parensBody, keep: cKeep,
		containers: []string{"struct", "union", "enum"}, defs: []string{"typedef"}})
	cppSyntax = withC(syntax{attrMacros: true, macroRuns: true, templates: true, cBodies: true, defineValues: true, cutIncludes: true, cutIndent: true, family: "c", preproc: true, rawPrefix: true, body: bodyBrackets, parens: parensBody, keep: cKeep,
		containers: []string{"struct", "union", "enum", "class", "namespace", "extern"}, defs: []string{"typedef", "using"}})
	javaSyntax = withC(syntax{generics: true, family: "java", triple: true, body: bodyBrackets, parens: parensAny, keep: []string{"assert"}, anonClass: true, identBrace: true, importWord: "import",
		mods:       words("public private protected static final abstract synchronized native transient volatile strictfp"),
		containers: []string{"class", "interface", "enum"}, anyContainer: []string{"record"}})
	csharpSyntax = withC(syntax{generics: true, family: "csharp", preproc: true, triple: true, verbatim: true, body: bodyBrackets, parens: parensAny,
		keep:       strings.Fields("default sizeof checked unchecked stackalloc when is as out ref params public private protected internal static readonly async override virtual abstract sealed extern unsafe volatile const partial implicit explicit operator where var get set init add remove"),
		containers: []string{"namespace"}, anyContainer: []string{"class", "struct", "interface", "enum", "record"}, defs: []string{"delegate"}, declNames: true, importWord: "using", plainBodies: true, cutDirectives: true, values: true, attributes: true, typeQualifiers: true,
		mods: words("public private protected internal static readonly virtual override abstract sealed extern unsafe volatile async")})
	jsSyntax = withC(syntax{family: "js", backtick: 't', regex: true, jsx: true, body: bodyBrackets, parens: parensAny, keep: jsKeep, methods: true, assignFuncs: true, pairFuncs: true, jsBodies: true,
		anyContainer: []string{"class"}, funcs: []string{"function"}})
	tsSyntax = withC(syntax{generics: true, family: "js", backtick: 't', regex: true, body: bodyBrackets, parens: parensAny, keep: jsKeep, methods: true, assignFuncs: true, typeAliases: true,
		containers: []string{"namespace", "module", "declare", "global"}, anyContainer: []string{"class", "interface", "enum", "type"},
		funcs: []string{"function"}, defs: []string{"abstract"}})
	tsxSyntax  = func() *syntax { s := *tsSyntax; s.jsx = true; return &s }()
	rustSyntax = withC(syntax{macros: true, generics: true, family: "rust", nested: true, multiline: true, rawPrefix: true, lifetimes: true, body: bodyBrackets, parens: parensAny,
		keep: strings.Fields("pub as dyn mut ref unsafe const static crate self super where move let loop box"), identBrace: true,
		anyContainer: []string{"struct", "union", "enum", "trait", "impl", "mod", "extern"}, funcs: []string{"fn"},
		defs: []string{"fn", "const", "static", "type", "macro_rules", "struct", "enum", "union", "trait", "mod"}})
	phpSyntax = withC(syntax{family: "php", lineComments: []string{"//", "#"}, multiline: true, heredoc: true, hashAttr: true, body: bodyBrackets, parens: parensAny, importWord: "use",
		keep:       strings.Fields("isset empty unset list echo print include include_once require require_once exit die eval declare match use clone global instanceof and or xor as"),
		containers: []string{"class", "interface", "trait", "enum", "namespace"}, funcs: []string{"function"}, defs: []string{"const"}})
	pythonSyntax = mk(syntax{family: "python", lineComments: []string{"#"}, quotes: `"'`, triple: true, body: bodyIndent, defs: []string{"def", "class"}})
	rubySyntax   = mk(syntax{family: "ruby", lineComments: []string{"#"}, quotes: `"'`, multiline: true, regex: true, body: bodyRuby})
	luaSyntax    = mk(syntax{family: "lua", lineComments: []string{"--"}, quotes: `"'`, longBrackets: true, leadingComments: true, body: bodyEnd, reserved: words("and break do else elseif end false for function goto if in local nil not or repeat return then true until while"), funcs: []string{"function"}})
)

// wordKw returns the identifier b as the skeleton keeps it: one of the
// words it compares identifiers with, else "~" (any other name), so that
// reading a name allocates nothing; and the word's kw flags, in the same
// lookup.
func (sx *syntax) wordKw(b []byte) (string, uint8) {
	if len(b) >= 32 || sx.wordLens[b[0]]&(1<<len(b)) == 0 {
		return "~", 0 // no word starts so and is so long: no lookup
	}
	if w, ok := sx.words[string(b)]; ok {
		return w.w, w.f
	}
	return "~", 0
}

// wordInfo is a word the skeleton compares identifiers with, and its kw
// flags.
type wordInfo struct {
	w string
	f uint8
}

// skeleton returns the skeleton maker of the body rule, or nil.
func (sx *syntax) skeleton() func(out *skelOut, src []byte) bool {
	switch sx.body {
	case bodyGo:
		return goSkeleton
	case bodyBrackets:
		return bracketSkeleton(sx)
	case bodyEnd:
		return luaSkeleton
	case bodyIndent:
		return pythonSkeleton
	case bodyRuby:
		return rubySkeleton
	}
	return nil
}

// blockOpen returns the opening marker of the block comment that line
// (trimmed) ends, if it ends with a closing one: C's */, Lua's ]] or ]=].
func (sx *syntax) blockOpen(line []byte) string {
	if c := sx.blockComment[1]; c != "" && bytes.HasSuffix(line, []byte(c)) {
		return sx.blockComment[0]
	}
	if sx.longBrackets && bytes.HasSuffix(line, []byte("]")) {
		t := bytes.TrimRight(line[:len(line)-1], "=")
		if bytes.HasSuffix(t, []byte("]")) {
			return "--["
		}
	}
	return ""
}

// skipComments moves the start of r past the comments and white space it
// starts with.
func (sx *syntax) skipComments(src []byte, r *sitter.Range) {
	lx := lexer{sx: sx, src: src}
	off := int(r.StartByte)
	for off < int(r.EndByte) {
		k, e := lx.next(off)
		if k != tSpace && k != tComment || e > int(r.EndByte) {
			break
		}
		for _, c := range src[off:e] {
			if c == '\n' {
				r.StartPoint.Row++
				r.StartPoint.Column = 0
			} else {
				r.StartPoint.Column++
			}
		}
		off = e
	}
	r.StartByte = uint32(off)
}

func words(s string) map[string]bool {
	ws := strings.Fields(s)
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
