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
//
// Of an #if's branches it counts the brackets of the first only: each
// branch may close what was opened before the #if (`f(a,\n#if X\n b);\n#else\n
// c);\n#endif`), and block, which counts them all, failed on such a body
// (the file was parsed whole). The body goes whole, directives and all.
func (b *bskel) plainBody(off int) int {
	src, sx := b.src, b.sx
	var outer [32]int // the open parentheses of the braces around
	depth, paren := 0, 0
	ifs, skip := 0, 0 // #if nesting in the body; the level whose other branches are being passed over (0: none)
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
				switch directiveWord(src[off+1 : e]) {
				case "define":
					return -1
				case "if":
					ifs++
				case "elif", "else":
					if ifs == 0 {
						return -1 // its #if is outside the body
					}
					if skip == 0 {
						skip = ifs
					}
				case "endif":
					if ifs == 0 {
						return -1
					}
					if skip == ifs {
						skip = 0
					}
					ifs--
				}
			}
			off = e
		case pbOpen:
			if skip > 0 {
				off++
				continue
			}
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
			if skip > 0 {
				off++
				continue
			}
			if c == '}' {
				if paren != 0 {
					return -1
				}
				if depth == 0 {
					if ifs != 0 {
						return -1 // an #if still open: its other branches are after the body
					}
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

// valueCut leaves out the value of the field, property or enum member
// whose '=' is at eq, in a body of definitions, and returns where the
// skeleton reads on (0 when it leaves nothing out). A value defines
// nothing and was most of a file of constants' skeleton (`private string
// m_strAbort = @"Abort";`, `Flag = 1 << 3,`); the parser sees `int x;`,
// `Flag,` and, for a property (after its braces: property), `int P {}`
// without its ';'. The definitions that ended with the value (an enum
// member, a property) still end there: a rangeFix gives their end back.
// The value runs to the ';', ',' or '}' that ends it outside brackets
// and type arguments (a '<' right after a name, not `<<` nor `<=`: `x =
// new Dictionary<int, string>()`); nothing is left out when those do not
// close before its end (`x = a<b, y;` is two fields), nor when the value
// holds one of an #if's lines (one after it goes), a word that may define
// something or what the lexer cannot read.
func (b *bskel) valueCut(eq int, property bool) int {
	src, sx := b.src, b.sx
	lx := b.lx
	depth, last, angle := 0, -1, 0
	for off := eq + 1; off < len(src); {
		k, e := lx.next(off)
		switch k {
		case tSpace, tComment:
			off = e
			continue
		case tDirective:
			// The skeleton leaves directives out; one of an #if's lines
			// goes with the value only where the value ends before it
			// (`Fields = 2\n#pragma ...\n}`, `A = 1\n#endif\n}`).
			switch directiveWord(src[off+1 : e]) {
			case "if", "elif", "else", "endif", "define", "undef":
				if depth != 0 || !b.endsAfter(e) {
					return 0
				}
			}
			off = e
			continue
		case tBad, tEOF:
			return 0
		case tIdent:
			if e-off < 32 && sx.defLens[src[off]]&(1<<(e-off)) != 0 {
				if _, f := sx.wordKw(src[off:e]); f&(kwContainer|kwDef) != 0 && b.nameAfter(e) {
					return 0
				}
			}
		case tPunct:
			c := src[off]
			end := depth == 0 && (c == ';' || c == '}' || c == ',' && angle == 0)
			switch {
			case end && (last < 0 || angle != 0 || property && c != ';'):
				return 0
			case end:
				a := eq
				for a > b.from && isSpace(src[a-1]) {
					a--
				}
				if property {
					last = e // the ';' goes too
				}
				b.cut(a, last)
				if property || c != ';' {
					b.out.fixes = append(b.out.fixes, rangeFix{at: uint32(a), endByte: uint32(last), end: b.fromPt})
				}
				return last
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				if depth == 0 {
					return 0
				}
				depth--
			case c == '<' && depth == 0 && last > 0 && isIdentByte(src[last-1]) && off == last && e < len(src) && src[e] != '<' && src[e] != '=':
				angle++ // Dictionary<int, ...
			case c == '>' && depth == 0 && angle > 0:
				angle--
			}
		}
		last = e
		off = e
	}
	return 0
}

// directiveWord returns the word of a directive (d: what follows its
// '#'): "if", "else", "define"...
func directiveWord(d []byte) string {
	i := 0
	for i < len(d) && (d[i] == ' ' || d[i] == '\t') {
		i++
	}
	j := i
	for j < len(d) && d[j] >= 'a' && d[j] <= 'z' {
		j++
	}
	return string(d[i:j])
}

// attrCut leaves out the run of attribute sections whose first '[' is at
// off, before a declaration or an enum member, and returns where the
// skeleton reads on (0 when it leaves nothing out). An attribute defines
// nothing and is a node of its declaration: `[Test]`, `[JsonProperty(...)]`
// before most members of Newtonsoft.Json's tests were a tenth of their
// skeleton's parse. The declaration, which started at the first '[',
// still starts there (a start fix at the token after the run). A run of
// global attributes (`[assembly: X]`) goes without one; nothing goes
// when a section mixes both, or holds a directive, a ';', a word that
// may define something or what the lexer cannot read.
func (b *bskel) attrCut(off int) int {
	src := b.src
	lx := b.lx
	next := func(at int) int { // the next token's offset
		for {
			k, e := lx.next(at)
			if k != tSpace && k != tComment {
				return at
			}
			at = e
		}
	}
	global, n := false, off
	for i := 0; n < len(src) && src[n] == '['; i++ {
		g := b.globalAttr(n + 1)
		if i > 0 && g != global {
			return 0
		}
		global = g
		end := b.attrEnd(n + 1)
		if end < 0 {
			return 0
		}
		n = next(end + 1)
	}
	if n >= len(src) && !global {
		return 0
	}
	pt := b.point(off)
	b.cut(off, n)
	if !global {
		b.out.starts = append(b.out.starts, rangeFix{at: uint32(n), endByte: uint32(off), end: pt})
	}
	return n
}

// globalAttr reports whether the attribute section whose contents start
// at off has the target assembly or module.
func (b *bskel) globalAttr(off int) bool {
	lx := b.lx
	k, e := lx.next(off)
	if k == tSpace {
		off = e
		k, e = lx.next(off)
	}
	if k != tIdent || string(b.src[off:e]) != "assembly" && string(b.src[off:e]) != "module" {
		return false
	}
	return e < len(b.src) && b.src[e] == ':' && (e+1 == len(b.src) || b.src[e+1] != ':')
}

// attrEnd returns the offset of the ']' that closes the attribute
// section whose contents start at off, or -1 (see attrCut).
func (b *bskel) attrEnd(off int) int {
	src, sx := b.src, b.sx
	lx := b.lx
	depth := 0
	for off < len(src) {
		k, e := lx.next(off)
		switch k {
		case tDirective, tBad, tEOF:
			return -1
		case tIdent:
			if e-off < 32 && sx.defLens[src[off]]&(1<<(e-off)) != 0 {
				if _, f := sx.wordKw(src[off:e]); f&(kwContainer|kwDef) != 0 && b.nameAfter(e) {
					return -1
				}
			}
		case tPunct:
			switch src[off] {
			case '(', '[', '{':
				depth++
			case ')', '}':
				if depth--; depth < 0 {
					return -1
				}
			case ']':
				if depth == 0 {
					return off
				}
				depth--
			case ';':
				return -1
			}
		}
		off = e
	}
	return -1
}

// endsAfter reports whether the token after off, past blanks, comments
// and directives, ends a value (';', ',' or '}').
func (b *bskel) endsAfter(off int) bool {
	lx := b.lx
	for {
		k, e := lx.next(off)
		switch k {
		case tSpace, tComment, tDirective:
			off = e
			continue
		case tPunct:
			c := b.src[off]
			return c == ';' || c == ',' || c == '}'
		}
		return false
	}
}
