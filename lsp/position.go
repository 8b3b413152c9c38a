package lsp

import (
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/workspace"
)

// posEncoding is how the character of an LSP position counts: UTF-16 code
// units (the protocol's default) or UTF-8 bytes (negotiated).
type posEncoding int

const (
	encUTF16 posEncoding = iota
	encUTF8
)

func (e posEncoding) String() string {
	if e == encUTF8 {
		return "utf-8"
	}
	return "utf-16"
}

// Position is a zero-based line and character, the character counted in the
// connection's encoding.
type Position = protocol.Position

// Range is a half-open span of a document.
type Range = protocol.Range

// lineBounds returns the byte offsets of the start of line and of the end of
// its content (before its terminator). Lines end at "\n", "\r\n" or "\r", as
// the protocol says. A line past the last one clamps to the end of the text
// (start == end == len(text)).
func lineBounds(text string, line uint32) (start, end int) {
	crFree := strings.IndexByte(text, '\r') < 0
	for l := uint32(0); l < line; l++ {
		var i int
		if crFree {
			i = strings.IndexByte(text[start:], '\n')
		} else {
			i = strings.IndexAny(text[start:], "\r\n")
		}
		if i < 0 {
			return len(text), len(text)
		}
		start += i + 1
		if text[start-1] == '\r' && start < len(text) && text[start] == '\n' {
			start++
		}
	}
	var i int
	if crFree {
		i = strings.IndexByte(text[start:], '\n')
	} else {
		i = strings.IndexAny(text[start:], "\r\n")
	}
	if i < 0 {
		return start, len(text)
	}
	return start, start + i
}

// offsetOf converts a position into a byte offset of text. A character past
// the end of its line clamps to the end of the line (before its terminator);
// a line past the end clamps to the end of the text. A character that falls
// inside a character of the text (half a surrogate pair, the middle of a
// UTF-8 sequence) rounds down to its start.
func offsetOf(text string, p Position, enc posEncoding) int {
	start, end := lineBounds(text, p.Line)
	content := text[start:end]
	want := int(p.Character)
	if enc == encUTF8 {
		if want >= len(content) {
			return end
		}
		for want > 0 && !utf8.RuneStart(content[want]) {
			want--
		}
		return start + want
	}
	units := 0
	for i := 0; i < len(content); {
		if units >= want {
			return start + i
		}
		c := content[i]
		if c < utf8.RuneSelf {
			units++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(content[i:])
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > want {
			return start + i // inside a surrogate pair: round down
		}
		units += n
		i += size
	}
	return end
}

// positionOf converts a byte offset of text into a position. An offset past
// the end clamps to the end.
func positionOf(text string, off int, enc posEncoding) Position {
	p, _ := positionFrom(text, 0, 0, off, enc)
	return p
}

// positionFrom is positionOf counting from lineStart, the start of line
// (lineStart <= off). It also returns the start of the position's line.
func positionFrom(text string, lineStart int, line uint32, off int, enc posEncoding) (Position, int) {
	if off > len(text) {
		off = len(text)
	}
	if off < lineStart {
		off = lineStart
	}
	start := lineStart
	for i := start; i < off; i++ {
		switch text[i] {
		case '\n':
			line++
			start = i + 1
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				if i+1 == off {
					// between \r and \n: the end of the line's content
					return Position{Line: line, Character: count(text[start:i], enc)}, start
				}
				i++
			}
			line++
			start = i + 1
		}
	}
	return Position{Line: line, Character: count(text[start:off], enc)}, start
}

// count is the length of s in the encoding's units.
func count(s string, enc posEncoding) uint32 {
	if enc == encUTF8 {
		return uint32(len(s))
	}
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return uint32(n)
}

// textChange is one entry of didChange's contentChanges: a replacement of
// Range, or of the whole text when Range is nil.
type textChange struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

// applyChanges applies changes in order, each against the result of the
// previous one.
func applyChanges(text string, changes []textChange, enc posEncoding) string {
	text, _ = applyChangeEdits(text, changes, enc)
	return text
}

// applyChangeEdits is applyChanges that also returns the changes as byte
// edits, in order, each against the text the previous one left; nil when a
// change replaced the whole text.
func applyChangeEdits(text string, changes []textChange, enc posEncoding) (string, []workspace.Edit) {
	edits := make([]workspace.Edit, 0, len(changes))
	whole := false
	for _, ch := range changes {
		if ch.Range == nil {
			text = ch.Text
			whole = true
			continue
		}
		s := offsetOf(text, ch.Range.Start, enc)
		e := offsetOf(text, ch.Range.End, enc)
		if e < s {
			s, e = e, s
		}
		var b strings.Builder
		b.Grow(len(text) - (e - s) + len(ch.Text))
		b.WriteString(text[:s])
		b.WriteString(ch.Text)
		b.WriteString(text[e:])
		text = b.String()
		edits = append(edits, workspace.Edit{Start: s, End: e, New: ch.Text})
	}
	if whole {
		return text, nil
	}
	return text, edits
}
