package codeindex

import (
	"bytes"

	sitter "github.com/smacker/go-tree-sitter"
)

// bracketSkeleton makes out the text of a file of a language that
// delimits bodies with braces (C, C++, Java, C#, JavaScript, TypeScript,
// Rust, PHP) for a definitions-only parse: it leaves out comments and the
// contents of every brace that cannot hold a definition (function and
// method bodies, initializers, object literals, large array literals where a
// value is expected: after =, (, comma, :, => or return),
// keeping the braces, and keeps the braces that can (class, struct, enum,
// interface, namespace, impl, trait and module bodies, anonymous classes,
// object literals that define methods, and any body that holds a
// definition: a class in a function, a named function in a function).
// It returns false, meaning "parse everything", when the lexer cannot read
// the file or its brackets do not balance.
func bracketSkeleton(sx *syntax) func(out *skelOut, src []byte) bool {
	return func(out *skelOut, src []byte) bool {
		out.reset()
		b := bskel{skeleton: skeleton{src: src, out: out}, lx: lexer{sx: sx, src: src}, sx: sx}
		// A byte order mark stays, but is no word before the first
		// declaration (the lexer reads its bytes as a name's).
		start := 0
		if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
			start = 3
		}
		end, _ := b.block(start, 0, true)
		if b.fail || end != len(src) || b.cuts == 0 {
			return false
		}
		b.cut(len(src), len(src))
		return true
	}
}

type bskel struct {
	skeleton
	lx   lexer
	sx   *syntax
	fail bool
	then int // Lua: the end of the first `then` of the block luaBlock just read
	// unwrap: the offset of the parenthesis that closes a macro around a
	// type (see typeMacro); it goes too.
	unwrap int
	// enum: the block about to be read is the body of a Java enum, whose
	// constants may have bodies (A(1) { ... }).
	enum bool
	// rblocks: the offsets of the braces of the blocks that hold a
	// definition in the Rust statements being read, two by two (each
	// block's are at its end, from where they were when it began).
	rblocks []int
}

// group is an open or the last closed parenthesis of a block: the word
// before it (a function's or a control statement's) and the token before
// that.
type group struct {
	name    string
	before  byte // token class (see block) before the name
	afterEq bool // it opens right after '=' (or '= async')
	isNew   bool // it follows `new T` (Java: then a brace opens an anonymous class)
	paren   int  // the depth it opened at
	// Of a parenthesis: its offset, its closer's, the skeleton before it
	// (to cut its contents once closed) and whether a definition or a
	// directive is inside.
	open, close int
	snap        skelSnap
	complex     bool
	// ifs: the #if groups open in it (C++): a parenthesis that holds
	// whole #if groups only may go whole (Geometry's `get(G const& g
	// #ifndef DOXYGEN_SHOULD_SKIP_THIS , dummy* = 0 #endif )`).
	ifs     int
	generic bool // after type parameters: f<T>(
}

// minLiteral is the least size of an array literal worth leaving out.
const minLiteral = 64

