package codeindex

import "bytes"

// Rust's parts of the brace skeleton (bracketSkeleton with rustSyntax).

// rustItemWords are the words that may start a Rust item, or a definition
// the grammar finds in an expression (a value holding one of them keeps
// its text: constValue).
var rustItemWords = words("fn struct enum union trait type const static mod impl macro_rules macro extern use")

// constValue reads the Rust const or static item whose keyword ends at
// off (`const N: usize = 4 * 1024;`, `static mut X: T = T::new();`) and
// returns where its value goes from and to: from the end of its type to
// its ';' (the parser sees `const N: usize;`, which the grammar reads as
// the same item, ending at the same ';'). It returns -1, -1 when the item
// is not of that shape (a const fn, no type, no value, a token the lexer
// cannot read) or its value holds a word that may define something (a
// block with an item in it is kept whole).
func (b *bskel) constValue(off int) (from, to int) {
	src := b.src
	next := b.nextTok
	// [mut] name ':'
	k, at, e := next(off)
	if k == tIdent && string(src[at:e]) == "mut" {
		k, at, e = next(e)
	}
	if k != tIdent || rustItemWords[string(src[at:e])] {
		return -1, -1
	}
	if k, at, e = next(e); k != tPunct || src[at] != ':' || e < len(src) && src[e] == ':' {
		return -1, -1
	}
	// The type, up to '=' outside brackets (<Item = T> is in one).
	depth, last := 0, -1
	for from = -1; from < 0; {
		if k, at, e = next(e); k == tBad || k == tEOF || k == tDirective {
			return -1, -1
		}
		if k == tPunct && e-at == 1 {
			switch src[at] {
			case '(', '[', '{', '<':
				depth++
			case ')', ']', '}', '>':
				if depth--; depth < 0 {
					return -1, -1
				}
			case ';':
				if depth == 0 {
					return -1, -1 // no value
				}
			case '=':
				if depth == 0 {
					if last < 0 {
						return -1, -1
					}
					from = last
					continue
				}
			}
		}
		last = e
	}
	// The value, up to ';' outside brackets.
	depth = 0
	for star := false; ; star = k == tPunct && src[at] == '*' {
		if k, at, e = next(e); k == tBad || k == tEOF || k == tDirective {
			return -1, -1
		}
		switch {
		case k == tIdent:
			// (not the const of a pointer type, *const T, nor a
			// lifetime, &'static T)
			if rustItemWords[string(src[at:e])] && src[at-1] != '\'' && !(star && string(src[at:e]) == "const") {
				return -1, -1
			}
		case k == tPunct && e-at == 1:
			switch src[at] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth--; depth < 0 {
					return -1, -1
				}
			case ';':
				if depth == 0 {
					return from, at
				}
			}
		}
	}
}

// macroStmtEnd returns where a Rust macro invocation that starts an item
// or a statement and ends at off ends with what follows it: after its ';'
// (semi) when one follows, else at off when an item, a statement or the
// end of the block follows; or -1 when the invocation is part of an
// expression (`m!(x).unwrap()`, `m!(x)?`, `m!(x) as u8`).
func (b *bskel) macroStmtEnd(off int) (end int, semi bool) {
	at := off
	k, e := b.lx.next(at)
	for k == tSpace || k == tComment {
		at = e
		k, e = b.lx.next(at)
	}
	switch {
	case k == tPunct && b.src[at] == ';':
		return e, true
	case k == tEOF || k == tIdent && string(b.src[at:e]) != "as" || k == tPunct && (b.src[at] == '}' || b.src[at] == '#'):
		return off, false
	}
	return -1, false
}

// rustGenerics are the Rust keywords whose item's name may be followed by
// type parameters.
var rustGenerics = words("fn struct enum union trait type")

// whereEnd returns the offset of the '{' or ';' that ends the Rust where
// clause whose keyword ends at off (outside brackets: [u8; N]: Sized has
// its own), or -1.
func (b *bskel) whereEnd(off int) int {
	src := b.src
	depth := 0
	for {
		k, e := b.lx.next(off)
		switch k {
		case tBad, tEOF:
			return -1
		case tPunct:
			if e-off > 1 {
				break // an arrow
			}
			switch src[off] {
			case '(', '[', '<':
				depth++
			case ')', ']', '>':
				if depth--; depth < 0 {
					return -1
				}
			case '{':
				if depth == 0 {
					return off
				}
				depth++
			case '}':
				if depth--; depth < 0 {
					return -1
				}
			case ';':
				if depth == 0 {
					return off
				}
			}
		}
		off = e
	}
}

// macro2End returns the end of the Rust 2.0 macro whose keyword `macro`
// ends at off: its name, then its parameters and body (`m($x:expr) {...}`)
// or its rules (`m { ... }`), brackets balanced; or -1.
func (b *bskel) macro2End(off int) int {
	src := b.src
	k, _, e := b.nextTok(off)
	if k != tIdent {
		return -1
	}
	k, at, _ := b.nextTok(e)
	if k == tPunct && src[at] == '(' {
		params := b.groupEnd(at)
		if params < 0 {
			return -1
		}
		k, at, _ = b.nextTok(params)
	}
	if k != tPunct || src[at] != '{' {
		return -1
	}
	return b.groupEnd(at)
}

