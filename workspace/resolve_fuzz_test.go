package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve: whatever path a tool is given, Resolve and ResolveWrite
// either refuse it or return a path inside the root whose symlinks also
// resolve inside the root, with rel naming the same place; ResolveWrite
// never returns anything in .git or on the deny list.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"a.txt", "", ".", "..", "../x", "sub/../../x", "/etc/passwd", "in", "in/x", "out", "out/x", "chain", "loop",
		"dangling", ".git/config", ".env", "sub/.env", "x.pem", "sub//./a", "/proc/self/root/etc", "~", "a\x00b",
		"abs", "abs/..", "in/../out/x", strings.Repeat("../", 50),
	} {
		f.Add(s)
	}
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	root := filepath.Join(base, "root")
	for _, d := range []string{"root/sub/deep", "root/.git", "outside/dir"} {
		os.MkdirAll(filepath.Join(base, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644)
	for name, target := range map[string]string{
		"in": "sub", "out": "../outside/dir", "chain": "in/deep", "loop": "loop", "dangling": "../outside/new",
		"abs": filepath.Join(base, "outside"), "sub/up": "..", "sub/upout": "../..", "git": ".git",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			f.Skip(err)
		}
	}
	w, err := New(root)
	if err != nil {
		f.Fatal(err)
	}
	check := func(t *testing.T, what, p, abs, rel string) {
		t.Helper()
		if !w.Contains(abs) {
			t.Fatalf("%s(%q) = %q, outside the root", what, p, abs)
		}
		real, err := resolveLinks(abs)
		if err == nil && !within(w.Root(), real) {
			t.Fatalf("%s(%q) = %q, which leads to %q outside the root", what, p, abs, real)
		}
		if want := w.Rel(abs); rel != want {
			t.Fatalf("%s(%q): rel %q, want %q", what, p, rel, want)
		}
	}
	f.Fuzz(func(t *testing.T, p string) {
		if abs, rel, err := w.Resolve(p); err == nil {
			check(t, "Resolve", p, abs, rel)
			if w.Denied(rel) {
				t.Fatalf("Resolve(%q) returned a denied path %q", p, rel)
			}
		}
		if abs, rel, err := w.ResolveWrite(p); err == nil {
			check(t, "ResolveWrite", p, abs, rel)
			if inGitDir(rel) {
				t.Fatalf("ResolveWrite(%q) = %q, inside .git", p, rel)
			}
			if real, err := resolveLinks(abs); err == nil && inGitDir(w.Rel(real)) {
				t.Fatalf("ResolveWrite(%q) = %q, leading into .git", p, rel)
			}
			if w.Denied(rel) {
				t.Fatalf("ResolveWrite(%q) returned a denied path %q", p, rel)
			}
		}
	})
}