// block reads from off to the bracket closer that ends the block (none
// at the top; inContainer: the block holds definitions) and returns its offset and whether the block holds a
// definition (then its contents stay). Token classes: 'i' identifier or
// keyword, 'o' other operand (number, string), 'A' arrow, else the byte of
// punctuation.
func (b *bskel) block(off int, closer byte, inContainer bool) (end int, defs bool) {
	src, sx := b.src, b.sx
	var (
		prev, prev2         byte = ';', ';'
		prevWord, prev2Word string
		head                uint8 // keyword flags of this statement, outside parentheses
		headBlocked         bool  // an '=' after its container keyword
		paren               int
		base                = len(b.out.groups) // this block's groups are b.out.groups[base:]
		last                group               // the last closed group
		pendingFunc         bool                // after `function`: a name makes it a definition
		pendingNew          bool                // after `new`, until a parenthesis
		funcFirst           bool                // the head's first container or function keyword is a function's
		typedReturn         bool                // a ':' right after the last group (a TypeScript return type)
		genericEq           bool                // '<' right after '=' (a generic arrow function)
		headAngle           int                 // '<' not yet closed after a container keyword (type parameters: <T = {}>)
		tokN                int
		eqTok, eqParen      = -10, -1
		macroTok            = -10 // the token after a Rust macro's `name!`
		macroStart          = -1  // where that macro's name starts, when it starts an item or a statement
		macroSnap           skelSnap
		implHead            bool // Rust: in the header of an impl item, before its body
		implTok             int  // the token after its `impl`
		pubOff              = -1 // Rust: the offset of the last `pub` that starts an item
		macroWord           string
		tail                [2][2]int // macros left out after the last group closed (macroAttr)
		tailN               int
		stmtEq              bool // an '=' outside parentheses in this statement
		typeStmt            bool // C++: the statement is a typedef or an alias (using T = ...), all types
		typedEq             bool // a ':' after a parenthesis opened right after '=' (an arrow's return type)
		// init: the ':' after a parameter list (C++: `X(int a) : a_(a) {`),
		// the parameters and the macros left out after them.
		// ret: where a Rust fn's parameters end, and the skeleton there.
		ret struct {
			from int
			snap skelSnap
		}
		init struct {
			colon  int
			params group
			tail   [2][2]int
			tailN  int
		}
	)
	// stmt: the statement being read in a function's body (C, C++): where
	// it starts and the skeleton there, how many definitions were found
	// before it, whether it holds a directive and whether it starts with
	// a control word or a brace (then a block ends it).
	var stmt struct {
		start, defs int
		snap        skelSnap
		bad         bool
		ctrl, keep  bool
	}
	stmt.start = -1
	// chain: the last name read and its token's number, and whether the
	// dotted name it is in may lose its qualifiers (C#: see
	// syntax.typeQualifiers).
	var chain struct {
		start, tok int
		ok         bool
	}
	cutStmts := (sx.parens == parensBody || sx.macros) && closer == '}' && !inContainer
	// enumConsts: this block is an enum's body, before the ';' that
	// ends its constants; headEnum: the statement has the word enum.
	enumConsts, headEnum := b.enum, false
	b.enum = false
	// setDefs notes a definition in this block (the contents of the
	// parentheses it is in then stay).
	nDefs := 0        // setDefs calls, to tell whether a statement made one
	lastBody := false // the last brace closed a function's body
	setDefs := func() {
		defs = true
		nDefs++
		for i := range b.out.groups[base:] {
			b.out.groups[base+i].complex = true
		}
	}
	// throwsHead: a Java throws clause since the last ';', '{' or '}' (the
	// brace after `) throws E` opens a method's body, not a block of
	// definitions as identBrace would have it).
	throwsHead := false
	push := func(class byte, word string) {
		prev2, prev2Word = prev, prevWord
		prev, prevWord = class, word
		tokN++
		if class == ';' || class == '}' {
			throwsHead = false
		}
	}
	// rustStmtGo: the Rust statement being read ends before end. One that
	// holds no definition goes; one whose definitions are all in blocks
	// (if a { struct A; } else {...}, spawn(move || { fn f() {} });) goes
	// but for those blocks, read again, each a statement to the parser.
	// The blocks of the statement are b.rblocks[rbase:].
	rbase := len(b.rblocks)
	rustStmtGo := func(end int) {
		if stmt.bad || headAngle != 0 {
			return
		}
		switch n := len(b.rblocks) - rbase; {
		case nDefs == stmt.defs:
			b.restore(stmt.snap)
			b.cut(stmt.start, end)
		case n > 0 && nDefs-stmt.defs == n/2:
			b.restore(stmt.snap)
			from := stmt.start
			for i := 0; i < n; i += 2 {
				open, close := b.rblocks[rbase+i], b.rblocks[rbase+i+1]
				if open > from {
					b.cut(from, open)
				}
				if c, _ := b.block(open+1, '}', false); b.fail || c != close {
					b.fail = true // (read as the first time)
					return
				}
				from = close + 1
			}
			if end > from {
				b.cut(from, end)
			}
		}
	}
	// rustBlockStmt: a Rust block (or a macro's braces) closed before off
	// at this block's level; when a name, a block or an attribute follows
	// (rustStmtEnd), the statement ends there (an item, if {...} else
	// {...}, loop {...}, unsafe {...}, macro_rules! m {...}).
	rustBlockStmt := func(off int) {
		if stmt.start >= 0 && b.rustStmtEnd(off) {
			rustStmtGo(off)
			stmt.start = -1
		}
	}
	afterDirective := false // the last token but blanks and comments was a directive
	for off < len(src) {
		k, e := b.lx.next(off)
		if k != tSpace && k != tComment {
			afterDirective = k == tDirective
		}
		if cutStmts && stmt.start < 0 && k >= tString && k <= tPunct {
			stmt.start, stmt.snap, stmt.defs, stmt.bad = off, b.save(), nDefs, false
			b.rblocks = b.rblocks[:rbase]
			stmt.ctrl = k == tPunct && src[off] == '{'
			stmt.keep = stmt.ctrl
			if k == tIdent {
				w, f := sx.wordKw(src[off:e])
				stmt.ctrl = f&kwControl != 0
				stmt.keep = stmt.ctrl && w != "return"
			}
		}
		switch k {
		case tSpace:
			if sx.cutIndent && e-off > 1 {
				first, last := bytes.IndexByte(src[off:e], '\n'), bytes.LastIndexByte(src[off:e], '\n')
				switch {
				case first >= 0 && first < last && !afterDirective:
					// Blank lines (and the indentation after them): one
					// newline stays. Not after a directive, where a blank
					// line ends a #define without a value (defineValue).
					b.cut(off+first+1, e)
				case last >= 0 && off+last+1 < e:
					b.cut(off+last+1, e) // a line's indentation
				}
			}
			off = e
			continue
		case tComment:
			if sx.macros {
				e = b.rustCommentLines(off, e)
			}
			b.cutComment(off, e)
			off = e
			continue
		case tDirective:
			if sx.cutDirectives || sx.cutIncludes && isInclude(src[off+1:e]) {
				off = b.cutDirective(off, e)
				continue
			}
			if sx.templates && paren == 0 && head&kwContainer != 0 && (prev == 'i' || prev == '>') && isIf(src[off+1:e]) {
				peek := b.lx
				if k2, n2 := peek.next(e); k2 == tSpace && n2 < len(src) && src[n2] == ':' || k2 == tPunct && src[e] == ':' {
					if open := b.baseClauseEnd(off); open > 0 {
						b.cut(off, open) // base classes by #if (see baseClauseEnd)
						off = open
						continue
					}
				}
			}
			if sx.templates && paren == 0 && (prev == ')' || prev == 'i' && qualifiers[prevWord] && prev2 == ')') && tailN < len(tail) &&
				condDirective(src[off+1:e]) == 1 {
				if end := b.ifTailEnd(off); end > 0 {
					// #if groups between a function's parameters and its
					// body or ';' (Asio's BOOST_ASIO_NOEXCEPT_IF(...) by
					// configuration): they go with the macros after the
					// parameters (tail).
					tail[tailN] = [2]int{off, end}
					tailN++
					b.cut(off, end)
					off = end
					continue
				}
			}
			stmt.bad = true
			if b.lx.define {
				setDefs()
				if sx.defineValues {
					b.defineValue(off, e)
				}
			} else if sx.attrMacros {
				if b.idleDirective(off, e) {
					off = b.cutDirective(off, e)
					continue
				}
				b.ifCondition(off, e)
			}
			cond := 0
			if sx.templates && !b.lx.define {
				cond = condDirective(src[off+1 : e])
			}
			for i := range b.out.groups[base:] {
				g := &b.out.groups[base+i]
				switch {
				case cond == 0:
					g.complex = true // a cut must not split #if from #endif
				case cond == 1:
					g.ifs++
				case cond == 2 && g.ifs == 0:
					g.complex = true
				case cond == 3:
					if g.ifs--; g.ifs < 0 {
						g.complex = true
					}
				}
			}
			if init.colon > 0 {
				init.colon = -1 // nor that of member initializers
			}
			off = e
			continue
		case tBad, tEOF:
			b.fail = true
			return off, defs
		case tString, tNumber:
			pendingFunc = false
			push('o', "")
			off = e
			continue
		case tIdent:
			if sx.macroStmts && paren == 0 && (prev == ';' || prev == '}' || prev == '{') {
				if end := b.storageMacro(off, e); end > 0 {
					off = end // static DEFINE_PER_CPU(int, x);
					continue
				}
			}
			if (sx.macroRuns || sx.macroStmts) && paren == 0 && (headAngle == 0 && (prev == ';' || prev == '}' || prev == '{' ||
				prev == ':' && prev2 == 'i' && access[prev2Word]) || prev == '>' && prev2 == 'i' && prev2Word == "template") {
				if end, typ := b.macroRun(off, prev == '>'); end > off {
					if typ {
						push('i', "~")
					}
					off = end
					continue
				}
			}
			if sx.macroRuns && paren == 0 && isMacroName(src[off:e]) {
				if end := b.macroAttr(e, e-off, prev, prev2, prevWord, prev == '{' || prev == '>' && prev2 == 'i' && prev2Word == "template" ||
					prev == ':' && prev2 == 'i' && access[prev2Word]); end > 0 {
					if tailN < len(tail) {
						tail[tailN] = [2]int{off, end}
						tailN++
					}
					b.cut(off, end)
					off = end
					continue
				}
			}
			if sx.templates && paren > 0 && prev == 'i' && prevWord == "~" && isMacroName(src[off:e]) {
				if end := b.trailingMacro(e); end > 0 {
					// T x BOOST_ASIO_DEFAULT_COMPLETION_TOKEN(E)): a
					// default argument, to the parser an error.
					b.cut(off, end)
					off = end
					continue
				}
			}
			if sx.templates && (paren > 0 && (prev == '(' || prev == ',') || paren == 0 && prev == 'i' && prevWord == "typedef") && isMacroName(src[off:e]) {
				if open, close := b.typeMacro(e); close > 0 {
					// BOOST_ASIO_MOVE_ARG(T) x: the parser sees T x.
					b.cut(off, open+1)
					b.unwrap = close
					off = open + 1
					continue
				}
			}
			if sx.attrMacros && paren == 0 {
				if end := b.attrMacro(off, e, prev, prev2, prevWord, prev2Word); end > 0 {
					b.cut(off, end)
					off = end
					continue
				}
			}
			if sx.importWord != "" && paren == 0 && inContainer && (prev == ';' || prev == '{' || prev == '}') && string(src[off:e]) == sx.importWord {
				end := b.importEnd
				if sx.family == "php" {
					end = b.phpUseEnd
				}
				if semi := end(e); semi > 0 {
					b.cut(off, semi+1)
					off = semi + 1
					continue
				}
			}
			if sx.templates && paren == 0 && inContainer && (prev == ';' || prev == '{' || prev == '}') && string(src[off:e]) == "using" && !b.aliasDecl(e) {
				// A using-declaration or -directive (using std::swap;
				// using namespace x;) defines nothing: it goes whole,
				// on a line of its own only, so that what is left out
				// never runs from a '{' to a '}' (bodySpans would take
				// it for a function's body).
				if semi := b.importEnd(e); semi > 0 && lineStartsAt(src, off) && semi+1 < len(src) && (src[semi+1] == '\n' || src[semi+1] == '\r') {
					b.cut(off, semi+1)
					off = semi + 1
					continue
				}
			}
			if sx.typeQualifiers && paren == 0 {
				if prev == '.' && tokN == chain.tok+2 && chain.ok {
					b.cut(chain.start, off) // System.Windows.Forms.Button: the parser sees Button
				} else {
					chain.ok = prev == 'i' && prevWord != "using" && head&kwContainer == 0 && headAngle == 0
				}
				chain.start, chain.tok = off, tokN
			}
			word, f := sx.wordKw(src[off:e])
			if paren == 0 && sx.family == "java" && string(src[off:e]) == "throws" {
				throwsHead = true
			}
			if paren == 0 && inContainer && prev == 'i' && sx.mods[prevWord] && sx.mods[word] {
				// A modifier after another (with the blanks before it):
				// prev stays the first.
				a := off
				for a > b.from && (src[a-1] == ' ' || src[a-1] == '\t') {
					a--
				}
				b.cut(a, e)
				off = e
				continue
			}
			if sx.declNames && f&(kwContainer|kwDef) != 0 && !b.nameAfter(e) {
				f = 0 // where T : class, delegate (x) { ... }
			}
			if sx.macros && paren == 0 {
				// start: where the Rust item whose first word (after its
				// pub or pub(...)) is at off starts, or -1 when the word
				// does not start an item.
				start := -1
				switch {
				case prev == ';' || prev == '}' || prev == '{':
					start = off
				case pubOff >= 0 && (prev == 'i' && prevWord == "pub" && len(bytes.TrimLeft(src[pubOff+3:off], " \t\r\n")) == 0 ||
					prev == ')' && last.name == "pub" && last.paren == 0 && last.open > pubOff && len(bytes.TrimLeft(src[pubOff+3:last.open], " \t\r\n")) == 0):
					start = pubOff
				}
				switch string(src[off:e]) {
				case "pub":
					if prev == ';' || prev == '}' || prev == '{' {
						pubOff = off
					}
				case "use":
					// A use declaration defines nothing: it goes whole
					// (with its pub or pub(...) and its ';').
					if start >= 0 {
						if semi := b.useEnd(e); semi > 0 {
							b.cut(start, semi+1)
							off = semi + 1
							push(';', "") // an item ended
							continue
						}
					}
				case "macro":
					// A macro of Rust 2.0 (`pub macro m($x:expr) {...}`,
					// `macro m { (...) => {...}, }`): the grammar knows
					// none and takes it for an error, which may hide the
					// items after it; it defines nothing the grammar
					// reads, and goes whole.
					if start >= 0 {
						if end := b.macro2End(e); end > 0 {
							b.cut(start, end)
							off = end
							push('}', "") // an item ended
							continue
						}
					}
				case "auto":
					// `pub unsafe auto trait Send {}`: the grammar knows
					// no auto trait; the parser sees `pub unsafe trait
					// Send {}`.
					if k2, n2 := b.lx.next(e); (start >= 0 || prev == 'i' && prevWord == "unsafe") && k2 == tSpace {
						if k3, n3 := b.lx.next(n2); k3 == tIdent && string(src[n2:n3]) == "trait" {
							b.cut(off, n2)
							off = n2
							continue
						}
					}
				case "const":
					// `impl<T> const Default for T`: the grammar knows no
					// const impl; the parser sees `impl Default for T`.
					if implHead && (tokN == implTok || tokN == implTok+1 && prev == '>') {
						b.cut(off, e)
						off = e
						continue
					}
				}
			}
			if pendingFunc {
				setDefs() // function name
				pendingFunc = false
			}
			if f&kwDef != 0 && declStart(prev, src, off) && (word != "using" || b.aliasDecl(e)) {
				setDefs()
			}
			if sx.typeAliases && word == "type" && paren == 0 && (prev == ';' || prev == '{' || prev == '}' || prev == 'i') && b.nameAfter(e) {
				setDefs() // a TypeScript alias without braces (`type T = A | B;` in a function's body)
			}
			if sx.macros && paren == 0 && (word == "const" || word == "static") && (prev == ';' || prev == '}' || prev == '{' ||
				prev == 'i' && prevWord == "pub" || prev == ')' && last.name == "pub" && last.paren == 0) {
				// A Rust const or static item: its value goes.
				if from, to := b.constValue(e); from > 0 {
					b.cut(from, to)
					push('i', word)
					off = to
					continue
				}
			}
			if sx.macros && paren == 0 && word == "impl" && (prev == ';' || prev == '}' || prev == '{' || prev == 'i' && prevWord == "unsafe") {
				implHead, implTok = true, tokN+1
			}
			if sx.macros && paren == 0 && headAngle == 0 && word == "where" && head&kwContainer != 0 && head&kwFunc == 0 {
				// The where clause of a Rust impl, struct, enum, union or
				// trait: it goes, up to the body or the ';'.
				if end := b.whereEnd(e); end > 0 {
					b.cut(off, end)
					off = end
					continue
				}
			}
			if word == "new" {
				pendingNew = true
			}
			if sx.templates && paren == 0 && (word == "typedef" || word == "using" && b.aliasDecl(e)) &&
				(prev == ';' || prev == '{' || prev == '}' || prev == '>' && prev2Word == "template") {
				typeStmt = true
			}
			if word == "enum" && paren == 0 {
				headEnum = true
			}
			if word == "template" && sx.templates {
				if end := b.templateParams(e); end > 0 {
					push('i', word)
					off = end // at the closing '>'
					continue
				}
			}
			if f&kwFunc != 0 {
				if sx.assignFuncs && (prev == '=' || prev == ':' && sx.pairFuncs || prevWord == "async" && (prev2 == '=' || prev2 == ':' && sx.pairFuncs)) {
					setDefs()
				}
				pendingFunc = f&kwDef == 0
			}
			if sx.macros && word == "extern" && (prev == ';' || prev == '{' || prev == '}' || prev == 'i' && (prevWord == "pub" || prevWord == "unsafe" || prevWord == "const" || prevWord == "async") ||
				prev == ')' && last.name == "pub" && last.paren == 0) && b.externFn(e) {
				f = 0 // an item `extern "C" fn f() {...}`: a fn's body, not a container's (not a type: static F: extern "C" fn())
			}
			if paren == 0 && f&(kwContainer|kwFunc) != 0 {
				if f&kwContainer != 0 {
					headBlocked = false
				}
				if head&(kwContainer|kwFunc) == 0 {
					funcFirst = f&kwFunc != 0
				}
				head |= f
			}
			push('i', word)
			off = e
			continue
		}
		c := src[off]
		if e-off == 2 { // an arrow
			if c == '=' && sx.assignFuncs && (last.afterEq && last.paren == paren || typedEq ||
				paren == eqParen && (tokN == eqTok+2 || tokN == eqTok+3 && prev2Word == "async")) {
				setDefs()
			}
			pendingFunc, typedEq = false, false
			push('A', "")
			off = e
			continue
		}
		if c != '*' && c != '&' {
			pendingFunc = false
		}
		if sx.macros && (c == '{' || c == '(' || c == '[') && (tokN == macroTok || tokN == macroTok+1 && prev == 'i' && macroWord == "macro_rules") {
			// A Rust macro's invocation or rules: token trees, in
			// which the grammar finds no definition.
			closer := byte('}')
			if c == '(' {
				closer = ')'
			} else if c == '[' {
				closer = ']'
			}
			snap := b.save()
			close := b.rustSkip(e, closer, false)
			if close < 0 {
				if close, _ = b.block(e, closer, false); b.fail {
					return close, defs
				}
			}
			end, semi := 0, false
			if macroStart >= 0 && tokN == macroTok {
				// An item or a statement that is a macro's invocation
				// (`thread_local! {...}`, `assert!(x);`): it goes whole,
				// with its ';' (not `m!(x).unwrap();`).
				if end, semi = b.macroStmtEnd(close + 1); end < 0 {
					macroStart = -1
				}
			}
			if macroStart >= 0 && tokN == macroTok {
				b.restore(macroSnap)
				b.cut(macroStart, end)
				if stmt.start == macroStart {
					stmt.start = -1 // the statement went whole
				}
				macroStart = -1
				off = end
				b.lx.operand = true
				if semi {
					push(';', "")
				} else {
					push('}', "")
				}
				continue
			}
			b.restore(snap)
			if close > e {
				b.cut(e, close)
			}
			off = close + 1
			b.lx.operand = true
			push(closer, "")
			if closer == '}' && cutStmts && paren == 0 {
				rustBlockStmt(off) // macro_rules! m {...}, a::m! {...}
			}
			continue
		}
		if c == '#' && sx.macros {
			// A Rust attribute, #[...] or #![...]: a node of its own
			// beside the item, which holds no definition; it goes whole.
			at := e
			if at < len(src) && src[at] == '!' {
				at++
			}
			if at < len(src) && src[at] == '[' {
				snap := b.save()
				close := b.rustSkip(at+1, ']', false)
				if close < 0 {
					if close, _ = b.block(at+1, ']', false); b.fail {
						return close, defs
					}
				}
				b.restore(snap)
				b.cut(off, close+1)
				off = close + 1
				continue
			}
		}
		if c == '!' && sx.macros && implHead && (tokN == implTok || tokN == implTok+1 && prev == '>') {
			// `impl !Send for T {}`: the grammar knows no negative impl;
			// the parser sees `impl Send for T {}`.
			b.cut(off, e)
			off = e
			continue
		}
		if c == '!' && sx.macros && off > 0 && isIdentByte(src[off-1]) {
			macroTok, macroWord = tokN+1, prevWord
			macroStart = -1
			if paren == 0 && prev == 'i' && prevWord != "macro_rules" && (prev2 == ';' || prev2 == '{' || prev2 == '}') {
				macroStart = off - 1
				for macroStart > 0 && isIdentByte(src[macroStart-1]) {
					macroStart--
				}
				macroSnap = b.save()
			}
		}
		switch c {
		case '{':
			if paren == 0 {
				implHead = false
			}
			container := false
			thrown := throwsHead && paren == 0
			throwsHead = false
			switch {
			case paren == 0 && head&kwFunc != 0 && (funcFirst || head&kwAny == 0):
			case paren == 0 && headAngle > 0:
				// A type in the type parameters (<T = {}>), not the body.
			case paren == 0 && head&kwContainer != 0 && (head&kwAny != 0 || !headBlocked && (prev == 'i' || prev == '>' || prev == 'o')):
				container = true
			case sx.identBrace && inContainer && paren == 0 && prev == 'i' && sx.kw[prevWord]&kwControl == 0 && !thrown:
				container = true
			case sx.anonClass && prev == ')' && (last.isNew || enumConsts && last.name != "" && sx.kw[last.name]&kwControl == 0 &&
				(last.before == ',' || last.before == '{' || last.before == ';' || last.before == '}')):
				// new T(...) { opens an anonymous class, A(...) { an enum constant body
				container = true
			}
			if sx.methods && (prev == ')' || typedReturn) && last.name != "" && sx.kw[last.name]&(kwControl|kwFunc) == 0 {
				setDefs() // name(...) { in an object literal
			}
			typedReturn = false
			if paren == 0 && prev == ')' {
				// NAME(...) { in a body: the grammar may take it for a
				// function's definition (BOOST_FOREACH(x, xs) {...}).
				stmt.keep = true
			}
			funcBody := paren == 0 && !container && !stmtEq && (prev == ')' || prev == 'i' && qualifiers[prevWord] && prev2 == ')')
			initBrace := init.colon > 0 && (prev == 'i' || prev == '>') // m_{x} among member initializers
			b.enum = container && headEnum && sx.anonClass
			if sx.macros && !container && ret.from > 0 && paren == 0 && headAngle == 0 && head&kwFunc != 0 && funcFirst {
				// A Rust fn's body: what stands between its parameters and
				// it (a return type, a where clause) goes, whether the
				// body stays or not.
				b.restore(ret.snap)
				b.cut(ret.from, off)
				ret.from = 0
			}
			snap := b.save()
			close, inner := -1, false
			if sx.macros && !container {
				close = b.rustSkip(e, '}', true) // a body without a definition, most often
			} else if sx.plainBodies && !container {
				close = b.plainBody(e)
			} else if sx.cBodies && !container {
				close = b.cBody(e, false)
			} else if sx.jsBodies && !container {
				close = b.jsSkip(e)
			} else if sx.family == "php" && !container {
				close = b.phpBody(e)
			}
			if close < 0 {
				if close, inner = b.block(e, '}', container); b.fail {
					return close, defs
				}
			}
			if inner && !container && sx.templates && inContainer && paren == 0 && !stmtEq && init.colon == 0 &&
				(prev == ')' || prev == 'i' && qualifiers[prevWord] && prev2 == ')') && b.cuttable(&last) {
				// A function's body that holds a definition (a local
				// typedef) stays; its parameters go, as for a body that
				// goes (below), and the body is read again after them.
				b.restore(last.snap)
				b.cut(last.open+1, last.close)
				for _, t := range tail[:tailN] {
					b.cut(t[0], t[1])
				}
				snap = b.save()
				if again, _ := b.block(e, '}', false); b.fail || again != close {
					b.fail = true
					return again, defs
				}
			}
			if container || inner {
				if inner && !container && sx.cBodies && b.cBody(e, true) == close && b.valuedDefines(e, close) {
					b.restore(snap) // only #defines in it
					b.keepDefines(e, close)
				}
				setDefs()
				if sx.macros && cutStmts && !container && stmt.start >= 0 {
					b.rblocks = append(b.rblocks, off, close)
				}
			} else if close > e || init.colon > 0 && !initBrace ||
				sx.parens == parensBody && paren == 0 && (prev == ')' || prev == 'i' && qualifiers[prevWord] && prev2 == ')') && b.cuttable(&last) {
				// (An empty body's parameters go too.)
				if init.colon > 0 && !initBrace && paren == 0 && (prev == ')' || prev == '}') {
					// A constructor's body: its member initializers go,
					// and its parameters (the macros after them stay
					// out).
					b.restore(init.params.snap)
					if b.cuttable(&init.params) {
						b.cut(init.params.open+1, init.params.close)
					}
					for _, t := range init.tail[:init.tailN] {
						b.cut(t[0], t[1])
					}
					b.cut(init.colon, off)
				} else if sx.parens == parensBody && paren == 0 && (prev == ')' || prev == 'i' && qualifiers[prevWord] && prev2 == ')') && b.cuttable(&last) {
					// A function's body: its parameters go too.
					b.restore(last.snap)
					b.cut(last.open+1, last.close)
					for _, t := range tail[:tailN] {
						b.cut(t[0], t[1])
					}
				} else {
					b.restore(snap)
				}
				if close > e {
					b.cut(e, close)
				}
			}
			off = close + 1
			b.lx.operand = true
			switch {
			case sx.macros:
				if cutStmts && paren == 0 {
					rustBlockStmt(off)
				}
			case paren == 0 && stmt.ctrl:
				stmt.start = -1 // if (...) {...}: the next statement starts
			}
			lastBody = funcBody
			if paren == 0 && headAngle == 0 {
				head, headBlocked = 0, false
				stmtEq, headEnum, typeStmt = false, false, false
			}
			if !initBrace {
				init.colon = 0
			}
			ret.from = 0
			push('}', "")
			continue
		case '}', ']', ')':
			if c == ')' && off == b.unwrap {
				b.cut(off, e) // the parenthesis of a macro around a type
				off = e
				continue
			}
			if c == closer && paren == 0 {
				if sx.macros && cutStmts && stmt.start >= 0 {
					rustStmtGo(off) // the block's last statements or value
				}
				b.rblocks = b.rblocks[:rbase]
				return off, defs
			}
			if c != '}' && paren == 0 && closer == '}' && !inContainer && sx.templates {
				// A parenthesis that closes none in a function's body (in
				// code that #if leaves out: Asio's socket_ops.ipp): the
				// body's braces are what matter.
				push(c, "")
				off = e
				continue
			}
			if c == '}' || paren == 0 {
				b.fail = true
				return off, defs
			}
			paren--
			tailN = 0
			last = b.out.groups[len(b.out.groups)-1]
			b.out.groups = b.out.groups[:len(b.out.groups)-1]
			if last.ifs != 0 {
				last.complex = true
			}
			last.close = off
			if c == ')' && sx.templates && !inContainer && closer == '}' && paren == 0 && !last.complex && last.open >= 0 &&
				(last.name == "if" || last.name == "while" || last.name == "switch") {
				// The condition of a control statement in a body that
				// stays (it holds a definition): one letter or digit of
				// it stays, an expression to the parser.
				b.restore(last.snap)
				b.condition(last.open, off)
			}
			if c == ')' && sx.parens == parensAny && b.cuttable(&last) {
				b.restore(last.snap)
				b.cut(last.open+1, off)
			}
			if sx.macros && paren == 0 && headAngle == 0 && c == ')' && head&kwFunc != 0 && funcFirst && ret.from == 0 {
				// A fn's parameters: what follows up to its body (a return
				// type, a where clause) goes with the body.
				ret.from, ret.snap = off+1, b.save()
			}
		case '(', '[':
			if c == '[' && sx.attributes && inContainer && paren == 0 && (prev == ';' || prev == '{' || prev == '}' || prev == ',') {
				if end := b.attrCut(off); end > 0 {
					off = end // prev stays: the declaration starts after it
					continue
				}
			}
			if c == '[' && (prev == '=' || prev == '(' || prev == ',' || prev == 'A' || prev == ':' || prev == 'i' && prevWord == "return" ||
				prev == '&' && (prev2 == '=' || prev2 == '(' || prev2 == ',')) { // Rust: = &[...]
				// An array literal: left out when large and empty of definitions.
				snap := b.save()
				close, inner := b.block(e, ']', false)
				if b.fail {
					return close, defs
				}
				if inner {
					setDefs()
				} else if close-e >= minLiteral {
					b.restore(snap)
					b.cut(e, close)
				}
				off = close + 1
				b.lx.operand = true
				push(']', "")
				continue
			}
			g := group{before: prev2, paren: paren}
			if prev == 'i' {
				g.name = prevWord
			} else if c == '(' && sx.templates && operatorBefore(src, off) {
				g.name = "~" // the parameters of operator()(...), operator==(...)
			}
			g.generic = prev == '>' && sx.generics
			g.afterEq = tokN == eqTok+1 || tokN == eqTok+2 && prevWord == "async" || prev == '>' && genericEq
			g.open = -1
			if c == '(' {
				g.isNew, pendingNew = pendingNew, false
				if sx.parens != parensNone {
					g.open, g.snap = off, b.save()
				}
			}
			b.out.groups = append(b.out.groups, g)
			paren++
		case ':':
			if sx.templates && paren == 0 && head&kwContainer != 0 && (prev == 'i' || prev == '>') &&
				src[off-1] != ':' && (e == len(src) || src[e] != ':') {
				if open := b.baseClauseEnd(e); open > 0 {
					// A class's base classes (an enum's type): the
					// parser sees `struct X {`.
					b.cut(off, open)
					off = open
					continue
				}
			}
			typedReturn = prev == ')'
			// = (x: T): R => ...: the arrow's return type, whose
			// parentheses ((string | number)[]) may close last.
			typedEq = typedEq || typedReturn && last.afterEq && last.paren == paren
			if sx.templates && inContainer && paren == 0 && prev == ')' && init.colon == 0 && !stmtEq &&
				src[off-1] != ':' && (e == len(src) || src[e] != ':') {
				// Perhaps a constructor's member initializers.
				init.colon, init.params, init.tail, init.tailN = off, last, tail, tailN
			}
		case '<':
			if sx.templates && (inContainer && !stmtEq || typeStmt) && paren == 0 && prev == 'i' && prevWord != "operator" && prevWord != "template" &&
				e < len(src) && src[e] != '<' && src[e] != '=' {
				// A type's template arguments, in a declaration or in a
				// typedef or an alias of a body: the parser sees T<>.
				if end := b.angleEnd(off); end > 0 {
					if end-off > 4 {
						b.cut(e, end)
					}
					push('>', "")
					off = end + 1
					continue
				}
			}
			if sx.macros && paren == 0 && prev == 'i' && (prevWord == "impl" && implHead || prevWord == "~" && (implHead && prev2 != ':' || prev2 == 'i' && rustGenerics[prev2Word])) {
				// Rust: the type parameters of an item (fn f<T>, struct
				// S<'a, T: 'a>, impl<T>) and the type arguments of the
				// plain names in an impl's header (impl Iterator for
				// Iter<'a, T>: the query takes Iter either way; not those
				// of io::Lock<'a>, which it takes only without them) go
				// whole; they hold no definition, and the names and ends
				// of the items stay.
				if end := b.angleEnd(off); end > 0 {
					b.cut(off, end+1)
					push('>', "")
					off = end + 1
					continue
				}
			}
			genericEq = tokN == eqTok+1
			if paren == 0 && (head&kwContainer != 0 || sx.macros && head&kwFunc != 0) && sx.generics {
				headAngle++
			}
		case '>':
			if headAngle > 0 && paren == 0 {
				headAngle--
			}
		case ';':
			if sx.macros && paren == 0 && ret.from > 0 && head&kwFunc != 0 && funcFirst && !stmtEq && headAngle == 0 {
				// A Rust fn's signature without a body (in a trait): its
				// return type and where clause go, the ';' stays.
				b.restore(ret.snap)
				b.cut(ret.from, off)
			}
			if sx.templates && inContainer && closer == '}' && paren == 0 && (prev == ')' || prev == 'i' && qualifiers[prevWord] && prev2 == ')') &&
				last.paren == 0 && b.cuttable(&last) {
				// A declaration's parameters in a class or a namespace,
				// where the grammar finds a definition in its name, not
				// in them (a member's declaration, `void f(const T& a)
				// const;`), nor in a variable's arguments (at the top
				// level only: translation_unit's declarations): the
				// parser sees `void f() const;`. Template arguments in
				// them cost the parser most.
				b.restore(last.snap)
				b.cut(last.open+1, last.close)
				for _, t := range tail[:tailN] {
					b.cut(t[0], t[1])
				}
			}
			if lastBody && prev == '}' && inContainer && paren == 0 && sx.parens == parensBody {
				// f() {}; in a class: the grammar takes the ';' for an
				// error.
				b.cut(off, e)
			}
			pendingNew, typedReturn, typedEq = false, false, false
			if paren == 0 && stmt.start >= 0 && sx.macros {
				rustStmtGo(e)
				stmt.start = -1
			}
			if paren == 0 && stmt.start >= 0 {
				if !stmt.keep && !stmt.bad && nDefs == stmt.defs && headAngle == 0 {
					// A statement of a function's body that holds no
					// definition, in a body that holds one (a local
					// typedef): it goes.
					b.restore(stmt.snap)
					b.cut(stmt.start, e)
				}
				stmt.start = -1
			}
			if paren == 0 {
				implHead = false
				head, headBlocked, headAngle = 0, false, 0
				stmtEq, headEnum, enumConsts, typeStmt = false, false, false, false
				init.colon = 0
				ret.from = 0
			}
		case '=':
			if e < len(src) && src[e] == '=' {
				break
			}
			switch prev {
			case '=', '!', '<', '>', '+', '-', '*', '/', '%', '&', '|', '^', '?', ':':
				if tokN > 0 && src[off-1] == prev { // ==, !=, <=, +=…
					push('o', "")
					off = e
					continue
				}
			}
			if sx.templates && inContainer && paren > 0 && !stmtEq && (prev == '*' || prev == '&' || prev == '>' || prev == ']' ||
				prev == 'i' && (prev2 == 'i' || prev2 == '*' || prev2 == '&' || prev2 == '>')) {
				if end := b.defaultArg(e); end > 0 {
					// A parameter's default value, one token: it goes
					// (the grammar takes `typename T::type* = 0` for an
					// error).
					b.cut(off, end)
					off = end
					continue
				}
			}
			if sx.values && inContainer && closer == '}' && paren == 0 && headAngle == 0 && (prev == 'i' || prev == '}') {
				if end := b.valueCut(off, prev == '}'); end > 0 {
					off = end
					if prev == '}' {
						push(';', "") // the property's ';' went with its value
					} else {
						push('o', "")
					}
					continue
				}
			}
			eqTok, eqParen = tokN, paren
			if paren == 0 {
				stmtEq = true
			}
			if paren == 0 && head&kwContainer != 0 {
				headBlocked = true
			}
		}
		push(c, "")
		off = e
	}
	if closer != 0 {
		b.fail = true
	}
	return len(src), defs
}

