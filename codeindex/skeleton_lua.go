package codeindex

// luaSkeleton makes out the text of a Lua file for a definitions-only
// parse: it leaves out the text of comments (the grammar reads EmmyLua
// annotations in them, most of the cost of a full parse), the bodies of
// functions that define nothing (`function f(a) end` is what the parser
// sees) and the contents of large table constructors that define no
// function. Blocks are matched by keyword: function, if, do and repeat
// open one, end and until close it.
func luaSkeleton(out *skelOut, src []byte) bool {
	out.reset()
	b := bskel{skeleton: skeleton{src: src, out: out}, lx: lexer{sx: luaSyntax, src: src}, sx: luaSyntax}
	end, _, _ := b.luaBlock(0, 0)
	if b.fail || end != len(src) || b.cuts == 0 {
		return false
	}
	b.cut(len(src), len(src))
	return true
}

// Closers of luaBlock.
const (
	luaTop   = 0
	luaEnd   = 'e'
	luaUntil = 'u'
	luaTable = '}'
)

// luaBlock reads from off to the keyword or brace that closes the block
// (closer) and returns its offset, the offset after it, and whether the
// block defines something.
func (b *bskel) luaBlock(off int, closer byte) (start, end int, defs bool) {
	src := b.src
	var (
		prev        byte = ';'
		pendingFunc bool // after `function`: a name makes it a definition
		params      bool // after `function`: the next '(' opens its parameters
	)
	for off < len(src) {
		k, e := b.lx.next(off)
		switch k {
		case tSpace:
			off = e
			continue
		case tComment:
			if b.lx.inner[1] > b.lx.inner[0] {
				b.cut(b.lx.inner[0], b.lx.inner[1])
			}
			off = e
			continue
		case tBad, tEOF:
			b.fail = true
			return off, off, defs
		case tString, tNumber:
			prev = 'o'
			off = e
			continue
		case tIdent:
			if pendingFunc {
				defs = true // function name
				pendingFunc = false
			}
			switch string(src[off:e]) {
			case "function":
				if prev == '=' {
					defs = true // x = function, local x = function, {name = function}
				}
				pendingFunc, params = true, true
			case "if", "do":
				_, end, inner := b.luaBlock(e, luaEnd)
				if b.fail {
					return end, end, defs
				}
				defs = defs || inner
				off, prev = end, 'i'
				continue
			case "repeat":
				_, end, inner := b.luaBlock(e, luaUntil)
				if b.fail {
					return end, end, defs
				}
				defs = defs || inner
				off, prev = end, 'i'
				continue
			case "end":
				if closer != luaEnd {
					b.fail = true
				}
				return off, e, defs
			case "until":
				if closer != luaUntil {
					b.fail = true
				}
				return off, e, defs
			}
			prev = 'i'
			off = e
			continue
		}
		c := src[off]
		pendingFunc = pendingFunc && (c == '.' || c == ':')
		switch c {
		case '(':
			if params {
				params = false
				// The parameters: names, commas and "...".
				for off = e; off < len(src); {
					k, e := b.lx.next(off)
					if k == tBad || k == tEOF {
						b.fail = true
						return off, off, defs
					}
					if k == tComment && b.lx.inner[1] > b.lx.inner[0] {
						b.cut(b.lx.inner[0], b.lx.inner[1])
					}
					off = e
					if k == tPunct && src[e-1] == ')' {
						break
					}
				}
				body := off
				snap := b.save()
				start, end, inner := b.luaBlock(body, luaEnd)
				if b.fail {
					return end, end, defs
				}
				if inner {
					defs = true
				} else if start > body {
					b.restore(snap)
					b.cut(body, start)
				}
				off, prev = end, 'i'
				continue
			}
		case '{':
			snap := b.save()
			start, end, inner := b.luaBlock(e, luaTable)
			if b.fail {
				return end, end, defs
			}
			if inner {
				defs = true
			} else if start-e >= minLiteral {
				b.restore(snap)
				b.cut(e, start)
			}
			off, prev = end, '}'
			continue
		case '}':
			if closer != luaTable {
				b.fail = true
			}
			return off, e, defs
		case '=':
			if e < len(src) && src[e] == '=' || prev == '=' || prev == '~' || prev == '<' || prev == '>' {
				prev = 'o'
				off = e
				continue
			}
		}
		prev = c
		off = e
	}
	if closer != luaTop {
		b.fail = true
	}
	return len(src), len(src), defs
}
