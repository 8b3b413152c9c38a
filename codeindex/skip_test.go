package codeindex

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestSkipMinified checks skip's early-stopping line count against the
// rule it implements (minified: over 300 bytes a line on average, lines
// counted over the whole file), at the threshold and around it.
func TestSkipMinified(t *testing.T) {
	whole := func(src []byte) bool {
		if bytes.IndexByte(src[:min(len(src), 8<<10)], 0) >= 0 {
			return true
		}
		if len(src) < 8<<10 {
			return false
		}
		return len(src)/(bytes.Count(src, []byte{'\n'})+1) > 300
	}
	rng := rand.New(rand.NewSource(1))
	for _, size := range []int{8<<10 - 1, 8 << 10, 9000, 30103, 64 << 10, 300 << 10} {
		for _, lineLen := range []int{40, 299, 300, 301, 302, 1000} {
			for _, tail := range []bool{false, true} {
				src := bytes.Repeat([]byte{'x'}, size)
				for i := lineLen; i < size; i += lineLen + 1 {
					src[i] = '\n'
				}
				if tail { // the newlines all at the end: the count goes to the end
					n := bytes.Count(src, []byte{'\n'})
					src = bytes.Repeat([]byte{'x'}, size)
					for i := range n {
						src[size-1-i] = '\n'
					}
				}
				if got, want := skip(src), whole(src); got != want {
					t.Errorf("size %d, lines of %d, newlines at the end %v: skip %v, want %v", size, lineLen, tail, got, want)
				}
			}
		}
	}
	// At the threshold exactly: len/lines is 300 (kept) or 301 (skipped).
	for _, perLine := range []int{300, 301} {
		lines := 100
		src := bytes.Repeat([]byte{'x'}, perLine*lines)
		for i := 1; i < lines; i++ {
			src[rng.Intn(len(src))] = '\n'
		}
		if got, want := skip(src), whole(src); got != want {
			t.Errorf("%d bytes a line: skip %v, want %v", perLine, got, want)
		}
	}
}
