package codeindex

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDiffEdit checks the single edit between random texts against a
// byte-by-byte reference.
func TestDiffEdit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := strings.Repeat("func f() {\n\treturn 1\n}\n", 200)
	for i := range 2000 {
		old := base[:rng.IntN(len(base))]
		edited := randomEdit(rng, old)
		if i%3 == 0 {
			edited = randomEdit(rng, edited)
		}
		e := diffEdit([]byte(old), []byte(edited))
		// Reference: the edit must turn old into edited.
		got := old[:e.StartIndex] + edited[e.StartIndex:e.NewEndIndex] + old[e.OldEndIndex:]
		if got != edited || e.OldEndIndex < e.StartIndex || e.NewEndIndex < e.StartIndex {
			t.Fatalf("edit %+v does not turn old into new", e)
		}
		if p := pointAt([]byte(old), 0, e.StartPoint, 0); p != e.StartPoint {
			t.Fatal("point")
		}
		for _, c := range []struct {
			text string
			off  uint32
			row  uint32
			col  uint32
		}{{old, e.OldEndIndex, e.OldEndPoint.Row, e.OldEndPoint.Column}, {edited, e.NewEndIndex, e.NewEndPoint.Row, e.NewEndPoint.Column}, {old, e.StartIndex, e.StartPoint.Row, e.StartPoint.Column}} {
			before := c.text[:c.off]
			row := uint32(strings.Count(before, "\n"))
			col := uint32(len(before) - (strings.LastIndexByte(before, '\n') + 1))
			if row != c.row || col != c.col {
				t.Fatalf("point of %d: got %d:%d, want %d:%d", c.off, c.row, c.col, row, col)
			}
		}
	}
}
