package textsearch

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// rg's \w, \d, \s and \b are Unicode-aware; Go's are ASCII. unicodeClasses
// rewrites the Perl classes of an RE2 pattern to their Unicode forms (as rg
// defines them: \w is letters, marks, decimal digits and connector
// punctuation; \d decimal digits; \s Unicode white space), and takes a \b at
// the very start or end of the pattern off, to be checked after matching
// with the Unicode word characters (Go's \b cannot see them). A \b anywhere
// else, and \W \D \S inside a bracketed class, stay ASCII.
//
// The \b are taken off only when the parsed pattern is a concatenation that
// starts (or ends) with it, so "\bfoo|bar" keeps its \b.
func unicodeClasses(expr string, flags syntax.Flags) (out string, wordStart, wordEnd bool) {
	if tree, err := syntax.Parse(expr, flags); err == nil && tree.Op == syntax.OpConcat && len(tree.Sub) > 1 {
		wordStart = tree.Sub[0].Op == syntax.OpWordBoundary && strings.HasPrefix(expr, `\b`)
		wordEnd = tree.Sub[len(tree.Sub)-1].Op == syntax.OpWordBoundary && strings.HasSuffix(expr, `\b`) && trailingEscape(expr[:len(expr)-2])
	}
	if wordStart {
		expr = expr[2:]
	}
	if wordEnd {
		expr = expr[:len(expr)-2]
	}
	const (
		word  = `\p{L}\p{M}\p{Nd}\p{Pc}`
		space = `\s\v\x{85}\p{Z}`
	)
	var b strings.Builder
	inClass := false
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			n := expr[i+1]
			switch {
			case n == 'Q': // \Q...\E is literal
				end := strings.Index(expr[i:], `\E`)
				if end < 0 {
					b.WriteString(expr[i:])
					return b.String(), wordStart, wordEnd
				}
				b.WriteString(expr[i : i+end+2])
				i += end + 1
			case n == 'w' || n == 'd' || n == 's':
				class := map[byte]string{'w': word, 'd': `\p{Nd}`, 's': space}[n]
				if inClass {
					b.WriteString(class)
				} else {
					b.WriteString("[" + class + "]")
				}
				i++
			case (n == 'W' || n == 'D' || n == 'S') && !inClass:
				class := map[byte]string{'W': word, 'D': `\p{Nd}`, 'S': space}[n]
				b.WriteString("[^" + class + "]")
				i++
			case (n == 'p' || n == 'P' || n == 'x') && i+2 < len(expr) && expr[i+2] == '{':
				end := strings.IndexByte(expr[i:], '}')
				if end < 0 {
					end = len(expr) - i - 1
				}
				b.WriteString(expr[i : i+end+1])
				i += end
			default:
				b.WriteString(expr[i : i+2])
				i++
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal.
			if i+1 < len(expr) && expr[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(expr) && expr[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '[' && inClass && i+1 < len(expr) && expr[i+1] == ':':
			end := strings.Index(expr[i:], ":]")
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			b.WriteString(expr[i : i+end+2])
			i += end + 1
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), wordStart, wordEnd
}

// trailingEscape reports whether s ends outside an escape: an even number
// of backslashes, so that a "\b" after it is the boundary, not "\\" + "b".
func trailingEscape(s string) bool {
	n := 0
	for n < len(s) && s[len(s)-1-n] == '\\' {
		n++
	}
	return n%2 == 0
}

// isWordRune is rg's Unicode word character.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) || unicode.Is(unicode.Pc, r)
}

// boundary reports whether a Unicode word boundary lies at offset i of data.
func boundary(data []byte, i int) bool {
	before, after := false, false
	if i > 0 {
		r, _ := utf8.DecodeLastRune(data[:i])
		before = isWordRune(r)
	}
	if i < len(data) {
		r, _ := utf8.DecodeRune(data[i:])
		after = isWordRune(r)
	}
	return before != after
}

// accept reports whether the match data[ms:me] has the word boundaries the
// pattern took off its ends.
func (p *Pattern) accept(data []byte, ms, me int) bool {
	return (!p.wordStart || boundary(data, ms)) && (!p.wordEnd || boundary(data, me))
}