// useEnd returns the offset of the ';' that ends the Rust use declaration
// whose path starts after off, or -1 when what follows is not a plain path
// (identifiers, ::, commas, *, braces that balance, comments).
func (b *bskel) useEnd(off int) int {
	depth := 0
	for {
		k, e := b.lx.next(off)
		switch k {
		case tSpace, tComment, tIdent:
		case tPunct:
			for _, c := range b.src[off:e] {
				switch c {
				case ':', ',', '*':
				case '{':
					depth++
				case '}':
					if depth--; depth < 0 {
						return -1
					}
				case ';':
					if depth == 0 {
						return off
					}
					return -1
				default:
					return -1
				}
			}
		default:
			return -1
		}
		off = e
	}
}

// importEnd returns the offset of the ';' that ends the C# using or Java
// import directive whose keyword ends at off, or -1 when what follows is
// not a plain name or alias (identifiers, '.', '::', '*', '=', type
// arguments, comments): not `using (...)` nor one with a directive
// inside.
func (b *bskel) importEnd(off int) int {
	for {
		k, e := b.lx.next(off)
		switch k {
		case tSpace, tComment, tIdent:
		case tPunct:
			switch b.src[off] {
			case ';':
				return off
			case '.', ':', '*', '=', '<', '>', ',', '?', '[', ']':
				if e-off > 1 { // =>
					return -1
				}
			default:
				return -1
			}
		default:
			return -1
		}
		off = e
	}
}

