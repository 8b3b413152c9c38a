package codeindex

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
func (b *bskel) cBody(off int) int {
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
				if b.lx.define {
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
