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
		prev        byte                = ';'
		prevKw      bool                // the last word is reserved
		pendingFunc bool                // after `function`: a name makes it a definition
		params      bool                // after `function`: the next '(' opens its parameters
		base        = len(b.out.groups) // b.out.groups[base:]: the open parentheses of calls (not of parameters)
		then        = -1                // the end of this block's first `then`
	)
	defer func() { b.out.groups = b.out.groups[:base] }() // a block may end with calls open
	// Of a table: the field being read (where it starts, the skeleton
	// and state there, whether it defines something) and the run of
	// fields before it that define nothing, left out once a field that
	// defines something or the table's end shows it is not the whole
	// table (the parser sees { f = function() end, }).
	table := closer == luaTable
	field := struct {
		start   int
		snap    skelSnap
		prev    byte
		prevKw  bool
		defines bool
	}{start: off, snap: b.save(), prev: prev}
	runStart, runSnap := -1, skelSnap{}
	// setDefs notes a definition in this block: the arguments around it
	// stay.
	setDefs := func() {
		defs = true
		field.defines = true
		for i := range b.out.groups[base:] {
			b.out.groups[base+i].complex = true
		}
	}
	// endField ends the field before off; it returns true when the
	// field is to be read again (the run before it was left out).
	endField := func(off int) bool {
		if !field.defines {
			if runStart < 0 {
				runStart, runSnap = field.start, field.snap
			}
			return false
		}
		if runStart < 0 {
			return false
		}
		b.restore(runSnap)
		b.cut(runStart, field.start)
		runStart = -1
		b.lx.operand = false
		prev, prevKw = field.prev, field.prevKw
		field.snap, field.defines = b.save(), false
		return true
	}
	for off < len(src) {
		k, e := b.lx.next(off)
		switch k {
		case tSpace:
			off = e
			continue
		case tComment:
			b.cutComment(off, e)
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
				setDefs() // function name
				pendingFunc = false
			}
			switch string(src[off:e]) {
			case "function":
				if prev == '=' {
					setDefs() // x = function, local x = function, {name = function}
				}
				pendingFunc, params = true, true
			case "if", "do", "repeat":
				// A block that defines nothing keeps its head: the
				// parser sees `if x then end`, `while x do end`,
				// `repeat until x`.
				snap := b.save()
				c := byte(luaEnd)
				if src[off] == 'r' {
					c = luaUntil
				}
				start, end, inner := b.luaBlock(e, c)
				if b.fail {
					return end, end, defs
				}
				from := e
				if src[off] == 'i' {
					from = b.then
				}
				if inner {
					setDefs()
				} else if from > 0 && start-from >= 16 && isSpace(src[from]) {
					b.restore(snap)
					b.cut(from+1, start) // a space keeps the words apart
				}
				off, prev = end, 'i'
				continue
			case "then":
				if then < 0 {
					then = e
				}
			case "end":
				if closer != luaEnd {
					b.fail = true
				}
				b.then = then
				return off, e, defs
			case "until":
				if closer != luaUntil {
					b.fail = true
				}
				return off, e, defs
			}
			prev, prevKw = 'i', luaReserved(src[off:e])
			off = e
			continue
		}
		c := src[off]
		pendingFunc = pendingFunc && (c == '.' || c == ':')
		switch c {
		case '(':
			if params {
				params = false
				// The parameters: names, commas and "..." (left out).
				open, psnap := off, b.save()
				for off = e; off < len(src); {
					k, e := b.lx.next(off)
					if k == tBad || k == tEOF {
						b.fail = true
						return off, off, defs
					}
					if k == tComment {
						b.cutComment(off, e)
					}
					off = e
					if k == tPunct && src[e-1] == ')' {
						break
					}
				}
				if off-1-open > 4 {
					b.restore(psnap)
					b.cut(open+1, off-1)
				}
				body := off
				snap := b.save()
				start, end, inner := b.luaBlock(body, luaEnd)
				if b.fail {
					return end, end, defs
				}
				if inner {
					setDefs()
				} else if start > body {
					b.restore(snap)
					b.cut(body, start)
				}
				off, prev = end, 'i'
				continue
			}
			// A call's arguments (after a name, not a keyword: `if (x)`
			// and `= (x)` need what is inside) are left out when they
			// define nothing.
			g := group{open: -1}
			if prev == 'i' && !prevKw || prev == ')' || prev == ']' {
				g.open, g.snap = off, b.save()
			}
			b.out.groups = append(b.out.groups, g)
		case '{':
			snap := b.save()
			start, end, inner := b.luaBlock(e, luaTable)
			if b.fail {
				return end, end, defs
			}
			if inner {
				setDefs()
			} else if start-e >= minLiteral {
				b.restore(snap)
				b.cut(e, start)
			}
			off, prev = end, '}'
			continue
		case ')':
			if len(b.out.groups) == base {
				b.fail = true
				return off, e, defs
			}
			g := b.out.groups[len(b.out.groups)-1]
			b.out.groups = b.out.groups[:len(b.out.groups)-1]
			if g.open >= 0 && !g.complex && off-g.open > 4 {
				b.restore(g.snap)
				b.cut(g.open+1, off)
			}
		case '}':
			if closer != luaTable {
				b.fail = true
				return off, e, defs
			}
			if endField(off) {
				off = field.start
				continue
			}
			if defs && runStart >= 0 && off > runStart {
				// The fields after the last that defines something.
				b.restore(runSnap)
				b.cut(runStart, off)
			}
			return off, e, defs
		case ',', ';':
			if table && len(b.out.groups) == base {
				if endField(off) {
					off = field.start
					continue
				}
				field.start, field.snap, field.prev, field.prevKw, field.defines = e, skelSnap{}, c, false, false
				prev = c
				off = e
				field.snap = b.save()
				continue
			}
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

// luaReserved reports whether w is one of Lua's reserved words
// (luaSyntax.reserved, without a map lookup per name).
func luaReserved(w []byte) bool {
	switch string(w) {
	case "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
		"local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while":
		return true
	}
	return false
}
