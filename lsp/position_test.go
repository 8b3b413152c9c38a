package lsp

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/lsp/lsptest"
)

func TestOffsetOf(t *testing.T) {
	const text = "a中😀b\r\ne\u0301x\rlast"
	tests := []struct {
		p    Position
		enc  posEncoding
		want int
	}{
		{Position{Line: 0, Character: 0}, encUTF16, 0},
		{Position{Line: 0, Character: 1}, encUTF16, 1},               // after a
		{Position{Line: 0, Character: 2}, encUTF16, 4},               // after 中 (3 bytes, 1 unit)
		{Position{Line: 0, Character: 3}, encUTF16, 4},               // inside the surrogate pair: rounds down
		{Position{Line: 0, Character: 4}, encUTF16, 8},               // after 😀 (4 bytes, 2 units)
		{Position{Line: 0, Character: 5}, encUTF16, 9},               // after b
		{Position{Line: 0, Character: 99}, encUTF16, 9},              // past the end: before \r\n
		{Position{Line: 1, Character: 1}, encUTF16, 12},              // after e
		{Position{Line: 1, Character: 2}, encUTF16, 14},              // after the combining mark (2 bytes, 1 unit)
		{Position{Line: 1, Character: 9}, encUTF16, 15},              // before the lone \r
		{Position{Line: 2, Character: 4}, encUTF16, 20},              // end of the last line
		{Position{Line: 7, Character: 0}, encUTF16, len(text)},       // past the last line
		{Position{Line: 0, Character: 2}, encUTF8, 2 - 1},            // inside 中: rounds down to its start
		{Position{Line: 0, Character: 4}, encUTF8, 4},                // after 中
		{Position{Line: 0, Character: 8}, encUTF8, 8},                // after 😀
		{Position{Line: 0, Character: 100}, encUTF8, 9},              // clamped before \r\n
		{Position{Line: 1, Character: 3}, encUTF8, 14},               // after e + U+0301
		{Position{Line: 2, Character: 0}, encUTF8, 16},               // start of "last"
		{Position{Line: 9, Character: 9}, encUTF8, len(text)},        // past the end
		{Position{Line: 1, Character: 0}, encUTF16, 11},              // after \r\n
		{Position{Line: 0, Character: 1 << 31}, encUTF16, 9},         // huge character
		{Position{Line: 1 << 31, Character: 0}, encUTF16, len(text)}, // huge line
	}
	for _, tt := range tests {
		if got := offsetOf(text, tt.p, tt.enc); got != tt.want {
			t.Errorf("offsetOf(%v, %v) = %d, want %d", tt.p, tt.enc, got, tt.want)
		}
	}
}

func TestPositionOfRoundTrip(t *testing.T) {
	const text = "a中😀b\r\ne\u0301x\rlast\n"
	for _, enc := range []posEncoding{encUTF16, encUTF8} {
		for off := 0; off <= len(text); off++ {
			if off < len(text) && !isBoundary(text, off) {
				continue
			}
			p := positionOf(text, off, enc)
			got := offsetOf(text, p, enc)
			want := off
			if off > 0 && text[off-1] == '\r' && off < len(text) && text[off] == '\n' {
				want = off - 1 // between \r and \n is the end of the line
			}
			if got != want {
				t.Errorf("%v: offset %d -> %v -> %d", enc, off, p, got)
			}
		}
	}
}

func isBoundary(s string, i int) bool { return s[i]&0xC0 != 0x80 }

var fuzzPieces = []string{"a", "b", " ", "é", "e\u0301", "中", "文", "😀", "👩‍💻", "\n", "\r\n", "\r", "\t", "ß"}

func randText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(fuzzPieces[r.IntN(len(fuzzPieces))])
	}
	return b.String()
}

func randPos(r *rand.Rand) Position {
	return Position{Line: uint32(r.IntN(8)), Character: uint32(r.IntN(12))}
}

// FuzzApplyChanges compares incremental application with the fake editor's
// reference model, which works on arrays of code units.
func FuzzApplyChanges(f *testing.F) {
	for i := range 20 {
		f.Add(uint64(i), false)
		f.Add(uint64(i), true)
	}
	f.Fuzz(func(t *testing.T, seed uint64, utf8Enc bool) {
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		enc := encUTF16
		if utf8Enc {
			enc = encUTF8
		}
		text := randText(r, r.IntN(40))
		ref := text
		var changes []textChange
		for range 1 + r.IntN(5) {
			if r.IntN(10) == 0 {
				nt := randText(r, r.IntN(10))
				changes = append(changes, textChange{Text: nt})
				ref = nt
				continue
			}
			rg := Range{Start: randPos(r), End: randPos(r)}
			nt := randText(r, r.IntN(4))
			changes = append(changes, textChange{Range: &rg, Text: nt})
			ref = lsptest.ApplyEdit(ref, lsptest.TextEdit{
				Range:   lsptest.Range{Start: lsptest.Position(rg.Start), End: lsptest.Position(rg.End)},
				NewText: nt,
			}, utf8Enc)
		}
		got, edits := applyChangeEdits(text, changes, enc)
		if got != ref {
			t.Fatalf("%v: text %q changes %+v:\n got %q\nwant %q", enc, text, changes, got, ref)
		}
		// The edits, when known, replay the change on the bytes.
		whole := slices.ContainsFunc(changes, func(c textChange) bool { return c.Range == nil })
		if whole != (edits == nil) {
			t.Fatalf("edits %v for changes %+v", edits, changes)
		}
		replay := text
		for _, e := range edits {
			replay = replay[:e.Start] + e.New + replay[e.End:]
		}
		if !whole && replay != got {
			t.Fatalf("edits %v replay to %q, not %q", edits, replay, got)
		}
	})
}

// BenchmarkDidChangeApply is the server's side of one keystroke in a
// 5,000-line buffer: decode the didChange, find the position, build the new
// text and hand it to the overlay.
func BenchmarkDidChangeApply(b *testing.B) {
	var sb strings.Builder
	for i := range 5000 {
		sb.WriteString("\tvalue := compute(1234, \"some text\") // comment 中文\n")
		_ = i
	}
	text := sb.String()
	b.ResetTimer()
	for i := range b.N {
		line := uint32(i*7919) % 5000
		text = applyChanges(text, []textChange{{Range: &Range{Start: Position{Line: line, Character: 3}, End: Position{Line: line, Character: 3}}, Text: "x"}}, encUTF16)
	}
}