// nextTok returns the next token from off past blanks and comments: its
// kind, start and end.
func (b *bskel) nextTok(off int) (k tokKind, at, e int) {
	k, e = b.lx.next(off)
	for k == tSpace || k == tComment {
		off = e
		k, e = b.lx.next(off)
	}
	return k, off, e
}

// groupEnd returns the offset after the bracket that closes the one at
// off (brackets of every kind counted, by the lexer), or -1.
func (b *bskel) groupEnd(off int) int {
	depth := 0
	for {
		k, e := b.lx.next(off)
		switch k {
		case tBad, tEOF:
			return -1
		case tPunct:
			if e-off > 1 {
				break // an arrow
			}
			switch b.src[off] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth--; depth == 0 {
					return e
				}
			}
		}
		off = e
	}
}

// rustSkip reads, from off, the contents of a Rust block that the skeleton
// leaves out whole unless it holds a definition (a fn's body, a macro's
// token tree, an attribute) and returns the offset of the closer that
// ends it; or -1 when block must read it: its brackets do not nest
// (block is laxer, or fails), the lexer cannot read a token, or (defs) a
// word that may start an item stands in it. Then nothing block notes
// from token to token can matter: the block goes whole either way. It
// reads blanks, names and punctuation itself and asks the lexer only for
// comments, literals and numbers; on the bodies of the corpus it is
// several times faster than block.
func (b *bskel) rustSkip(off int, closer byte, defs bool) int {
	src := b.src
	var stack [64]byte
	depth := 0
	for off < len(src) {
		c := src[off]
		switch {
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			off++
		case isIdentByte(c) && (c < '0' || c > '9'):
			e := off + 1
			for e < len(src) && isIdentByte(src[e]) {
				e++
			}
			if e < len(src) && (src[e] == '"' || src[e] == '#') {
				// r"...", br#"..."#, b"...": a literal, or a name
				if k, n := b.lx.next(off); k != tIdent {
					if k == tBad || k == tEOF {
						return -1
					}
					off = n
					continue
				}
			}
			if defs && rustDefWord(src[off:e]) && !(src[off-1] == '\'' && string(src[off:e]) == "static") { // (not &'static str)
				return -1
			}
			off = e
		case c == '(' || c == '[' || c == '{':
			if depth == len(stack) {
				return -1
			}
			stack[depth] = c + 1 // ')' is '(' + 1
			if c != '(' {
				stack[depth]++ // ']' is '[' + 2, '}' '{' + 2
			}
			depth++
			off++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				if c == closer {
					return off
				}
				return -1
			}
			if depth--; stack[depth] != c {
				return -1
			}
			off++
		case c == '"' || c == '\'' || c == '/' || c >= '0' && c <= '9' || c < ' ' || c == 0x7f:
			k, n := b.lx.next(off)
			if k == tBad || k == tEOF {
				return -1
			}
			off = n
		default: // punctuation
			off++
		}
	}
	return -1
}

// rustDefWord reports whether w is a word with which block may find a
// definition in a Rust block: one of rustSyntax's defs, or of its
// containers (impl and extern are no definition but hold some).
func rustDefWord(w []byte) bool {
	switch string(w) {
	case "fn", "const", "static", "type", "macro_rules", "struct", "enum", "union", "trait", "mod", "impl", "extern":
		return true
	}
	return false
}

// rustStmtEnd reports whether the Rust statement whose block closes before
// off ends there: a name (not `else`, nor `as`), a block or an attribute
// follows, which starts the next statement. (An expression that goes on after a block, `S {
// a: 1 }.f();`, `if a {} else {}`, `x = match y {}` needs its ';' or
// another token; the block's closer is the caller's.)
func (b *bskel) rustStmtEnd(off int) bool {
	k, at, e := b.nextTok(off)
	return k == tIdent && string(b.src[at:e]) != "else" && string(b.src[at:e]) != "as" ||
		k == tPunct && (b.src[at] == '{' || b.src[at] == '#')
}

// externFn reports whether the Rust `extern` that ends at off qualifies a
// fn (extern "C" fn, extern fn) rather than opening a block of foreign
// items or naming a crate.
func (b *bskel) externFn(off int) bool {
	k, at, e := b.nextTok(off)
	if k == tString {
		k, at, e = b.nextTok(e)
	}
	return k == tIdent && string(b.src[at:e]) == "fn"
}

// rustCommentLines returns the end of the run of line comments, each on
// lines of its own, that starts with the comment src[off:e] (a doc
// comment's lines): the skeleton leaves them out in one cut. Else e.
func (b *bskel) rustCommentLines(off, e int) int {
	src := b.src
	if e >= len(src) || src[e] != '\n' || src[off+1] != '/' || !lineStartsAt(src, off) {
		return e
	}
	for {
		i := e + 1
		for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		if i+1 >= len(src) || src[i] != '/' || src[i+1] != '/' {
			return e
		}
		n := bytes.IndexByte(src[i:], '\n')
		if n < 0 {
			return e // the last line: left to the lexer
		}
		e = i + n
	}
}
