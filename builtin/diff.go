package builtin

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Limits of the diff a write tool returns: enough to confirm the change,
// short enough not to crowd the model's context. A deleted file's diff is
// shorter still: the model knows what it deleted.
const (
	maxDiffLines        = 80
	maxDeletedDiffLines = 20
	maxDiffLineSize     = 300
)

// shortDiff is a unified diff of before and after, labelled with rel, cut
// after maxLines lines with a note saying how many were left out. It is
// empty when the texts are equal.
func shortDiff(rel, before, after string, maxLines int) string {
	if before == after {
		return ""
	}
	edits := udiff.Lines(before, after)
	d, err := udiff.ToUnified("a/"+rel, "b/"+rel, before, edits, udiff.DefaultContextLines)
	if err != nil {
		return "" // cannot happen: the edits were computed from before
	}
	lines := strings.SplitAfter(strings.TrimSuffix(d, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == maxLines {
			fmt.Fprintf(&b, "… diff cut: %d more lines\n", len(lines)-i)
			break
		}
		if len(l) > maxDiffLineSize {
			l = truncateUTF8(l, maxDiffLineSize) + "…\n"
		}
		b.WriteString(l)
	}
	s := b.String()
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
