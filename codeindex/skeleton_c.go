package codeindex

import "bytes"

// cBody reads the brace body whose '{' ends at off, in C or C++
// (syntax.cBodies), by its brackets alone, and returns the offset of its
// closing '}', or -1 when block must read it: when it may hold what
// block counts as a definition (a #define, a typedef, a C++ alias
// `using T =`, a container word at a statement's level before a brace
// opens in that statement: `struct s {`, `enum {`, a local class), or
// when its brackets do not close as block would have them. A function's
// body is most of a C file and holds no definition most often; block
// reads every token of it with the lexer and its statement machinery,
// which was a quarter of C's cold build (bench/index -cpuprofile).
//
// Its answer is block's whenever it gives one: a container word counts
// only outside parentheses (block's head), and a statement's ';' or its
// '=' (outside brackets) ends what a container word opened (block's
// head reset and headBlocked); anything else with such a word pending
// before a brace goes to block. Every bracket counts, #if's branches and
// all, as in block.
func (b *bskel) cBody(off int, defines bool) int {
	src, sx := b.src, b.sx
	var outer [32][2]int32 // the open parentheses and square brackets of the braces around
	depth, paren, square := 0, 0, 0
	pending := false // a container word at the statement's level, no ';' nor '=' since
	for off < len(src) {
		c := src[off]
		switch plainBytes[c] {
		case pbOther:
			if c == ';' && paren == 0 && square == 0 {
				pending = false
			} else if c == '=' && pending && paren == 0 && square == 0 && plainAssign(src, off) {
				pending = false
			}
			off++
		case pbIdent:
			e := off + 1
			for e < len(src) && identBytes[src[e]] {
				e++
			}
			if c >= '0' && c <= '9' || e < len(src) && (src[e] == '"' || src[e] == '\'') {
				// A number (C++'s 1'000) or a literal's prefix (R"(...)",
				// u8"", L'x'): the lexer reads it.
				k, n := b.lx.next(off)
				if k == tBad || k == tEOF {
					return -1
				}
				off = n
				continue
			}
			if e-off < 32 && sx.defLens[c]&(1<<(e-off)) != 0 {
				w, f := sx.wordKw(src[off:e])
				switch {
				case f&kwDef != 0 && (w != "using" || b.aliasDecl(e)):
					return -1
				case f&kwContainer != 0 && paren == 0:
					pending = true
				}
			}
			off = e
		case pbLex:
			k, e := b.lx.next(off)
			switch k {
			case tBad, tEOF:
				return -1
			case tDirective:
				if b.lx.define && !defines {
					return -1
				}
			}
			off = e
		case pbOpen:
			switch c {
			case '{':
				if pending || depth == len(outer) {
					return -1
				}
				outer[depth] = [2]int32{int32(paren), int32(square)}
				depth, paren, square = depth+1, 0, 0
			case '(':
				paren++
			default:
				square++
			}
			off++
		case pbClose:
			switch c {
			case '}':
				if paren != 0 || square != 0 {
					return -1
				}
				if depth == 0 {
					return off
				}
				depth--
				paren, square = int(outer[depth][0]), int(outer[depth][1])
				pending = false
			case ')':
				if paren == 0 {
					return -1
				}
				paren--
			default:
				if square == 0 {
					return -1
				}
				square--
			}
			off++
		}
	}
	return -1
}

// plainAssign reports whether the '=' at off is an assignment, not part
// of ==, !=, <=, >=, +=, <<= and the like.
func plainAssign(src []byte, off int) bool {
	if off+1 < len(src) && src[off+1] == '=' {
		return false
	}
	if off > 0 {
		switch src[off-1] {
		case '=', '!', '<', '>', '+', '-', '*', '/', '%', '&', '|', '^', '?', ':':
			return false
		}
	}
	return true
}

// storageMacro leaves out and returns the end of the statement that starts with the
// word src[off:e] when it is a storage class (static, extern) before
// one macro invocation and its semicolon, else 0: Linux's `static
// DEFINE_PER_CPU(int, x);`, `static DECLARE_WORK(w, f);`. The grammar
// takes the invocation for a declarator without a type and recovers at
// some cost (a fifth of the C corpus's skeletons had one); it defines
// nothing the query takes, and goes whole, as the same statement without
// the word does (macroRun).
func (b *bskel) storageMacro(off, e int) int {
	if w := b.src[off:e]; string(w) != "static" && string(w) != "extern" {
		return 0
	}
	k, n := b.lx.next(e)
	if k != tSpace {
		return 0
	}
	if end, semi := b.macroLine(n); end > 0 && semi {
		b.cut(off, end)
		return end
	}
	return 0
}

