package lsp

import (
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
)

// minimalEdits returns the TextEdits that turn old into new, in document
// order and all relative to old: one per run of changed lines (a line diff),
// each narrowed to the characters that differ. Lines the change does not
// touch are outside every edit, so the editor keeps the cursor, marks and
// folds on them, and its undo history holds the change as edits of the
// lines it made. Equal texts give no edit.
func minimalEdits(old, new string, enc posEncoding) []lspTextEdit {
	if old == new {
		return nil
	}
	hunks := udiff.Lines(old, new)
	out := make([]lspTextEdit, 0, len(hunks))
	pos := posCursor{text: old, enc: enc}
	for _, h := range hunks {
		before := old[h.Start:h.End]
		s, oe, ne := diffBounds(before, h.New)
		if s == oe && s == ne {
			continue
		}
		start := pos.at(h.Start + s)
		end := pos.at(h.Start + oe)
		out = append(out, lspTextEdit{Range: Range{Start: start, End: end}, NewText: h.New[s:ne]})
	}
	return out
}

// posCursor converts increasing byte offsets of text into positions with
// one pass over the text, however many offsets are asked for.
type posCursor struct {
	text      string
	enc       posEncoding
	line      uint32 // the line of the last offset asked for
	lineStart int    // the byte offset where that line starts
}

// at returns the position of off, which must not be less than the start of
// the line of the previous call's offset.
func (c *posCursor) at(off int) Position {
	p, start := positionFrom(c.text, c.lineStart, c.line, off, c.enc)
	c.line, c.lineStart = p.Line, start
	return p
}

// diffBounds finds the one span that differs: a[start:aEnd] becomes
// b[start:bEnd]. The span starts and ends on character boundaries and
// never between "\r" and "\n".
func diffBounds(a, b string) (start, aEnd, bEnd int) {
	n := min(len(a), len(b))
	for start < n && a[start] == b[start] {
		start++
	}
	for start > 0 && (start < len(a) && !utf8.RuneStart(a[start]) || start < len(b) && !utf8.RuneStart(b[start])) {
		start--
	}
	if start > 0 && a[start-1] == '\r' && (start < len(a) && a[start] == '\n' || start < len(b) && b[start] == '\n') {
		start--
	}
	sfx := 0
	for sfx < len(a)-start && sfx < len(b)-start && a[len(a)-1-sfx] == b[len(b)-1-sfx] {
		sfx++
	}
	for sfx > 0 && !utf8.RuneStart(a[len(a)-sfx]) {
		sfx--
	}
	if sfx > 0 && a[len(a)-sfx] == '\n' && len(a)-sfx > 0 && a[len(a)-sfx-1] == '\r' {
		sfx--
	}
	return start, len(a) - sfx, len(b) - sfx
}
