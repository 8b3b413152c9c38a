//go:build unix

package textsearch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/workspace"
)

// TestReadsStayBeneathRoot: a directory of the folder is swapped for a
// symlink to a directory outside after the walk listed its files (the
// window of a check-then-use race, made deterministic). Neither a search
// over walked files nor the resident table may read the outside files; nor
// may a file swapped for a symlink.
// (Both ways of opening beneath the folder, openat2 and openat one
// component at a time, are tested in workspace.)
func TestReadsStayBeneathRoot(t *testing.T) {
	swaps := []struct {
		name string
		swap func(t *testing.T, ws string)
	}{
		{"top dir", func(t *testing.T, ws string) { swapForLink(t, filepath.Join(ws, "a"), "../out") }},
		{"last dir", func(t *testing.T, ws string) { swapForLink(t, filepath.Join(ws, "a", "b"), "../../out/b") }},
		{"file", func(t *testing.T, ws string) {
			swapForLink(t, filepath.Join(ws, "a", "b", "f.txt"), "../../../out/b/f.txt")
		}},
	}
	{
		for _, sw := range swaps {
			t.Run(sw.name, func(t *testing.T) {
				base, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				ws := filepath.Join(base, "ws")
				for rel, text := range map[string]string{
					"ws/a/b/f.txt":  "INSIDE\n",
					"ws/top.txt":    "INSIDE top\n",
					"out/b/f.txt":   "OUTSIDE\n",
					"out/a/b/f.txt": "OUTSIDE\n",
				} {
					p := filepath.Join(base, rel)
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				// What the walk saw before the swap: it is not asked again.
				listed := []struct {
					rel string
					dir bool
				}{{"a", true}, {"a/b", true}, {"a/b/f.txt", false}, {"top.txt", false}}
				files := func(ctx context.Context, fn func(File)) error {
					for _, e := range listed {
						if !e.dir {
							fn(File{Abs: filepath.Join(ws, e.rel), Rel: e.rel})
						}
					}
					return nil
				}
				pat, err := Compile("SIDE", PatternOptions{})
				if err != nil {
					t.Fatal(err)
				}
				q := Query{Pattern: pat}
				w, err := workspace.New(ws)
				if err != nil {
					t.Fatal(err)
				}
				// The workspace's file list walks again after the swap (a
				// directory changed); its reads stay beneath the folder.
				table := NewTable(w, w.FileTable(false, false), 1<<20)
				noOverlay := func(string) ([]byte, bool) { return nil, false }
				want := "a/b/f.txt:1:INSIDE\ntop.txt:1:INSIDE top"
				for _, src := range []Source{files, table.Source(".", nil, noOverlay)} {
					if got, err := Search(context.Background(), q, src); err != nil || got != want {
						t.Fatalf("before the swap: %q, %v; want %q", got, err, want)
					}
				}
				sw.swap(t, ws)
				for name, src := range map[string]Source{"walked files": files, "table": table.Source(".", nil, noOverlay), "table under a": table.Source("a", nil, noOverlay)} {
					got, err := Search(context.Background(), q, src)
					if err != nil {
						t.Fatal(err)
					}
					if strings.Contains(got, "OUTSIDE") {
						t.Errorf("%s: read outside the folder: %q", name, got)
					}
				}
			})
		}
	}
}

// swapForLink moves p aside and puts a symlink to target in its place.
func swapForLink(t *testing.T, p, target string) {
	t.Helper()
	if err := os.Rename(p, p+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func TestRootOf(t *testing.T) {
	for _, c := range []struct {
		abs, rel, root string
		ok             bool
	}{
		{"/ws/a/b.txt", "a/b.txt", "/ws", true},
		{"/b.txt", "b.txt", "/", true},
		{"/ws/a/b.txt", "b.txt", "/ws/a", true},
		{"/ws/ab.txt", "b.txt", "", false},
		{"/ws/a/b.txt", "/a/b.txt", "", false},
		{"/ws/a/b.txt", "", "", false},
		{"b.txt", "b.txt", "", false},
	} {
		root, ok := rootOf(c.abs, c.rel)
		if root != c.root || ok != c.ok {
			t.Errorf("rootOf(%q, %q) = %q, %v; want %q, %v", c.abs, c.rel, root, ok, c.root, c.ok)
		}
	}
}
