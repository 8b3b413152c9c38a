package codeindex

import (
	"context"
	"os"
	"path/filepath"
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
	first := build()
	want := symLines(first.Definitions())
	if first.parsed.Load() != 4 {
		t.Fatalf("first build parsed %d files", first.parsed.Load())
	}

	// A restart loads everything from the cache.
	warm := build()
	if warm.parsed.Load() != 0 || warm.reused.Load() != 4 || symLines(warm.Definitions()) != want {
		t.Errorf("warm: parsed %d, reused %d", warm.parsed.Load(), warm.reused.Load())
	}

	// A changed file is parsed again; a touched but equal one is not.
	item := filepath.Join(root, "cart", "item.go")
	src, _ := os.ReadFile(item)
	os.WriteFile(item, append(src, "\nfunc Extra() {}\n"...), 0o644)
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "main.go"), later, later)
	os.Remove(filepath.Join(root, "tools", "report.py"))
	ix := build()
	if ix.parsed.Load() != 1 || len(ix.Definition("Extra", "")) != 1 || len(ix.Definition("add_header", "")) != 0 {
		t.Errorf("after changes: parsed %d, Extra %v", ix.parsed.Load(), ix.Definition("Extra", ""))
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
		if ix.parsed.Load() != 3 || ix.Status().Files != 3 {
			t.Errorf("%s: parsed %d, status %+v", name, ix.parsed.Load(), ix.Status())
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
