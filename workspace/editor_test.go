package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAtomicWriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o751); err != nil {
		t.Fatal(err)
	}
	if err := AtomicWrite(p, []byte("new"), 0); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o751 {
		t.Errorf("mode = %v, want 0751 kept", st.Mode())
	}
	if data, _ := os.ReadFile(p); string(data) != "new" {
		t.Errorf("content = %q", data)
	}
	// An explicit mode wins; parents are created.
	q := filepath.Join(dir, "a", "b", "c.txt")
	if err := AtomicWrite(q, []byte("c"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(q); st.Mode().Perm() != 0o600 {
		t.Errorf("new file mode = %v", st.Mode())
	}
	// Writing through a symlink replaces the target and keeps the link.
	symlink(t, "run.sh", filepath.Join(dir, "link"))
	if err := AtomicWrite(filepath.Join(dir, "link"), []byte("via link"), 0); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(filepath.Join(dir, "link")); st.Mode()&fs.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if data, _ := os.ReadFile(p); string(data) != "via link" {
		t.Errorf("target = %q", data)
	}
	assertNoTemp(t, dir)
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), TempPrefix) {
			t.Errorf("temp file left behind: %s", p)
		}
		return nil
	})
}

func TestCleanTemp(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, TempPrefix+"123"), "x")
	writeFile(t, filepath.Join(dir, "sub", TempPrefix+"456"), "x")
	writeFile(t, filepath.Join(dir, ".git", TempPrefix+"789"), "x")
	writeFile(t, filepath.Join(dir, "keep.txt"), "x")
	writeFile(t, filepath.Join(dir, ".gitignore"), "ignored/\n")
	writeFile(t, filepath.Join(dir, "ignored", ".hidden", TempPrefix+"abc"), "x")
	CleanTemp(dir)
	assertNoTemp(t, filepath.Join(dir, "sub"))
	assertNoTemp(t, filepath.Join(dir, "ignored"))
	for _, p := range []string{"keep.txt", ".git/" + TempPrefix + "789"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, TempPrefix+"123")); err == nil {
		t.Error("temp file at the root kept")
	}
}

