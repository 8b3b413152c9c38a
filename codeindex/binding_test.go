package codeindex

import (
	"context"
	"testing"
)

// TestBindingLayout fails when a version of go-tree-sitter moves, renames
// or retypes the fields binding.go reads, and checks each read through
// the C library: a tree parsed by the binding queried from the root read
// out of its Node, and a parse and query made with the parser, query and
// cursor read out of theirs, must find the same definitions.
func TestBindingLayout(t *testing.T) {
	if err := bindingErr(); err != nil {
		t.Fatalf("go-tree-sitter's layout changed; update binding.go: %v", err)
	}
	l := LanguageByName("go")
	src := []byte("package p\n\n// F is f.\nfunc F() int { return 1 }\n\ntype T struct{ A int }\n")
	x := newExtractor()
	defer x.Close()
	tree, err := x.parse(context.Background(), l, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	viaNode := symbols(x.treeDefs(l, rootOf(tree), src), "p.go")
	p, err := x.parser(l)
	if err != nil {
		t.Fatal(err)
	}
	q, err := l.defsQuery()
	if err != nil {
		t.Fatal(err)
	}
	caps, err := parseRun(p, src, x.qc, q, anyDepth, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.caps = caps
	viaParser := symbols(x.collect(l, src, nil), "p.go")
	want := []string{"F", "T", "A"}
	for _, got := range [][]Symbol{viaNode, viaParser} {
		var names []string
		for _, s := range got {
			names = append(names, s.Name)
		}
		if len(names) != len(want) || names[0] != "F" || names[1] != "T" || names[2] != "A" {
			t.Errorf("definitions %v, want %v", names, want)
		}
	}
}