// phpUseEnd returns the offset of the ';' that ends the PHP use
// declaration whose keyword ends at off (`use A\B, C as D;`, `use
// function A\f;`, `use A\{B, C};`, a class's `use T1, T2;`), or -1 when
// what follows is anything else (a trait use with its `{ T1::f insteadof
// T2; }` block, which the parser must see).
func (b *bskel) phpUseEnd(off int) int {
	depth := 0
	for {
		k, e := b.lx.next(off)
		switch k {
		case tSpace, tComment, tIdent:
		case tPunct:
			if e-off > 1 {
				return -1
			}
			switch b.src[off] {
			case '\\', ',':
			case '{':
				if depth++; depth > 1 || off == 0 || b.src[off-1] != '\\' {
					return -1 // only a group's: A\{B, C}
				}
			case '}':
				if depth--; depth < 0 {
					return -1
				}
			case ';':
				if depth == 0 {
					return off
				}
				return -1
			default:
				return -1
			}
		default:
			return -1
		}
		off = e
	}
}

// nameAfter reports whether an identifier follows off (past spaces and
// comments).
func (b *bskel) nameAfter(off int) bool {
	lx := b.lx
	k, e := lx.next(off)
	for k == tSpace || k == tComment {
		k, e = lx.next(e)
	}
	return k == tIdent
}

