package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// extract writes the files of testdata/<name>.txtar under a new temporary
// directory and returns it (symlinks resolved, so paths compare equal to
// what the workspace reports).
func extract(t *testing.T, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newWS(t *testing.T, root string) *Workspace {
	t.Helper()
	w, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func TestNew(t *testing.T) {
	dir := extract(t, "confine")
	if _, err := New(filepath.Join(dir, "src", "main.go")); err == nil {
		t.Error("New on a file: want an error")
	}
	if _, err := New(filepath.Join(dir, "missing")); err == nil {
		t.Error("New on a missing directory: want an error")
	}
	symlink(t, filepath.Join(dir, "src"), filepath.Join(dir, "alias"))
	w := newWS(t, filepath.Join(dir, "alias"))
	if got, want := w.Root(), filepath.Join(dir, "src"); got != want {
		t.Errorf("Root() = %q, want the resolved %q", got, want)
	}
	// An absolute path through the alias names the same folder.
	abs, rel, err := w.Resolve(filepath.Join(dir, "alias", "main.go"))
	if err != nil || rel != "main.go" || abs != filepath.Join(dir, "src", "main.go") {
		t.Errorf("Resolve through alias = %q, %q, %v", abs, rel, err)
	}
}

// confineWS is the confine.txtar workspace rooted at src/, with symlinks
// that lead out of it (and some that stay in).
func confineWS(t *testing.T) (w *Workspace, dir string) {
	dir = extract(t, "confine")
	src := filepath.Join(dir, "src")
	symlink(t, filepath.Join(dir, "outside", "secret.txt"), filepath.Join(src, "file-link"))
	symlink(t, filepath.Join(dir, "outside"), filepath.Join(src, "dir-link"))
	symlink(t, "chain2", filepath.Join(src, "chain1"))
	symlink(t, "../outside", filepath.Join(src, "chain2"))
	symlink(t, filepath.Join(dir, "outside", "not-yet"), filepath.Join(src, "dangling-out"))
	symlink(t, "missing-inside", filepath.Join(src, "dangling-in"))
	symlink(t, filepath.Join(dir, "src-evil"), filepath.Join(src, "evil-link"))
	symlink(t, "dir", filepath.Join(src, "inner-link"))
	symlink(t, "../src/dir/inner.txt", filepath.Join(src, "inner-file-link"))
	symlink(t, ".git", filepath.Join(src, "git-link"))
	return newWS(t, src), dir
}

func TestResolveRefusesEscapes(t *testing.T) {
	w, dir := confineWS(t)
	escapes := []string{
		"../outside/secret.txt",
		"dir/../../outside/secret.txt",
		"..",
		filepath.Join(dir, "outside", "secret.txt"),
		"/etc/passwd",
		"../src-evil/secret.txt", // shares the root's prefix
		filepath.Join(dir, "src-evil", "secret.txt"),
		filepath.Join(dir, "src-evil"),
		"file-link",                 // symlinked file outside
		"dir-link/secret.txt",       // through a symlinked directory
		"dir-link",                  // the link itself
		"dir-link/new/file.txt",     // not existing yet, under an escaping link
		"chain1/secret.txt",         // link -> link -> outside
		"dangling-out",              // dangling, target outside
		"evil-link/secret.txt",      // the prefix trick through a link
		"dir/../file-link",          // dots then a link
		"inner-link/../../outside/", // lexically outside after a link
	}
	for _, p := range escapes {
		abs, _, err := w.Resolve(p)
		if err == nil {
			t.Errorf("Resolve(%q) = %q, want a refusal", p, abs)
			continue
		}
		if !errors.Is(err, ErrOutside) {
			t.Errorf("Resolve(%q) error %v does not wrap ErrOutside", p, err)
		}
		if !strings.Contains(err.Error(), w.Root()) {
			t.Errorf("Resolve(%q) error %q does not name the root", p, err)
		}
		if _, _, err := w.ResolveWrite(p); err == nil {
			t.Errorf("ResolveWrite(%q) accepted an escape", p)
		}
		if _, err := w.ReadFile(p); err == nil {
			t.Errorf("ReadFile(%q) read outside the root", p)
		}
	}
}

func TestResolveAccepts(t *testing.T) {
	w, _ := confineWS(t)
	root := w.Root()
	cases := []struct{ in, rel string }{
		{"", "."},
		{".", "."},
		{root, "."},
		{"main.go", "main.go"},
		{"./dir/../main.go", "main.go"},
		{filepath.Join(root, "dir", "inner.txt"), "dir/inner.txt"},
		{"new/dir/file.txt", "new/dir/file.txt"},
		{"inner-link/inner.txt", "inner-link/inner.txt"}, // a link that stays inside
		{"inner-file-link", "inner-file-link"},
		{"dangling-in", "dangling-in"},
	}
	for _, c := range cases {
		abs, rel, err := w.Resolve(c.in)
		if err != nil {
			t.Errorf("Resolve(%q): %v", c.in, err)
			continue
		}
		if rel != c.rel || abs != filepath.Join(root, filepath.FromSlash(c.rel)) {
			t.Errorf("Resolve(%q) = %q, %q; want rel %q", c.in, abs, rel, c.rel)
		}
	}
}

func TestResolveWriteRefusesGit(t *testing.T) {
	w, _ := confineWS(t)
	if err := os.MkdirAll(filepath.Join(w.Root(), ".git", "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".git", ".git/config", "dir/../.git/HEAD", "sub/.git/x", "git-link/config"} {
		if _, _, err := w.ResolveWrite(p); err == nil || !strings.Contains(err.Error(), ".git") {
			t.Errorf("ResolveWrite(%q) = %v, want a .git refusal", p, err)
		}
	}
	if _, _, err := w.ResolveWrite(".gitignore"); err != nil {
		t.Errorf("ResolveWrite(.gitignore): %v", err)
	}
	if _, _, err := w.Resolve(".git/HEAD"); err != nil {
		t.Errorf("reading under .git is allowed: %v", err)
	}
}

func TestContainsAndRel(t *testing.T) {
	w := newWS(t, t.TempDir())
	root := w.Root()
	if !w.Contains(root) || !w.Contains(filepath.Join(root, "a", "b")) {
		t.Error("Contains: root and children must be inside")
	}
	if w.Contains(root+"-evil") || w.Contains(filepath.Dir(root)) || w.Contains(root+"/../x") {
		t.Error("Contains accepted a path outside")
	}
	if got := w.Rel(filepath.Join(root, "a", "b.go")); got != "a/b.go" {
		t.Errorf("Rel = %q", got)
	}
	if got := w.Rel(root); got != "." {
		t.Errorf("Rel(root) = %q", got)
	}
}

func TestResolveLinkLoop(t *testing.T) {
	w := newWS(t, t.TempDir())
	symlink(t, "b", filepath.Join(w.Root(), "a"))
	symlink(t, "a", filepath.Join(w.Root(), "b"))
	if _, _, err := w.Resolve("a/x"); err == nil {
		t.Error("a symlink loop must be an error")
	}
}
