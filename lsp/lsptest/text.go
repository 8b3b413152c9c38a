package lsptest

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Position and Range as the protocol spells them.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is a half-open span of a document.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// TextEdit replaces Range with NewText.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// ApplyEdit is the fake editor's own, deliberately plain model of a text
// edit: the text becomes an array of code units (UTF-16 units, or bytes when
// utf8 is set), lines are found in that array ("\n", "\r\n" and "\r" end a
// line), and the range is replaced there. It shares no code with the server
// so that tests can compare the two. The text must be valid UTF-8.
func ApplyEdit(text string, e TextEdit, utf8Positions bool) string {
	if utf8Positions {
		b := []byte(text)
		s := unitIndex(bytesUnits(b), e.Range.Start, func(u []uint16, i int) bool { return i < len(u) && !utf8.RuneStart(byte(u[i])) })
		en := unitIndex(bytesUnits(b), e.Range.End, func(u []uint16, i int) bool { return i < len(u) && !utf8.RuneStart(byte(u[i])) })
		if en < s {
			s, en = en, s
		}
		out := append([]byte{}, b[:s]...)
		out = append(out, e.NewText...)
		out = append(out, b[en:]...)
		return string(out)
	}
	u := utf16.Encode([]rune(text))
	inPair := func(u []uint16, i int) bool {
		return i > 0 && i < len(u) && utf16.IsSurrogate(rune(u[i])) && u[i] >= 0xDC00
	}
	s := unitIndex(u, e.Range.Start, inPair)
	en := unitIndex(u, e.Range.End, inPair)
	if en < s {
		s, en = en, s
	}
	out := append([]uint16{}, u[:s]...)
	out = append(out, utf16.Encode([]rune(e.NewText))...)
	out = append(out, u[en:]...)
	return string(utf16.Decode(out))
}

func bytesUnits(b []byte) []uint16 {
	u := make([]uint16, len(b))
	for i, c := range b {
		u[i] = uint16(c)
	}
	return u
}

// unitIndex finds p in u: a line past the end is the end of the text, a
// character past the end of its line is the end of the line's content, and
// an index inside a character moves back to its start.
func unitIndex(u []uint16, p Position, inside func([]uint16, int) bool) int {
	type line struct{ start, end int }
	var lines []line
	start := 0
	for i := 0; i < len(u); i++ {
		switch u[i] {
		case '\n':
			lines = append(lines, line{start, i})
			start = i + 1
		case '\r':
			lines = append(lines, line{start, i})
			if i+1 < len(u) && u[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	lines = append(lines, line{start, len(u)})
	if int(p.Line) >= len(lines) {
		return len(u)
	}
	l := lines[p.Line]
	i := l.start + int(p.Character)
	if i > l.end {
		i = l.end
	}
	for i > l.start && inside(u, i) {
		i--
	}
	return i
}
