package workspace

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestFileTable: the workspace's file table lists what a walk of the whole
// folder visits (buffers with no file on disk included, denied files not),
// sorted; it keeps its list while nothing changed and walks again when a
// directory or ignore file changed on disk, a buffer with no file on disk
// was opened or closed, or the deny list changed — not for a change inside
// a file, which its readers check.
func TestFileTable(t *testing.T) {
	dir := t.TempDir()
	for rel, data := range map[string]string{
		"a.go": "a", "sub/b.go": "b", "sub/c.txt": "c", "build/gen.go": "g", ".gitignore": "build/\n", ".env": "SECRET=1",
	} {
		writeFile(t, filepath.Join(dir, rel), data)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	age := func() { // the same time every time: only what changed differs
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				os.Chtimes(p, old, old)
			}
			return nil
		})
	}
	age()
	// touch gives the file or directory p a time of its own, an hour old: a
	// change as the table sees it, without the racy window.
	step := 0
	touch := func(p string) {
		step++
		tm := old.Add(time.Duration(step) * time.Minute)
		os.Chtimes(p, tm, tm)
	}
	w := newWS(t, dir)
	ctx := context.Background()
	ft := w.FileTable(false, false)
	if w.FileTable(false, false) != ft || w.FileTable(true, false) == ft {
		t.Fatal("one table per option set")
	}
	rels := func(l *FileList) []string {
		var out []string
		for _, f := range l.Files {
			out = append(out, f.Rel)
		}
		return out
	}
	list := func() *FileList {
		t.Helper()
		l, err := ft.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l1 := list()
	if got := rels(l1); !slices.Equal(got, []string{"a.go", "sub/b.go", "sub/c.txt"}) {
		t.Errorf("list: %q", got)
	}
	if l1.Skipped.Ignored != 1 || l1.Skipped.Hidden != 0 { // .env is denied, not hidden
		t.Errorf("skipped: %+v", l1.Skipped)
	}
	if got := l1.Under("sub"); len(got) != 2 || got[0].Rel != "sub/b.go" {
		t.Errorf("Under(sub): %+v", got)
	}
	if i, ok := l1.Find("sub/c.txt"); !ok || i != 2 {
		t.Errorf("Find: %d %v", i, ok)
	}
	if l2 := list(); l2 != l1 {
		t.Error("walked again with nothing changed")
	}
	writeFile(t, filepath.Join(dir, "a.go"), "changed inside")
	touch(filepath.Join(dir, "a.go"))
	if l2 := list(); l2 != l1 {
		t.Error("walked again for a change inside a file")
	}
	writeFile(t, filepath.Join(dir, "sub", "d.go"), "d")
	touch(filepath.Join(dir, "sub"))
	l3 := list()
	if got := rels(l3); l3 == l1 || !slices.Contains(got, "sub/d.go") {
		t.Errorf("after a new file: %q", got)
	}
	w.Open(filepath.Join(w.Root(), "sub", "new.go"), 1, "package sub")
	l4 := list()
	if i, ok := l4.Find("sub/new.go"); l4 == l3 || !ok || !l4.Files[i].Buffer {
		t.Errorf("after opening a buffer with no file on disk: %q", rels(l4))
	}
	w.Change(filepath.Join(w.Root(), "sub", "new.go"), 2, "package sub // more")
	if l5 := list(); l5 != l4 {
		t.Error("walked again for a buffer change")
	}
	w.Close(filepath.Join(w.Root(), "sub", "new.go"))
	l6 := list()
	if _, ok := l6.Find("sub/new.go"); l6 == l4 || ok {
		t.Errorf("after closing it: %q", rels(l6))
	}
	w.SetDeny([]string{"sub/"})
	if got := rels(list()); !slices.Equal(got, []string{"a.go"}) {
		t.Errorf("after denying sub/: %q", got)
	}
	w.SetDeny(nil)
	writeFile(t, filepath.Join(dir, ".gitignore"), "build/\n*.txt\n")
	touch(filepath.Join(dir, ".gitignore"))
	if got := rels(list()); slices.Contains(got, "sub/c.txt") || !slices.Contains(got, "sub/b.go") {
		t.Errorf("after an ignore file changed: %q", got)
	}
}