// templateParams leaves out the contents of the C++ template parameter
// list that follows the keyword `template` ending at off (the parser sees
// `template <>`, which holds no definition either): it returns the offset
// of its closing '>', or 0 when there is none or it is not plain (a brace
// or a semicolon inside, #if and #endif not paired inside, an unreadable
// token).
func (b *bskel) templateParams(off int) int {
	src := b.src
	lx := lexer{sx: b.sx, src: src}
	k, e := lx.next(off)
	if k == tSpace {
		off = e
		k, _ = lx.next(off)
	}
	if k != tPunct || src[off] != '<' {
		return 0
	}
	end := b.angleEnd(off)
	if end > 0 && end-off > 4 {
		b.cut(off+1, end)
	}
	return end
}

// angleEnd returns the offset of the '>' that closes the '<' at open, or
// 0 when there is none or what is between is not plain (a brace or a
// semicolon, #if and #endif not paired, an unreadable token).
func (b *bskel) angleEnd(open int) int {
	src := b.src
	lx := lexer{sx: b.sx, src: src}
	angle, paren, ifs := 1, 0, 0
	for off := open + 1; off < len(src); {
		k, e := lx.next(off)
		start := off
		off = e
		switch k {
		case tBad, tEOF:
			return 0
		case tDirective:
			d := bytes.TrimLeft(src[start+1:e], " \t")
			switch {
			case bytes.HasPrefix(d, []byte("if")):
				ifs++
			case bytes.HasPrefix(d, []byte("endif")):
				if ifs--; ifs < 0 {
					return 0
				}
			case bytes.HasPrefix(d, []byte("define")), bytes.HasPrefix(d, []byte("undef")):
				return 0
			}
		case tPunct:
			switch src[start] {
			case '(', '[':
				paren++
			case ')', ']':
				if paren--; paren < 0 {
					return 0
				}
			case '<':
				if paren == 0 {
					angle++
				}
			case '>':
				if paren == 0 && e-start == 1 {
					if angle--; angle == 0 {
						if ifs != 0 {
							return 0
						}
						return start
					}
				}
			case '{', '}', ';':
				return 0
			}
		}
	}
	return 0
}

