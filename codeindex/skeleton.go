package codeindex

import (
	sitter "github.com/smacker/go-tree-sitter"
)

// goSkeleton returns the ranges of a Go file outside the contents of its
// blocks and composite literals (every brace not opening a struct or
// interface type), keeping the braces, so that a parse of only these
// ranges sees `func f() {}` and `var x = T{}`: every declaration the
// definitions query wants and a fraction of the bytes (function bodies and
// tables are most of a Go file).
// It returns nil, meaning "parse everything", when the file has no body or
// looks malformed.
func goSkeleton(src []byte) []sitter.Range {
	var (
		ranges              []sitter.Range
		from                sitter.Range // start of the pending range
		depth               int          // (, [, { nesting
		afterTypeWord       bool         // the last token was struct or interface
		row, lineStart, off int
	)
	n := len(src)
	point := func(i int) sitter.Point { return sitter.Point{Row: uint32(row), Column: uint32(i - lineStart)} }
	for off < n {
		c := src[off]
		switch {
		case c == '\n':
			row++
			off++
			lineStart = off
			continue
		case c == ' ' || c == '\t' || c == '\r':
			off++
			continue
		case c == '/' && off+1 < n && src[off+1] == '/':
			// A line comment (doc comments are a good part of what is left
			// outside bodies): leave it out too. The range ends before it
			// and the next starts at its newline, so no tokens touch.
			if off > int(from.StartByte) {
				from.EndByte, from.EndPoint = uint32(off), point(off)
				ranges = append(ranges, from)
			}
			for off < n && src[off] != '\n' {
				off++
			}
			from = sitter.Range{StartByte: uint32(off), StartPoint: point(off)}
			continue
		case c == '/' && off+1 < n && src[off+1] == '*':
			off += 2
			for off < n && !(src[off] == '*' && off+1 < n && src[off+1] == '/') {
				if src[off] == '\n' {
					row++
					lineStart = off + 1
				}
				off++
			}
			off += 2
			continue
		case c == '"' || c == '\'':
			off = skipQuoted(src, off, c)
		case c == '`':
			off++
			for off < n && src[off] != '`' {
				if src[off] == '\n' {
					row++
					lineStart = off + 1
				}
				off++
			}
			off++
		case isIdentByte(c):
			start := off
			for off < n && isIdentByte(src[off]) {
				off++
			}
			word := string(src[start:off])
			afterTypeWord = word == "struct" || word == "interface"
			continue
		case c == '(' || c == '[':
			depth++
			off++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				return nil
			}
			depth--
			off++
		case c == '{' && !afterTypeWord:
			// A block or a composite literal: skip to its closing brace.
			open := off
			from.EndByte, from.EndPoint = uint32(open+1), point(open+1)
			body := 0
			off++
			for off < n {
				b := src[off]
				switch {
				case b == '\n':
					row++
					lineStart = off + 1
					off++
					continue
				case b == '/' && off+1 < n && src[off+1] == '/':
					for off < n && src[off] != '\n' {
						off++
					}
					continue
				case b == '/' && off+1 < n && src[off+1] == '*':
					off += 2
					for off < n && !(src[off] == '*' && off+1 < n && src[off+1] == '/') {
						if src[off] == '\n' {
							row++
							lineStart = off + 1
						}
						off++
					}
					off += 2
					continue
				case b == '"' || b == '\'':
					off = skipQuoted(src, off, b)
					continue
				case b == '`':
					off++
					for off < n && src[off] != '`' {
						if src[off] == '\n' {
							row++
							lineStart = off + 1
						}
						off++
					}
					off++
					continue
				case b == '{':
					body++
				case b == '}':
					body--
				}
				if body < 0 {
					break
				}
				off++
			}
			if off >= n {
				return nil // unbalanced: let the parser see it all
			}
			ranges = append(ranges, from)
			from = sitter.Range{StartByte: uint32(off), StartPoint: point(off)}
			off++
			afterTypeWord = false
			continue
		case c == '{':
			depth++
			off++
		default:
			off++
		}
		afterTypeWord = false
	}
	if len(ranges) == 0 {
		return nil
	}
	from.EndByte, from.EndPoint = uint32(n), point(n)
	return append(ranges, from)
}

// skipQuoted skips a "..." or '...' literal starting at off (backslash
// escapes; a newline ends a malformed one) and returns the offset after it.
func skipQuoted(src []byte, off int, q byte) int {
	off++
	for off < len(src) {
		switch src[off] {
		case '\\':
			off += 2
			continue
		case q:
			return off + 1
		case '\n':
			return off
		}
		off++
	}
	return off
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
