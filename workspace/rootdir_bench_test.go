package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Benchmarks of the confinement primitive's users: a read through the
// merged view (read_file, ReadRaw), a walk of a small directory (ls, glob,
// a grep of a subdirectory: what a walk pays before its first entry) and a
// reader reading a file (grep, the index). Compare before and after with
// go test -run - -bench 'Confined' -count 5 ./workspace.

func confinedTree(b *testing.B) *Workspace {
	dir := b.TempDir()
	for i := range 8 {
		p := filepath.Join(dir, "a", "b", fmt.Sprintf("f%d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("package b\n\nfunc F() {}\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	w, err := New(dir)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

func BenchmarkConfinedRead(b *testing.B) {
	w := confinedTree(b)
	abs := filepath.Join(w.Root(), "a", "b", "f3.go")
	for b.Loop() {
		if _, err := w.Read(abs, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConfinedWalkSmall(b *testing.B) {
	w := confinedTree(b)
	ctx := context.Background()
	for b.Loop() {
		n := 0
		if err := w.Walk(ctx, "a/b", WalkOptions{NoStat: true}, func(WalkEntry) error { n++; return nil }); err != nil || n != 8 {
			b.Fatal(n, err)
		}
	}
}

func BenchmarkConfinedReader(b *testing.B) {
	w := confinedTree(b)
	buf := make([]byte, 0, 64<<10)
	for b.Loop() {
		r := w.NewFileReader() // one per search worker or index build
		for i := range 8 {
			data, _, err := r.Read(w.Root(), fmt.Sprintf("a/b/f%d.go", i), 0, buf)
			if err != nil {
				b.Fatal(err)
			}
			buf = data[:0]
		}
		r.Close()
	}
}