// attrMacro returns the end of the attribute macro of a C declaration
// that starts with the identifier src[off:e], after the words prev2Word
// and prevWord (token classes prev2, prev), or 0 when it is none: a
// reserved name (two leading underscores), with its arguments if any,
// between a type and a declarator (Linux's `static int __init f(void)`,
// `struct s __rcu *p`) or after a declarator (`int x __read_mostly = 1;`,
// `s[4] __nonstring;`, `u8 buf[64] __aligned(8);`). The grammar does not
// know them, and its error recovery was most of the cost of C; the
// skeleton leaves them out.
func (b *bskel) attrMacro(off, e int, prev, prev2 byte, prevWord, prev2Word string) int {
	src := b.src
	if e-off < 3 || src[off] != '_' || src[off+1] != '_' || prev != 'i' && prev != ']' && prev != ')' || b.sx.kw[string(src[off:e])]&kwKeep != 0 {
		return 0
	}
	lx := b.lx
	skip := func(at int) (tokKind, int, int) {
		k, n := lx.next(at)
		for k == tSpace || k == tComment {
			at = n
			k, n = lx.next(at)
		}
		return k, at, n
	}
	end := e
	k, at, n := skip(e)
	if k == tPunct && src[at] == '(' && prev != 'i' || prev == 'i' && !cTypeWords[prevWord] && !cBuiltinTypes[prevWord] {
		if k == tPunct && src[at] == '(' {
			// __aligned(8): its arguments, then the declaration goes on.
			if end = macroArgs(&lx, src, at); end == 0 {
				return 0
			}
			k, at, n = skip(end)
		}
	}
	after := k == tPunct && (src[at] == ';' || src[at] == '=' || src[at] == ',' || src[at] == '{' && end == e)
	switch {
	case prev != 'i': // after a declarator: s[4] __nonstring; t[] __initconst = {
		if after {
			return end
		}
		return 0
	case cTypeWords[prevWord]: // static __always_inline int f
		if end == e && k == tIdent && cBuiltinTypes[string(src[at:n])] {
			return e
		}
		return 0
	case after && !cBuiltinTypes[prevWord] && !(prev2 == 'i' && (prev2Word == "struct" || prev2Word == "union" || prev2Word == "enum")) && src[at] != '{' &&
		!reservedBefore(src, off):
		// int x __read_mostly = 1; (not struct map __name = {...}, nor
		// __int64 __align;)
		return end
	}
	if end == e && (k == tIdent && !cTypeWords[string(src[at:n])] || k == tPunct && src[at] == '*') {
		return e
	}
	return 0
}

// ifCondition leaves out what defines nothing in the conditional
// directive src[off:e]: the condition of #if or #elif and the name of
// #ifdef or #ifndef but one letter or digit of it (#if
// BOOST_WORKAROUND(BOOST_MSVC, >= 1400) becomes #if B), and what follows
// #else or #endif (a comment, most often: Asio's `#endif //
// defined(BOOST_ASIO_HAS_MOVE)`). A condition defines nothing, the
// grammar takes some for errors, and the directives were a fifth of the
// C++ corpus's skeleton, their conditions and comments most of that.
func (b *bskel) ifCondition(off, e int) {
	src := b.src
	i := off + 1
	for i < e && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	w := i
	for w < e && isIdentByte(src[w]) {
		w++
	}
	switch string(src[i:w]) {
	case "if", "elif", "ifdef", "ifndef":
		i = w
	case "else", "endif":
		if w < e {
			b.cut(w, e)
		}
		return
	default:
		return
	}
	cond := i
	if cond >= e || src[cond] != ' ' && src[cond] != '\t' {
		return // #if(X): no blank to keep between the word and the letter
	}
	for i < e && !isIdentByte(src[i]) {
		i++
	}
	if i >= e || i+1 == e && i == cond+1 {
		return
	}
	if i > cond+1 {
		b.cut(cond+1, i) // one blank stays
	}
	if i+1 < e {
		b.cut(i+1, e)
	}
}

// idleDirective reports whether the directive src[off:e] neither defines
// nor conditions anything (#pragma, #undef, #error, #warning, #line): it
// may go whole, line and all.
func (b *bskel) idleDirective(off, e int) bool {
	src := b.src
	i := off + 1
	for i < e && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	w := i
	for w < e && isIdentByte(src[w]) {
		w++
	}
	switch string(src[i:w]) {
	case "pragma", "undef", "error", "warning", "line":
		return true
	}
	return false
}

// reservedBefore reports whether the identifier before off (past blanks)
// is a reserved name (two leading underscores: a type such as __int64).
func reservedBefore(src []byte, off int) bool {
	for off > 0 && (src[off-1] == ' ' || src[off-1] == '\t') {
		off--
	}
	start := off
	for start > 0 && isIdentByte(src[start-1]) {
		start--
	}
	return off-start >= 2 && src[start] == '_' && src[start+1] == '_'
}

// macroRun reads, from a statement's start at off, the run of statements
// that are each a line of macro invocations without a terminator (Boost's
// generated tables: `TRAITS_BEG(iau2000, 19900) type<...> TRAITS_MID()
// (...) TRAITS_END()`, X-macro lists, BOOST_TYPEOF_REGISTER_TYPE(x)) or a
// single invocation with one (`BOOST_MPL_ASSERT_MSG((false), MSG,
// (types<T>));`) or before a closing brace (`struct tag { IS_TAG() };`).
// The grammar knows no such statement and recovers from one error as long
// as the whole run, at a cost that grows faster than the run: one
// generated Boost header of 2,400 such lines was a quarter of the C++
// corpus's parse. The run goes from the skeleton, unless what follows may
// be read with its last line (a brace or a parenthesis: `TEST(a, b) {`),
// then that line stays; or the last line is the return type of the
// function that follows (`BOOST_ASIO_INITFN_AUTO_RESULT_TYPE(H, void())`
// before `async_read(...)`), then the first letter of its name stays, a
// type to the parser. After a template's parameters (typeOnly) only such
// a type goes. It returns where the skeleton goes on (off when nothing
// went) and whether a one-letter type stays.
func (b *bskel) macroRun(off int, typeOnly bool) (int, bool) {
	src := b.src
	lx := b.lx
	start, last, end, semi := off, -1, off, false
	for {
		e, s := b.macroLine(off)
		if e < 0 {
			break
		}
		last, end, semi = off, e, s
		// The next statement, past white space and comments.
		k, n := lx.next(e)
		for k == tSpace || k == tComment {
			e = n
			k, n = lx.next(e)
		}
		off = e
		if semi || typeOnly {
			break
		}
	}
	if last < 0 || !b.sx.macroRuns && (!semi || typeOnly) {
		return start, false // C: only NAME(...); goes
	}
	k, n := lx.next(off)
	if !semi && k == tIdent && b.nameOrOperator(src[off:n]) {
		// A function's name (qualified: ns::f, X<T>::operator()), then a
		// parenthesis: the last line is its return type.
		at := n
		k2, n2 := lx.next(at)
		for k2 == tSpace {
			at = n2
			k2, n2 = lx.next(at)
		}
		// A template's arguments after a name (X<T>::f).
		targs := func() {
			if k2 == tPunct && src[at] == '<' {
				if end := b.angleEnd(at); end > 0 {
					at = end + 1
					for k2, n2 = lx.next(at); k2 == tSpace; k2, n2 = lx.next(at) {
						at = n2
					}
				}
			}
		}
		targs()
		for k2 == tPunct && src[at] == ':' && at+1 < len(src) && src[at+1] == ':' {
			at += 2
			if k2, n2 = lx.next(at); k2 == tPunct && src[at] == '~' {
				at = n2
				k2, n2 = lx.next(at)
			}
			if k2 != tIdent {
				return start, false
			}
			at = n2
			k2, n2 = lx.next(at)
			for k2 == tSpace {
				at = n2
				k2, n2 = lx.next(at)
			}
			targs()
		}
		if k2 == tPunct && src[at] == '(' {
			if last > start {
				b.cut(start, last)
			}
			b.cut(last+1, end)
			return end, true
		}
		if k2 == tPunct && src[at] != ';' && src[at] != ',' && src[at] != '=' && src[at] != '[' && src[at] != '*' && src[at] != '&' && src[at] != ':' {
			k = tPunct // `M(x) vector<T> f()`: the last line may be a type
		}
	}
	if typeOnly {
		return start, false
	}
	switch {
	case k == tEOF || k == tDirective || k == tIdent || semi,
		k == tPunct && (src[off] == '}' || src[off] == '~' || src[off] == '['):
		b.cut(start, end)
		return end, false
	case last > start:
		b.cut(start, last)
		return last, false
	}
	return start, false
}

// nameOrOperator reports whether the identifier w is no keyword but
// `operator`.
func (b *bskel) nameOrOperator(w []byte) bool {
	kw, _ := b.sx.wordKw(w)
	return kw == "~" || kw == "operator"
}

// macroLine returns the end of the statement of macro invocations
// starting at off (see macroRun) and whether a semicolon ends it, or -1:
// a line that starts with a name in capitals and a parenthesis and holds
// no brace, semicolon or directive up to its end outside brackets; or
// such an invocation right before a semicolon (included) or a closing
// brace.
func (b *bskel) macroLine(off int) (int, bool) {
	src := b.src
	lx := b.lx
	k, e := lx.next(off)
	if k != tIdent || !isMacroName(src[off:e]) {
		return -1, false
	}
	if k, _ = lx.next(e); k != tPunct || src[e] != '(' {
		return -1, false
	}
	line := lineStartsAt(src, off)
	depth, first := 0, -1 // first: where the first invocation ends
	for at, n := e, e; ; at = n {
		k, n = lx.next(at)
		switch k {
		case tEOF:
			if depth == 0 && line {
				return at, false
			}
			return -1, false
		case tBad, tDirective:
			return -1, false
		case tSpace:
			if depth == 0 && line && bytes.IndexByte(src[at:n], '\n') >= 0 {
				return at, false
			}
		case tComment:
		case tPunct:
			switch src[at] {
			case ';', '}':
				if depth == 0 && first == at {
					if src[at] == ';' {
						return n, true
					}
					return at, false
				}
				return -1, false
			case '{':
				return -1, false
			case '(', '[':
				depth++
			case ')', ']':
				if depth--; depth < 0 {
					return -1, false
				}
				if depth == 0 && first < 0 {
					first = n
					// Blanks between the invocation and a ; or }.
					if k2, n2 := lx.next(n); k2 == tSpace && bytes.IndexByte(src[n:n2], '\n') < 0 {
						first = n2
					}
				}
			}
		default:
			if first >= 0 && !line {
				return -1, false
			}
		}
	}
}

