package codeindex

import (
	"context"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/workspace"
)

func goFiles(b *testing.B, dir string) [][]byte {
	var files [][]byte
	filepath.WalkDir(filepath.Join(build.Default.GOROOT, "src", dir), func(p string, d fs.DirEntry, err error) error {
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
			x.skeletonDefs(l, src)
		}
	}
}

// goroot returns an index of Go's source tree, cached under the temporary
// directory between runs.
func goroot(b *testing.B) *Index {
	ws, err := workspace.New(filepath.Join(build.Default.GOROOT, "src"))
	if err != nil {
		b.Fatal(err)
	}
	ix := New(ws, Options{CacheDir: filepath.Join(os.TempDir(), "agentls-bench-cache")})
	b.Cleanup(func() { ix.Close() })
	if err := ix.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	return ix
}

// BenchmarkSearchGOROOT: searches for names of the index, each once (the
// signature cache is cleared between runs).
func BenchmarkSearchGOROOT(b *testing.B) {
	ix := goroot(b)
	all := ix.Definitions()
	var words []string
	for i := 7; len(words) < 100 && i < len(all); i += len(all) / 150 {
		if w := all[i].Name; len(w) > 3 {
			words = append(words, w[:len(w)/2+1])
		}
	}
	for b.Loop() {
		ix.descMu.Lock()
		clear(ix.desc)
		ix.descMu.Unlock()
		for _, w := range words {
			ix.Search(SearchQuery{Query: w, Limit: 20})
		}
	}
}

func BenchmarkMapGOROOT(b *testing.B) {
	ix := goroot(b)
	for b.Loop() {
		ix.rank = rankCache{} // recompute
		m, err := ix.Map(context.Background(), "", 40)
		if err != nil {
			b.Fatal(err)
		}
		b.Log("\n" + m)
	}
}

// BenchmarkColdGOROOT: a build of Go's source tree without the cache.
func BenchmarkColdGOROOT(b *testing.B) {
	ws, err := workspace.New(filepath.Join(build.Default.GOROOT, "src"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ix := New(ws, Options{NoCache: true})
		if err := ix.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
}

// BenchmarkWarmGOROOT: a build of Go's source tree from its cache.
func BenchmarkWarmGOROOT(b *testing.B) {
	ws, err := workspace.New(filepath.Join(build.Default.GOROOT, "src"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	ix := New(ws, Options{CacheDir: dir})
	if err := ix.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	ix.Close()
	for b.Loop() {
		ix := New(ws, Options{CacheDir: dir})
		if err := ix.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		if ix.parsed.Load() != 0 {
			b.Fatalf("warm build parsed %d files", ix.parsed.Load())
		}
		ix.Close()
	}
}

// BenchmarkIncrementalEdit: what bench/index measures, a one-line comment
// inserted in the middle of a 5,000-line Go file, its text different from
// update to update.
func BenchmarkIncrementalEdit(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(build.Default.GOROOT, "src", "cmd/internal/obj/riscv/obj.go"))
	if err != nil {
		b.Skip(err)
	}
	ix := emptyIndex(b)
	text := string(src)
	lines := strings.SplitAfter(text, "\n")
	n := len(lines) / 2
	var versions []string
	for i := range 100 {
		edited := slices.Clone(lines)
		edited[n] = fmt.Sprintf("// edit %d\n", i) + edited[n]
		versions = append(versions, strings.Join(edited, ""))
	}
	ix.UpdateBuffer("obj.go", 0, text)
	i := 0
	for b.Loop() {
		i++
		ix.UpdateBuffer("obj.go", int32(i), versions[i%len(versions)])
	}
}
