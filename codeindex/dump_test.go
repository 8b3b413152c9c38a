package codeindex

import (
	"context"
	"os"
	"testing"
)

// TestDump prints the tree of $DUMP (a file) for writing queries.
func TestDump(t *testing.T) {
	f := os.Getenv("DUMP")
	if f == "" {
		t.Skip("DUMP not set")
	}
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	l := LanguageFor(f)
	if err := l.load(); err != nil {
		t.Log(err)
	}
	x := newExtractor()
	defer x.Close()
	tree, _ := x.parse(context.Background(), l, src, nil)
	t.Log(tree.RootNode().String())
}
