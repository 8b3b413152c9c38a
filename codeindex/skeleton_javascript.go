package codeindex

// jsSkip reads a JavaScript brace (a body, an object literal) from after
// its '{' at off and returns the offset of its '}' when block would find
// no definition in it, so that the skeleton leaves it out whole without
// reading every token with the state of a declaration (most of the
// skeleton's time went to such bodies). It returns -1 where block must
// read the brace: a function, a class or an arrow in it, a parenthesis
// after a name that is neither a control word nor `function` followed by
// a brace (a method, `name(...) {`, where block finds one, as it does
// after `) :`), brackets that do not pair, or a literal or comment the
// lexer cannot read.
//
// It passes over names, numbers, blanks and operators byte by byte and
// asks the lexer where a literal, a comment or JSX may start, telling it,
// as block's lexer would know, whether an operand came last (a '/' then
// divides, else starts a regular expression; a '<' compares, else may
// start JSX). Where it returns -1 the lexer's state is as it found it.
func (b *bskel) jsSkip(off int) int {
	operand := b.lx.operand
	end := b.jsScan(off)
	if end < 0 {
		b.lx.operand = operand // block reads from off as without jsSkip
	}
	return end
}

// jsScan is jsSkip, but for the lexer's state.
func (b *bskel) jsScan(off int) int {
	src, sx := b.src, b.sx
	lx := &b.lx
	var stack [64]byte // the open brackets: '(' after a method's name is 'm'
	depth := 0
	operand := false // an operand came last
	var prev byte    // the last token: 'i' a name, 'w' a name that cannot be a method's, ')' or 'm' a parenthesis closed, ':' after ')', else 0
	for off < len(src) {
		c := src[off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v': // the lexer's blanks
			off++
			continue
		case identBytes[c] && (c < '0' || c > '9'):
			e := off + 1
			for e < len(src) && identBytes[src[e]] {
				e++
			}
			w := src[off:e]
			prev, operand = 'i', true
			if len(w) < 32 && sx.wordLens[c]&(1<<len(w)) != 0 {
				_, f := sx.wordKw(w)
				if f&(kwFunc|kwContainer) != 0 {
					return -1 // function, class
				}
				if f&kwControl != 0 {
					prev, operand = 'w', false
				}
			}
			off = e
			continue
		case c == '"' || c == '\'' || c == '`' || c >= '0' && c <= '9' ||
			c == '/' && (!operand || off+1 < len(src) && (src[off+1] == '/' || src[off+1] == '*')) ||
			c == '<' && !operand && off+1 < len(src) && (identBytes[src[off+1]] || src[off+1] == '>'):
			lx.operand = operand
			k, e := lx.next(off)
			switch k {
			case tBad, tEOF:
				return -1
			case tComment, tSpace:
			default:
				prev, operand = 0, true // a string, template, number, regular expression or JSX
			}
			off = e
			continue
		}
		p := prev
		prev, operand = 0, false
		switch c {
		case '=':
			if off+1 < len(src) && src[off+1] == '>' {
				return -1 // an arrow
			}
		case ':':
			if p == ')' || p == 'm' {
				return -1
			}
		case '(', '[', '{':
			if c == '{' && p == 'm' {
				return -1 // name(...) {
			}
			if depth == len(stack) {
				return -1
			}
			if c == '(' && p == 'i' {
				c = 'm'
			}
			stack[depth] = c
			depth++
		case ')', ']', '}':
			if depth == 0 {
				if c == '}' {
					return off
				}
				return -1
			}
			depth--
			o := stack[depth]
			switch {
			case c == ')' && o == 'm':
				prev = 'm'
			case c == ')' && o == '(':
				prev = ')'
			case c == ']' && o == '[', c == '}' && o == '{':
			default:
				return -1
			}
			operand = true
		}
		off++
	}
	return -1
}
