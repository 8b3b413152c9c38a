package codeindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/workspace"
)

func TestCache(t *testing.T) {
	_, root := newTestIndex(t, "testdata/ws/small.txtar")
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	build := func() *Index {
		t.Helper()
		ix := New(ws, Options{CacheDir: cacheDir, Workers: 2})
		t.Cleanup(func() { ix.Close() })
		if err := ix.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	// Every field of every definition, positions too.
	defs := func(ix *Index) string { return fmt.Sprintf("%+v", ix.Definitions()) }
	first := build()
	want := defs(first)
	if first.parsed.Load() != 4 {
		t.Fatalf("first build parsed %d files", first.parsed.Load())
	}

	// A restart loads everything from the cache.
	warm := build()
	if warm.parsed.Load() != 0 || warm.reused.Load() != 4 || defs(warm) != want {
		t.Errorf("warm: parsed %d, reused %d, definitions\n%s\nwant\n%s", warm.parsed.Load(), warm.reused.Load(), defs(warm), want)
	}

	// A changed file is parsed again, and an added one; a touched but
	// equal one is not; a removed one goes.
	item := filepath.Join(root, "cart", "item.go")
	src, _ := os.ReadFile(item)
	os.WriteFile(item, append(src, "\nfunc Extra() {}\n"...), 0o644)
	os.WriteFile(filepath.Join(root, "cart", "added.go"), []byte("package cart\n\nfunc Added() {}\n"), 0o644)
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "main.go"), later, later)
	os.Remove(filepath.Join(root, "tools", "report.py"))
	ix := build()
	if ix.parsed.Load() != 2 || len(ix.Definition("Extra", "")) != 1 || len(ix.Definition("Added", "")) != 1 || len(ix.Definition("add_header", "")) != 0 {
		t.Errorf("after changes: parsed %d, Extra %v, Added %v", ix.parsed.Load(), ix.Definition("Extra", ""), ix.Definition("Added", ""))
	}
	fresh := New(ws, Options{NoCache: true})
	t.Cleanup(func() { fresh.Close() })
	if err := fresh.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	want = defs(fresh)
	if got := defs(ix); got != want {
		t.Errorf("after changes: definitions\n%s\nwant\n%s", got, want)
	}
	// That build saved the entries it had not decoded (see packedDefs)
	// with the ones it parsed: the next start reads them all back.
	again := build()
	if got := defs(again); again.parsed.Load() != 0 || got != want {
		t.Errorf("restart after changes: parsed %d, definitions\n%s\nwant\n%s", again.parsed.Load(), got, want)
	}

	// A corrupt cache, or one of another version, means a full build.
	p, _ := ix.CachePath()
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"flipped byte": flip(raw, len(raw)/2),
		"truncated":    raw[:len(raw)/3],
		"empty":        nil,
		"old version":  withVersion(raw, cacheVersion+1),
	} {
		os.WriteFile(p, bad, 0o644)
		ix := build()
		if ix.parsed.Load() != 4 || ix.Status().Files != 4 {
			t.Errorf("%s: parsed %d, status %+v", name, ix.parsed.Load(), ix.Status())
		}
	}
}

// TestCacheConcurrentReads: queries of an index started from the cache
// decode its packed definitions at once from several goroutines (run with
// -race), and see what a full build sees.
func TestCacheConcurrentReads(t *testing.T) {
	_, root := newTestIndex(t, "testdata/ws/small.txtar")
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	var want []Symbol
	for i := range 2 {
		ix := New(ws, Options{CacheDir: cacheDir, Workers: 2})
		if err := ix.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			want = ix.Definitions()
			ix.Close()
			continue
		}
		defer ix.Close()
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, s := range want {
					out, ok := ix.Outline(s.Path)
					if !ok || !slices.ContainsFunc(out, func(o Symbol) bool { return o.Name == s.Name && o.Range == s.Range }) {
						t.Errorf("outline of %s: no %s at %v", s.Path, s.Name, s.Range)
					}
					if !slices.ContainsFunc(ix.Definition(s.Name, ""), func(o Symbol) bool { return o.Path == s.Path && o.NameRange == s.NameRange }) {
						t.Errorf("definition %s: not the one of %s at %v", s.Name, s.Path, s.NameRange)
					}
				}
			}()
		}
		wg.Wait()
		if got := ix.Definitions(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("definitions from the cache:\n%v\nwant\n%v", got, want)
		}
	}
	// The entries of a cache decoded by several goroutines at once, with
	// nothing else between them.
	ix := New(ws, Options{CacheDir: cacheDir})
	defer ix.Close()
	cd, err := ix.loadCache()
	if err != nil {
		t.Fatal(err)
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]int, 4)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for _, f := range cd.files {
				got[g] += len(f.defs())
			}
		}()
	}
	close(start)
	wg.Wait()
	for _, n := range got {
		if n != len(want) {
			t.Errorf("decoded %d definitions, want %d", n, len(want))
		}
	}
}

// TestPackedDefsMalformed: definitions packed in a cache that passed its
// checksum but do not decode keep their names, and nothing panics.
func TestPackedDefsMalformed(t *testing.T) {
	for _, rest := range []string{"", "\x01", "\xff\xff\xff", "\x09\x01\x00\x00\x00\x00\x00\x00\x00\x00"} {
		p := &packedDefs{names: []uint32{0, 1}, rest: rest, strs: []string{"a", "b"}}
		f := &fileEntry{packed: p}
		got := f.defs()
		if len(got) != 2 || got[0] != (def{Name: "a"}) || got[1] != (def{Name: "b"}) || f.ndefs() != 2 {
			t.Errorf("rest %q: %+v", rest, got)
		}
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0xff
	return c
}

func withVersion(b []byte, v byte) []byte {
	c := append([]byte(nil), b...)
	c[len(cacheMagic)] = v
	// Fix the checksum so that only the version is wrong.
	body := c[:len(c)-4]
	sum := checksum(body)
	c[len(c)-4], c[len(c)-3], c[len(c)-2], c[len(c)-1] = byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24)
	return c
}

// TestCacheUnwritable: a cache directory that cannot be written leaves a
// working index and a note in its status.
// TestCacheStaleTemps: saving the cache removes the temporary files a
// killed writer left (older than staleTemp), not one being written now.
func TestCacheStaleTemps(t *testing.T) {
	_, root := newTestIndex(t, "testdata/ws/small.txtar")
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	ix := New(ws, Options{CacheDir: t.TempDir(), Workers: 1})
	defer ix.Close()
	p, err := ix.CachePath()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, fresh := filepath.Join(dir, ".tmp-1"), filepath.Join(dir, ".tmp-2")
	for _, f := range []string{old, fresh} {
		if err := os.WriteFile(f, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	then := time.Now().Add(-staleTemp - time.Minute)
	os.Chtimes(old, then, then)
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no cache saved: %v", err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temporary file was removed: %v", err)
	}
}

func TestCacheUnwritable(t *testing.T) {
	_, root := newTestIndex(t, "testdata/ws/small.txtar")
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	ix := New(ws, Options{CacheDir: file, Workers: 1}) // a file, not a directory
	defer ix.Close()
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := ix.Status(); st.Files != 4 || st.Error == "" {
		t.Errorf("status %+v", st)
	}
}