// macroAttr reports whether the name of a macro ending at e (see
// isMacroName, nameLen bytes), outside parentheses, after the tokens
// prev2 and prev (prevWord), stands where C++ allows no name: after a function's
// parameters and qualifiers (`f() const BOOST_ASIO_NOEXCEPT {`,
// `f() NOEXCEPT_IF(x);`, with its arguments on the line of the
// parenthesis), before a declaration's first word
// (`BOOST_ASIO_DECL void f();`, `static BOOST_CONSTEXPR const int n`,
// `BOOST_ASIO_DECL ~timer();`) or as a statement of its own before a
// declaration, a closing brace or a directive (Spirit's
// NAMESPACE_BEGIN and NAMESPACE_END, which open and close a namespace).
// Such a macro expands to an attribute or to nothing at all as far as
// definitions go; the grammar takes it for an error. It returns where what
// the skeleton leaves out ends (the name, and its arguments after a
// parameter list), or 0.
func (b *bskel) macroAttr(e, nameLen int, prev, prev2 byte, prevWord string, declStart bool) int {
	src := b.src
	lx := b.lx
	skip := func(off int) (tokKind, int, int) {
		k, n := lx.next(off)
		for k == tSpace || k == tComment {
			off = n
			k, n = lx.next(off)
		}
		return k, off, n
	}
	k, at, n := skip(e)
	if prev == ')' || prev == 'i' && qualifiers[prevWord] && prev2 == ')' {
		end, own := e, false
		if k == tPunct && src[at] == '(' {
			// On a line of its own it may be a statement (STATIC_ASSERT(x)
			// after a macro that defines a function): then no body or
			// initializer follows.
			own = lineStartsAt(src, e-nameLen)
			// its arguments
			if end = macroArgs(&lx, src, at); end == 0 {
				return 0
			}
			k, at, _ = skip(end)
		}
		if k == tPunct && bytes.IndexByte([]byte("{:="), src[at]) >= 0 || !own && (k == tIdent || k == tPunct && (src[at] == ';' || src[at] == ',')) {
			return end
		}
		return 0
	}
	if k == tPunct && src[at] == '(' {
		return 0
	}
	switch {
	case prev == ';' || prev == '}' || declStart:
		if k == tEOF || k == tDirective || k == tPunct && (src[at] == '}' || src[at] == '~') {
			return e
		}
	case prev == 'i' && (cTypeWords[prevWord] || cppSpecifiers[prevWord] || prevWord == "class"):
	default:
		return 0
	}
	if k != tIdent {
		return 0
	}
	if prevWord == "class" || prevWord == "struct" || prevWord == "union" {
		// class BOOST_SYMBOL_VISIBLE name : base {
		k2, at2, _ := skip(n)
		if k2 == tPunct && (src[at2] == '{' || src[at2] == ':' && (at2+1 == len(src) || src[at2+1] != ':') || src[at2] == ';') || k2 == tIdent && string(src[at2:at2+min(5, len(src)-at2)]) == "final" {
			return e
		}
		return 0
	}
	if declWords[string(src[at:n])] {
		return e
	}
	// A type (a name, qualified or not), then a name or a declarator's
	// punctuation: not `TYPE_MACRO ns::f(`, where the macro is the type.
	k, at, _ = skip(n)
	for k == tPunct && src[at] == ':' && at+1 < len(src) && src[at+1] == ':' {
		if k, _, n = skip(at + 2); k != tIdent {
			return 0
		}
		k, at, _ = skip(n)
	}
	if k == tIdent || k == tPunct && (src[at] == '*' || src[at] == '&' || src[at] == '<') {
		return e
	}
	return 0
}

// cppSpecifiers may come before a macro that stands for an attribute
// (`friend BOOST_CONSTEXPR bool operator==(`).
var cppSpecifiers = words("friend explicit virtual constexpr")

// typeMacro reads the arguments of the macro whose name ends at e, where a
// parameter or a typedef starts, and returns the offsets of their
// parentheses when they are a type, one word or a qualified name with
// template arguments, and a name or an ellipsis follows:
// BOOST_ASIO_MOVE_ARG(T) x, BOOST_FWD_REF(Args)... args, typedef
// BOOST_ASIO_MOVE_ARG(T) type (Asio's and Boost.Move's macros that add &&
// where the compiler has them). Else it returns 0, 0.
func (b *bskel) typeMacro(e int) (open, close int) {
	src := b.src
	lx := lexer{sx: b.sx, src: src}
	k, n := lx.next(e)
	if k != tPunct || src[e] != '(' {
		return 0, 0
	}
	open = e
	angle := 0
	for off := n; ; off = n {
		k, n = lx.next(off)
		switch k {
		case tIdent, tSpace:
			continue
		case tPunct:
			switch src[off] {
			case ':', '*', '&':
				continue
			case '<':
				angle++
				continue
			case '>':
				if angle--; angle >= 0 {
					continue
				}
			case ',':
				if angle > 0 {
					continue
				}
			case ')':
				if angle == 0 && off > open+1 {
					close = off
				}
			}
		}
		break
	}
	if close == 0 {
		return 0, 0
	}
	k, n = lx.next(close + 1)
	if k == tSpace {
		k, _ = lx.next(n)
	} else {
		n = close + 1
	}
	if k == tIdent || k == tPunct && src[n] == '.' {
		return open, close
	}
	return 0, 0
}

// trailingMacro returns the end of the arguments of the macro whose name
// ends at e when they close and a comma or a closing parenthesis follows
// (a macro after a parameter's name), else 0.
func (b *bskel) trailingMacro(e int) int {
	src := b.src
	lx := lexer{sx: b.sx, src: src}
	k, n := lx.next(e)
	for k == tSpace || k == tComment {
		e = n
		k, n = lx.next(e)
	}
	if k != tPunct || src[e] != '(' {
		return 0
	}
	depth := 0
	for at := e; ; at = n {
		k, n = lx.next(at)
		switch {
		case k == tEOF || k == tBad || k == tDirective || k == tPunct && (src[at] == '{' || src[at] == '}' || src[at] == ';'):
			return 0
		case k == tPunct && src[at] == '(':
			depth++
		case k == tPunct && src[at] == ')':
			if depth--; depth > 0 {
				continue
			}
			end := n
			for k, n = lx.next(end); k == tSpace || k == tComment; k, n = lx.next(n) {
			}
			if k == tPunct && (src[n-1] == ',' || src[n-1] == ')') {
				return end
			}
			return 0
		}
	}
}

// defaultArg returns the end of a parameter's default value that starts
// after the '=' ending at e when it is one token (a number, a name
// or literal) before a comma or the closing parenthesis, else 0.
func (b *bskel) defaultArg(e int) int {
	src := b.src
	lx := lexer{sx: b.sx, src: src}
	k, n := lx.next(e)
	if k == tSpace {
		e = n
		k, n = lx.next(e)
	}
	if k != tNumber && k != tIdent && k != tString {
		return 0
	}
	end := n
	if k, n = lx.next(end); k == tSpace {
		k, _ = lx.next(n)
	} else {
		n = end
	}
	if k == tPunct && (src[n] == ',' || src[n] == ')') {
		return end
	}
	return 0
}

// aliasDecl reports whether the C++ `using` ending at e declares an alias
// (using T = ...;, a definition), not a using-directive or -declaration
// (using namespace std; using Base::f;).
func (b *bskel) aliasDecl(e int) bool {
	src := b.src
	lx := lexer{sx: b.sx, src: src}
	k, n := lx.next(e)
	for k == tSpace || k == tComment {
		e = n
		k, n = lx.next(e)
	}
	if k != tIdent || string(src[e:n]) == "namespace" || string(src[e:n]) == "typename" {
		return false
	}
	at := n
	k, n = lx.next(at)
	for k == tSpace || k == tComment {
		at = n
		k, n = lx.next(at)
	}
	return k == tPunct && (src[at] == '=' || src[at] == '[')
}

// access are C++'s access specifiers (public: starts a member).
var access = words("public private protected")

// declWords start a C++ declaration.
var declWords = words("void bool char short int long unsigned signed float double auto const constexpr static inline virtual explicit extern friend typename template class struct union enum namespace typedef using")