func TestDiskEditorWrite(t *testing.T) {
	w := newWS(t, t.TempDir())
	ed := DiskEditor{WS: w}
	ctx := context.Background()
	var changed []string
	defer w.OnChange(func(p string) { changed = append(changed, p) })()

	abs := filepath.Join(w.Root(), "new", "f.txt")
	if _, err := ed.Write(ctx, WriteRequest{Abs: abs, Text: "x\n", Version: -1}); !errors.Is(err, ErrNotExist) {
		t.Errorf("write of a missing file without Create: %v", err)
	}
	res, err := ed.Write(ctx, WriteRequest{Abs: abs, Text: "a\nb\n", Create: true, Version: -1})
	if err != nil || !res.Saved || res.InBuffer {
		t.Fatalf("create: %+v, %v", res, err)
	}
	if len(changed) != 1 || changed[0] != abs {
		t.Errorf("OnChange got %q", changed)
	}

	// A CRLF UTF-16 file stays so after an edit of its normalised text.
	raw := Encode("one\ntwo\n", Format{Encoding: UTF16BE, BOM: true, CRLF: true})
	writeFile(t, filepath.Join(w.Root(), "u16.txt"), string(raw))
	f, err := w.ReadFile("u16.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ed.Write(ctx, WriteRequest{Abs: f.Abs, Text: strings.Replace(f.Text, "two", "deux", 1), Format: f.Format, Version: -1}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(f.Abs)
	if want := Encode("one\ndeux\n", f.Format); string(got) != string(want) {
		t.Errorf("after edit: % x, want % x", got, want)
	}

	for _, p := range []string{".git/config", "../x"} {
		if _, err := ed.Write(ctx, WriteRequest{Abs: p, Text: "x", Create: true}); err == nil {
			t.Errorf("Write(%s) accepted", p)
		}
	}
	if _, err := ed.Write(ctx, WriteRequest{Abs: filepath.Join(w.Root(), "new"), Text: "x", Create: true}); err == nil {
		t.Error("write over a directory accepted")
	}
	assertNoTemp(t, w.Root())
}

func TestDiskEditorRename(t *testing.T) {
	w := newWS(t, t.TempDir())
	root := w.Root()
	ed := DiskEditor{WS: w}
	ctx := context.Background()
	writeFile(t, filepath.Join(root, "a.txt"), "a")
	writeFile(t, filepath.Join(root, "b.txt"), "b")
	writeFile(t, filepath.Join(root, "dir", "x.txt"), "x")
	writeFile(t, filepath.Join(root, "other", "y.txt"), "y")

	if _, err := ed.Rename(ctx, "a.txt", "b.txt", false); err == nil || !strings.Contains(err.Error(), "overwrite") {
		t.Errorf("existing destination: %v", err)
	}
	// The note is for what the tool cannot see; move_file itself says that
	// it replaced a file.
	if note, err := ed.Rename(ctx, "a.txt", "b.txt", true); err != nil || note != "" {
		t.Errorf("overwrite: %q, %v", note, err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "b.txt")); string(data) != "a" {
		t.Errorf("b.txt = %q", data)
	}
	if _, err := ed.Rename(ctx, "b.txt", "deep/new/c.txt", false); err != nil {
		t.Errorf("move into new dirs: %v", err)
	}
	if _, err := ed.Rename(ctx, "dir", "moved/dir", false); err != nil {
		t.Errorf("move a directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "moved", "dir", "x.txt")); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		from, to  string
		overwrite bool
	}{
		{"moved", "moved/inside", false},       // into itself
		{"deep/new/c.txt", "other", true},      // a directory is never replaced
		{"moved", "deep/new/c.txt", true},      // a file is not replaced by a directory
		{"missing", "z", false},                // no source
		{"deep/new/c.txt", "../escape", false}, // outside
		{"deep/new/c.txt", ".git/c", false},    // into .git
		{".", "elsewhere", false},              // the root
	} {
		if _, err := ed.Rename(ctx, c.from, c.to, c.overwrite); err == nil {
			t.Errorf("Rename(%s, %s, %v) accepted", c.from, c.to, c.overwrite)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "deep", "new", "c.txt")); err != nil {
		t.Errorf("refused renames changed something: %v", err)
	}
}

func TestDiskEditorDelete(t *testing.T) {
	w := newWS(t, t.TempDir())
	root := w.Root()
	ed := DiskEditor{WS: w}
	ctx := context.Background()
	writeFile(t, filepath.Join(root, "f.txt"), "f")
	writeFile(t, filepath.Join(root, "dir", "x.txt"), "x")
	writeFile(t, filepath.Join(root, ".git", "HEAD"), "ref")

	if _, err := ed.Delete(ctx, filepath.Join(root, "dir"), false); err == nil || !strings.Contains(err.Error(), "recursive") {
		t.Errorf("directory without recursive: %v", err)
	}
	for _, p := range []string{root, ".", ".git", ".git/HEAD", "../x"} {
		if _, err := ed.Delete(ctx, p, true); err == nil {
			t.Errorf("Delete(%s) accepted", p)
		}
	}
	if _, err := ed.Delete(ctx, "missing", false); !errors.Is(err, ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := ed.Delete(ctx, "f.txt", false); err != nil {
		t.Error(err)
	}
	if _, err := ed.Delete(ctx, "dir", true); err != nil {
		t.Error(err)
	}
	for _, p := range []string{"f.txt", "dir"} {
		if _, err := os.Stat(filepath.Join(root, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there", p)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "HEAD")); err != nil {
		t.Error(".git touched")
	}
}

// TestDiskEditorRefusesEscapes sends every escape of confineWS to each
// DiskEditor operation and checks that nothing outside the root changed.
func TestDiskEditorRefusesEscapes(t *testing.T) {
	w, dir := confineWS(t)
	snapshot := func() map[string]string {
		m := map[string]string{}
		for _, d := range []string{"outside", "src-evil"} {
			filepath.WalkDir(filepath.Join(dir, d), func(p string, e fs.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					data, _ := os.ReadFile(p)
					m[p] = string(data)
				} else if err == nil {
					m[p] = "dir"
				}
				return nil
			})
		}
		return m
	}
	before := snapshot()
	ed := DiskEditor{WS: w}
	ctx := context.Background()
	escapes := []string{
		"../outside/secret.txt", filepath.Join(dir, "outside", "secret.txt"), "../src-evil/secret.txt",
		filepath.Join(dir, "src-evil", "new.txt"), "file-link", "dir-link/secret.txt", "dir-link/new.txt",
		"chain1/secret.txt", "chain1/new.txt", "dangling-out", "evil-link/secret.txt", "evil-link/new.txt",
	}
	for _, p := range escapes {
		if _, err := ed.Write(ctx, WriteRequest{Abs: p, Text: "pwned", Create: true, Version: -1}); err == nil {
			t.Errorf("Write(%s) accepted", p)
		}
		if _, err := ed.Delete(ctx, p, true); err == nil {
			t.Errorf("Delete(%s) accepted", p)
		}
		if _, err := ed.Rename(ctx, p, "stolen.txt", true); err == nil {
			t.Errorf("Rename(%s, inside) accepted", p)
		}
		if _, err := ed.Rename(ctx, "main.go", p, true); err == nil {
			t.Errorf("Rename(inside, %s) accepted", p)
		}
	}
	if err := AtomicWrite(filepath.Join(w.Root(), "ok.txt"), []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	after := snapshot()
	if len(after) != len(before) {
		t.Errorf("outside changed: %d entries before, %d after", len(before), len(after))
	}
	for p, v := range before {
		if after[p] != v {
			t.Errorf("outside changed: %s", p)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Root(), "main.go")); err != nil {
		t.Errorf("main.go moved by a refused rename: %v", err)
	}
}