// keepDefines leaves out of the brace body src[off:close] (the text
// between its braces) all but its #define lines, when they are the only
// definitions in it (cBody with defines reads it), and reports whether
// it did. Linux defines the macros of a table in the table's initializer
// (lib/test_bpf.c's tests[], the jump table of kernel/bpf/core.c's
// interpreter), and block kept the whole initializer for them; the
// grammar takes a directive in an initializer for an error and recovered
// over the whole table. The parser now sees `= {`, the #define lines,
// each on a line of its own, and `}`; the query takes a macro's
// definition wherever it stands, and the other directives (#if,
// #undef...) define nothing. Each #define must have a value
// (valuedDefines).
func (b *bskel) keepDefines(off, close int) {
	src := b.src
	from := off
	for at := off; at < close; {
		k, e := b.lx.next(at)
		if k != tDirective || !b.lx.define {
			at = e
			continue
		}
		ls := at
		for ls > from && src[ls-1] != '\n' {
			ls--
		}
		if from == off && ls > from {
			ls-- // the newline before the first stays
		}
		if ls > from {
			b.cut(from, ls)
		}
		if b.sx.defineValues {
			b.defineValue(at, e)
		}
		from, at = e, e
		if e < close && src[e] == '\n' {
			from++ // the newline that ends it stays: the definition ends after it
		}
	}
	if close > from {
		b.cut(from, close)
	}
}

// valuedDefines reports whether every #define in src[off:close] has a
// value: without one, the grammar's definition runs on over the next line
// when it is blank or ends with a blank (see defineValue), and the lines
// after it matter.
func (b *bskel) valuedDefines(off, close int) bool {
	for at := off; at < close; {
		k, e := b.lx.next(at)
		if k == tDirective && b.lx.define && b.defineValueAt(at, e) <= 0 {
			return false
		}
		at = e
	}
	return true
}

// defineValue leaves out the value of the #define src[off:e] (the lexer's
// directive) but its first byte: a value defines nothing, and the grammar
// reads it as one token that ends before a comment, so that the lines of
// a value with a comment inside (`BPF_JMP_A(0), /* Nop */ \`) were errors
// to it. One byte of it stays because the grammar's definition ends at
// the newline after its value, but runs on over the next line when there
// is none (`#define X` then a blank line); the definition still ends where
// it did, at the directive's newline, which stays.
func (b *bskel) defineValue(off, e int) {
	if v := b.defineValueAt(off, e); v > 0 && v+1 < e {
		b.cut(v+1, e)
	}
}

// defineValueAt returns the offset of the value of the #define
// src[off:e], past its name, its parameters and the blanks and line
// continuations after them: 0 when it cannot tell (no name, parameters
// that do not close on their line), -1 when there is no value or it
// starts with a '/' (a comment, perhaps: the grammar's value then starts
// after it, or there is none).
func (b *bskel) defineValueAt(off, e int) int {
	src := b.src
	i := off + 1
	for i < e && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if i += len("define"); i >= e || src[i] != ' ' && src[i] != '\t' {
		return 0
	}
	for i < e && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	n := i
	for n < e && isIdentByte(src[n]) {
		n++
	}
	if n == i {
		return 0
	}
	if n < e && src[n] == '(' {
		for n < e && src[n] != ')' && src[n] != '\n' {
			n++
		}
		if n == e || src[n] != ')' {
			return 0
		}
		n++
	}
	for n < e {
		switch {
		case src[n] == ' ' || src[n] == '\t' || src[n] == '\r' || src[n] == '\n':
			n++
		case src[n] == '\\' && n+1 < e && (src[n+1] == '\n' || src[n+1] == '\r'):
			n++
		case src[n] == '/':
			return -1
		default:
			return n
		}
	}
	return -1
}

// isInclude reports whether the directive whose text after its '#' is d
// is an #include.
func isInclude(d []byte) bool {
	i := 0
	for i < len(d) && (d[i] == ' ' || d[i] == '\t') {
		i++
	}
	return bytes.HasPrefix(d[i:], []byte("include")) && (len(d) == i+7 || !isIdentByte(d[i+7]))
}