// isMacroName reports whether w is written as a macro's name: capitals,
// digits and underscores, a capital first, one underscore at least.
func isMacroName(w []byte) bool {
	if len(w) < 3 || w[0] < 'A' || w[0] > 'Z' || bytes.IndexByte(w, '_') < 0 {
		return false
	}
	for _, c := range w {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// cTypeWords are the C words after which a reserved name is a type
// (const __u32 x), not an attribute.
var cTypeWords = words("const volatile static extern inline register unsigned signed short long struct union enum restrict typedef auto return case goto sizeof")

// cBuiltinTypes start a type: a reserved name before one is not a type.
var cBuiltinTypes = words("void int char short long unsigned signed float double bool _Bool struct union enum")

// cuttable reports whether the contents of the closed group g can be
// left out: a parenthesis after a name (a call, a parameter list, an
// annotation's or attribute's arguments, a tuple struct's fields; the
// parser sees `f()`) that is not a keyword whose parenthesis must hold
// something (if, pub(crate), import()), nor a Rust macro's name (`macro_rules!
// m (...)`), holding no definition and worth a cut.
func (b *bskel) cuttable(g *group) bool {
	return g.open >= 0 && !g.complex && g.close-g.open > 4 && (g.name != "" || g.generic) && g.before != '!' &&
		b.sx.kw[g.name]&(kwControl|kwKeep) == 0
}

// baseClauseEnd returns the offset of the '{' that opens the body of the
// class whose base clause (or enum whose type) starts after its ':' at
// off, when the clause holds only names, template arguments of names and
// numbers, commas, comments and whole #if groups (Asio's `#if
// defined(X) : base1 #else : base2 #endif`, an error to the grammar);
// else 0. The clause defines nothing, and the class is where it was.
func (b *bskel) baseClauseEnd(off int) int {
	src := b.src
	lx := lexer{sx: b.sx, src: src}
	ifs := 0
	for off < len(src) {
		k, e := lx.next(off)
		switch k {
		case tSpace, tComment, tIdent, tNumber:
		case tDirective:
			d := bytes.TrimLeft(src[off+1:e], " \t")
			switch {
			case bytes.HasPrefix(d, []byte("if")):
				ifs++
			case bytes.HasPrefix(d, []byte("el")):
				if ifs == 0 {
					return 0
				}
			case bytes.HasPrefix(d, []byte("endif")):
				if ifs--; ifs < 0 {
					return 0
				}
			default:
				return 0
			}
		case tPunct:
			switch src[off] {
			case '<', '>', ',', ':':
			case '{':
				if ifs != 0 {
					return 0
				}
				return off
			default:
				return 0
			}
		default:
			return 0
		}
		off = e
	}
	return 0
}

// condition leaves out the text between the parentheses at open and
// close but its first letter or digit (none when it has none).
func (b *bskel) condition(open, close int) {
	i := open + 1
	for i < close && !isIdentByte(b.src[i]) {
		i++
	}
	if i == close || close-open <= 3 {
		return
	}
	if i > open+1 {
		b.cut(open+1, i)
	}
	if i+1 < close {
		b.cut(i+1, close)
	}
}

// ifTailEnd returns the offset of the '{' or ';' after the #if groups
// that start with the directive at off, when only names, parentheses
// that hold neither braces nor ';', comments and whole #if groups stand
// before it; else 0.
func (b *bskel) ifTailEnd(off int) int {
	src := b.src
	lx := lexer{sx: b.sx, src: src}
	ifs, paren := 0, 0
	for off < len(src) {
		k, e := lx.next(off)
		switch k {
		case tSpace, tComment, tIdent, tNumber:
		case tDirective:
			switch condDirective(src[off+1 : e]) {
			case 1:
				ifs++
			case 2:
				if ifs == 0 {
					return 0
				}
			case 3:
				if ifs--; ifs < 0 {
					return 0
				}
			default:
				return 0
			}
		case tPunct:
			switch src[off] {
			case '(':
				paren++
			case ')':
				if paren--; paren < 0 {
					return 0
				}
			case '{', ';':
				if paren != 0 || ifs != 0 {
					return 0
				}
				return off
			default:
				if paren == 0 {
					return 0
				}
			}
		default:
			if paren == 0 {
				return 0
			}
		}
		off = e
	}
	return 0
}

// condDirective tells the conditional directive whose text after its '#'
// is d: 1 #if, #ifdef, #ifndef; 2 #else, #elif; 3 #endif; 0 another.
func condDirective(d []byte) int {
	d = bytes.TrimLeft(d, " \t")
	w := 0
	for w < len(d) && isIdentByte(d[w]) {
		w++
	}
	switch string(d[:w]) {
	case "if", "ifdef", "ifndef":
		return 1
	case "else", "elif", "elifdef", "elifndef":
		return 2
	case "endif":
		return 3
	}
	return 0
}

// isIf reports whether the directive whose text after its '#' is d is an
// #if, #ifdef or #ifndef.
func isIf(d []byte) bool {
	d = bytes.TrimLeft(d, " \t")
	return len(d) >= 3 && d[0] == 'i' && d[1] == 'f' && (d[2] == ' ' || d[2] == '\t' || d[2] == '(' || bytes.HasPrefix(d, []byte("ifdef")) || bytes.HasPrefix(d, []byte("ifndef")))
}

// operatorBefore reports whether the parenthesis at off follows an
// operator's name: `operator` and its punctuation (==, <<=, (), []).
func operatorBefore(src []byte, off int) bool {
	i := off
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	p := i
	for i > 0 && p-i < 4 && operatorPunct(src[i-1]) {
		i--
	}
	if i == p {
		return false
	}
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	return i >= 8 && string(src[i-8:i]) == "operator" && (i == 8 || !isIdentByte(src[i-9]))
}

func operatorPunct(c byte) bool {
	switch c {
	case '=', '!', '<', '>', '+', '-', '*', '/', '%', '&', '|', '^', '~', '[', ']', '(', ')', ',':
		return true
	}
	return false
}

// declStart reports whether a keyword that defines something (see
// syntax.defs) at off, after a token of class prev, starts a declaration:
// not Rust's `*const T`, `&'static str`, `<const N: usize>` or `fn(u8)`
// type.
func declStart(prev byte, src []byte, off int) bool {
	switch prev {
	case ';', '{', '}', ']', ')', 'i':
		return true
	case 'o':
		return off > 0 && src[off-1] != '\''
	}
	return false
}

// qualifiers may stand between a C++ function's parameters and its body.
var qualifiers = map[string]bool{"const": true, "override": true, "final": true, "noexcept": true, "volatile": true}

// cutComment leaves out the comment src[off:e] (the lexer's last token):
// the whole of it where white space stays beside it, so that no tokens
// join (a line comment ends at its newline; one on lines of its own goes
// with them), else the text between its markers. A comment is a node of every grammar: the parser pays for
// each, and a file of documented items is mostly comment lines.
func (b *bskel) cutComment(off, e int) {
	src := b.src
	if e < len(src) && src[e] == '\n' && lineStartsAt(src, off) {
		// A comment on lines of its own goes with its indentation and
		// newline (the line before keeps its own).
		for off > 0 && src[off-1] != '\n' {
			off--
		}
		b.cut(off, e+1)
		return
	}
	if off == 0 || e == len(src) || isSpace(src[off-1]) || isSpace(src[e]) {
		b.cut(off, e)
		return
	}
	if b.lx.inner[1] > b.lx.inner[0] {
		b.cut(b.lx.inner[0], b.lx.inner[1])
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// skelSnap is the state of a skeleton, to go back to when a block read
// piece by piece turns out to be one to leave out whole.
type skelSnap struct {
	buf, segs, fixes   int
	starts             int
	crow, ccol         uint32
	from               int
	fromPt             sitter.Point
	rowOff, row, lineS int
	cuts               int
}

func (s *skeleton) save() skelSnap {
	return skelSnap{len(s.out.buf), len(s.out.segs), len(s.out.fixes), len(s.out.starts), s.out.crow, s.out.ccol, s.from, s.fromPt, s.rowOff, s.row, s.lineS, s.cuts}
}

func (s *skeleton) restore(p skelSnap) {
	s.out.buf, s.out.segs, s.out.fixes = s.out.buf[:p.buf], s.out.segs[:p.segs], s.out.fixes[:p.fixes]
	s.out.starts = s.out.starts[:p.starts]
	s.out.crow, s.out.ccol = p.crow, p.ccol
	s.from, s.fromPt = p.from, p.fromPt
	s.rowOff, s.row, s.lineS = p.rowOff, p.row, p.lineS
	s.cuts = p.cuts
}

// macroArgs reads a macro's arguments from the '(' at src[at] and returns
// the offset after their ')', or 0 when a brace, a ';', a directive or the
// end of the text comes first.
func macroArgs(lx *lexer, src []byte, at int) int {
	depth := 0
	for off := at; ; {
		k, n := lx.next(off)
		if k == tEOF || k == tBad || k == tDirective || k == tPunct && (src[off] == '{' || src[off] == '}' || src[off] == ';') {
			return 0
		}
		if k == tPunct && src[off] == '(' {
			depth++
		} else if k == tPunct && src[off] == ')' {
			if depth--; depth == 0 {
				return n
			}
		}
		off = n
	}
}
