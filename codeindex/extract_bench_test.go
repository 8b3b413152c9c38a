package codeindex

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func goFiles(b *testing.B, dir string) [][]byte {
	var files [][]byte
	filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src", dir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			if src, err := os.ReadFile(p); err == nil && len(src) <= maxFileSize {
				files = append(files, src)
			}
		}
		return nil
	})
	return files
}

// BenchmarkSkeleton: skeleton parse and definitions of net/http, one core.
func BenchmarkSkeleton(b *testing.B) {
	files := goFiles(b, "net/http")
	l := LanguageByName("go")
	x := newExtractor()
	defer x.Close()
	n := 0
	for _, f := range files {
		n += len(f)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, src := range files {
			t, _ := x.parse(context.Background(), l, src, nil, true)
			x.definitions(l, t, src, "x.go")
			t.Close()
		}
	}
}
