package workspace

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWalkBuffers: the walk lists the merged view. An open buffer with no
// file on disk is visited in its place among its directory's entries (in a
// directory that exists, or in directories only buffers make), under the
// same rules as a disk file (hidden, ignore files, deny list), marked
// Buffer, with its text's size and its last change as ModTime; a buffer of
// a file on disk is listed once, as the disk entry. DiskOnly leaves
// buffers out; a parallel walk lists the same; a closed buffer is gone.
func TestWalkBuffers(t *testing.T) {
	dir := t.TempDir()
	for rel, data := range map[string]string{
		"a.go": "a", "c.go": "c", "sub/x.go": "x", ".gitignore": "build/\n*.log\n",
	} {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	root := w.Root()
	before := time.Now()
	for _, rel := range []string{
		"b.go",              // beside disk files
		"a.go",              // on disk: listed once
		"sub/y.go",          // in a directory on disk
		"new/pkg/n.go",      // in directories only buffers make
		"new/m.go",          //
		"build/gen.go",      // ignored
		"debug.log",         // ignored
		".hidden/h.go",      // hidden
		".env",              // denied
		"secrets/.env.prod", // denied
	} {
		w.Open(filepath.Join(root, rel), 1, "text of "+rel)
	}
	ctx := context.Background()
	got := walkList(t, w, "", WalkOptions{})
	want := []string{"a.go", "b.go", "c.go", "new/", "new/m.go", "new/pkg/", "new/pkg/n.go", "sub/", "sub/x.go", "sub/y.go"}
	if !slices.Equal(got, want) {
		t.Errorf("merged walk:\n got %q\nwant %q", got, want)
	}
	par := walkList(t, w, "", WalkOptions{Parallel: 4, NoStat: true})
	slices.Sort(par)
	if !slices.Equal(par, want) {
		t.Errorf("parallel walk:\n got %q\nwant %q", par, want)
	}
	got = walkList(t, w, "", WalkOptions{Hidden: true, IncludeIgnored: true})
	for _, rel := range []string{".hidden/", ".hidden/h.go", "build/", "build/gen.go", "debug.log"} {
		if !slices.Contains(got, rel) {
			t.Errorf("hidden and ignored walk lacks %s: %q", rel, got)
		}
	}
	for _, rel := range []string{".env", "secrets/", "secrets/.env.prod"} {
		if slices.Contains(got, rel) {
			t.Errorf("the walk lists the denied buffer %s", rel)
		}
	}
	if got := walkList(t, w, "", WalkOptions{DiskOnly: true, NoStat: true}); !slices.Equal(got, []string{"a.go", "c.go", "sub/", "sub/x.go"}) {
		t.Errorf("DiskOnly: %q", got)
	}
	// What the entries say.
	seen := map[string]WalkEntry{}
	w.Walk(ctx, "", WalkOptions{NoStat: true}, func(e WalkEntry) error {
		seen[e.Rel] = e
		return nil
	})
	if e := seen["b.go"]; !e.Buffer || !e.Mode.IsRegular() || e.Size != int64(len("text of b.go")) || e.ModTime.Before(before) || e.Abs != filepath.Join(root, "b.go") {
		t.Errorf("b.go: %+v", e)
	}
	if e := seen["new/pkg"]; !e.Buffer || !e.IsDir {
		t.Errorf("new/pkg: %+v", e)
	}
	if e := seen["a.go"]; e.Buffer || seen["sub"].Buffer {
		t.Errorf("disk entries marked Buffer: %+v", e)
	}
	// A directory only buffers make can be walked itself; one with none
	// does not exist.
	if got := walkList(t, w, "new", WalkOptions{}); !slices.Equal(got, []string{"new/m.go", "new/pkg/", "new/pkg/n.go"}) {
		t.Errorf("walk of new/: %q", got)
	}
	if !w.HasBuffersUnder(filepath.Join(root, "new")) || w.HasBuffersUnder(filepath.Join(root, "nothing")) || w.HasBuffersUnder(filepath.Join(root, "secrets")) {
		t.Error("HasBuffersUnder")
	}
	if err := w.Walk(ctx, "nothing", WalkOptions{}, func(WalkEntry) error { return nil }); !errIsNotExist(err) {
		t.Errorf("walk of a missing directory: %v", err)
	}
	// SkipDir on a directory only buffers make skips its buffers.
	var skipped []string
	w.Walk(ctx, "", WalkOptions{}, func(e WalkEntry) error {
		skipped = append(skipped, e.Rel)
		if e.Rel == "new" {
			return fs.SkipDir
		}
		return nil
	})
	if slices.ContainsFunc(skipped, func(r string) bool { return strings.HasPrefix(r, "new/") }) {
		t.Errorf("SkipDir not honoured: %q", skipped)
	}
	// Saved to disk: listed once, from the disk. Closed: gone.
	os.WriteFile(filepath.Join(root, "b.go"), []byte("saved"), 0o644)
	w.Close(filepath.Join(root, "new/m.go"))
	w.Close(filepath.Join(root, "new/pkg/n.go"))
	got = walkList(t, w, "", WalkOptions{})
	if want := []string{"a.go", "b.go", "c.go", "sub/", "sub/x.go", "sub/y.go"}; !slices.Equal(got, want) {
		t.Errorf("after save and close:\n got %q\nwant %q", got, want)
	}
}

func errIsNotExist(err error) bool { return err != nil && os.IsNotExist(err) }
