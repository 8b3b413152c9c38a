package codeindex

// phpBody reads the brace at off (past its '{') of a PHP body that is no
// container's, by its brackets alone, and returns the offset of its '}';
// -1 when something in it may define (a named function, a class, an
// interface, a trait or an enum, anonymous ones too: their methods are
// definitions; a const), when it leaves PHP (`?>`), or when its brackets
// do not balance: then bskel.block reads it token by token. Strings,
// comments and heredocs go through the lexer. A function's body that
// defines nothing was most of the PHP skeleton's work, a token at a time.
func (b *bskel) phpBody(off int) int {
	src := b.src
	var outer [32]int // the open parentheses of the braces around
	depth, paren := 0, 0
	for off < len(src) {
		c := src[off]
		switch plainBytes[c] {
		case pbOther:
			switch {
			case c == '?' && off+1 < len(src) && src[off+1] == '>', c == '`':
				return -1
			case c == '<' && off+2 < len(src) && src[off+1] == '<' && src[off+2] == '<':
				k, e := b.lx.next(off) // a heredoc or nowdoc
				if k != tString {
					return -1
				}
				off = e
				continue
			}
			off++
		case pbIdent:
			e := off + 1
			for e < len(src) && identBytes[src[e]] {
				e++
			}
			switch string(src[off:e]) {
			case "function", "class", "interface", "trait", "enum", "const":
				// Not `X::class`, `$o->function()`: those name nothing.
				if !(off >= 2 && (src[off-1] == ':' && src[off-2] == ':' || src[off-1] == '>' && src[off-2] == '-')) {
					if string(src[off:e]) != "function" || !b.closureAfter(e) {
						return -1
					}
				}
			}
			off = e
		case pbLex:
			k, e := b.lx.next(off)
			switch k {
			case tBad, tEOF:
				return -1
			}
			off = e
		case pbOpen:
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
			if c == '}' {
				if paren != 0 {
					return -1
				}
				if depth == 0 {
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

// closureAfter reports whether a '(' follows off past blanks: `function
// (...)` is a closure, which defines nothing.
func (b *bskel) closureAfter(off int) bool {
	src := b.src
	for off < len(src) && (src[off] == ' ' || src[off] == '\t' || src[off] == '\n' || src[off] == '\r') {
		off++
	}
	return off < len(src) && src[off] == '('
}
