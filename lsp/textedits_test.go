package lsp

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Random edits of texts with CRLF, lone CR, multi-byte and astral
// characters: the minimal edits, applied as a client applies them (in both
// encodings), give the new text, do not overlap, and come in order.
func TestMinimalEditsRoundTrip(t *testing.T) {
	pieces := []string{"a", "b", "中", "😀", "\n", "\r\n", "\r", "line\n", "x y\r\n"}
	rnd := rand.New(rand.NewPCG(1, 2))
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		return b.String()
	}
	for i := range 2000 {
		old := gen(rnd.IntN(40))
		new := old
		for range 1 + rnd.IntN(3) {
			s := rnd.IntN(len(new) + 1)
			e := min(len(new), s+rnd.IntN(6))
			new = new[:s] + gen(rnd.IntN(4)) + new[e:]
		}
		for _, enc := range []posEncoding{encUTF16, encUTF8} {
			edits := minimalEdits(old, new, enc)
			if got := applyTextEdits(old, edits, enc); got != new && strings.ToValidUTF8(new, "") == new {
				t.Fatalf("case %d (%s): %q → %q: edits %+v give %q", i, enc, old, new, edits, got)
			}
			for j := 1; j < len(edits); j++ {
				a, b := edits[j-1].Range.End, edits[j].Range.Start
				if a.Line > b.Line || a.Line == b.Line && a.Character > b.Character {
					t.Fatalf("case %d: edits out of order or overlapping: %+v", i, edits)
				}
			}
			if (old == new) != (len(edits) == 0) {
				t.Fatalf("case %d: %d edits for equal=%v", i, len(edits), old == new)
			}
		}
	}
}

// positionFrom counting from any line start agrees with positionOf.
func TestPositionCursor(t *testing.T) {
	const text = "a中😀b\r\ne\u0301x\rlast\n\r\n"
	for _, enc := range []posEncoding{encUTF16, encUTF8} {
		c := posCursor{text: text, enc: enc}
		for off := 0; off <= len(text)+1; off++ {
			if got, want := c.at(off), positionOf(text, off, enc); got != want {
				t.Errorf("%s: offset %d: cursor %+v, positionOf %+v", enc, off, got, want)
			}
		}
	}
}
