package textsearch

import (
	"slices"
	"testing"
)

func TestFinderFold(t *testing.T) {
	text := []byte("xx READall yy rEaDaLl readal READALL_")
	f := newFinder([]string{"readall"}, true)
	f.reset()
	var got []int
	for pos := 0; ; {
		s, e := f.find(text, pos)
		if s < 0 {
			break
		}
		got = append(got, s)
		pos = e
	}
	want := []int{3, 14, 29}
	if !slices.Equal(got, want) {
		t.Errorf("got %v want %v", got, want)
	}
	// several literals, earliest first
	f = newFinder([]string{"yy", "xx", "all"}, false)
	f.reset()
	var order []int
	for pos := 0; ; {
		s, e := f.find(text, pos)
		if s < 0 {
			break
		}
		order = append(order, s)
		pos = e
	}
	if want := []int{0, 7, 11}; !slices.Equal(order, want) {
		t.Errorf("multi: got %v want %v", order, want)
	}
}
