package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// denyTree is a workspace holding secrets under the default names, files
// that look alike but are not secrets, and links that lead to the secrets.
func denyTree(t *testing.T) *Workspace {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		".env", ".env.local", "sub/.env", "tls/server.pem", "tls/server.key", "home/.ssh/id_rsa",
		"home/.ssh/id_rsa.pub", "home/.ssh/id_ed25519", ".git/config", "sub/.git/config", "UPPER/.ENV",
		"Server.PEM",
		// not secrets:
		"env", "envrc", "main.go", "keys.go", "tls/README", ".git/HEAD", "config", "environment.env.go",
	} {
		writeFile(t, filepath.Join(root, f), "SECRET-OR-NOT "+f+"\n")
	}
	w := newWS(t, root)
	symlink(t, ".env", filepath.Join(root, "innocent.txt"))
	symlink(t, ".git", filepath.Join(root, "gitdir"))
	symlink(t, "tls", filepath.Join(root, "certs"))
	return w
}

var deniedNames = []string{
	".env", ".env.local", "sub/.env", "tls/server.pem", "tls/server.key", "home/.ssh/id_rsa",
	"home/.ssh/id_rsa.pub", "home/.ssh/id_ed25519", ".git/config", "sub/.git/config", "UPPER/.ENV",
	"Server.PEM", ".env.missing", "nope/x.pem",
	// spelled otherwise
	"./.env", "sub/../.env", ".env/", "sub//.env", "tls/./server.key",
	// through links inside the root
	"innocent.txt", "gitdir/config", "certs/server.pem",
}

var allowedNames = []string{"env", "envrc", "main.go", "keys.go", "tls/README", ".git/HEAD", "config", "environment.env.go", "tls", "certs"}

func TestDenyResolve(t *testing.T) {
	w := denyTree(t)
	for _, p := range deniedNames {
		_, _, err := w.Resolve(p)
		if err == nil {
			t.Errorf("Resolve(%q) accepted a denied path", p)
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrNotExist) {
			t.Errorf("Resolve(%q) = %v, want an error that matches ErrNotExist", p, err)
		}
		if strings.Contains(strings.ToLower(err.Error()), "deny") || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("Resolve(%q) = %v: the answer must read like a missing file", p, err)
		}
		if _, err := w.ReadFile(p); !errors.Is(err, ErrNotExist) {
			t.Errorf("ReadFile(%q) = %v, want ErrNotExist", p, err)
		}
		if _, _, err := w.ResolveWrite(p); err == nil {
			t.Errorf("ResolveWrite(%q) accepted a denied path", p)
		}
	}
	for _, p := range allowedNames {
		if _, _, err := w.Resolve(p); err != nil {
			t.Errorf("Resolve(%q): %v", p, err)
		}
	}
	// An absolute path, and one through /proc/self/root, are checked too.
	for _, p := range []string{filepath.Join(w.Root(), ".env"), "/proc/self/root" + w.Root() + "/.env"} {
		if _, _, err := w.Resolve(p); !errors.Is(err, ErrNotExist) {
			t.Errorf("Resolve(%q) = %v, want ErrNotExist", p, err)
		}
	}
}

// The answer for a denied name does not depend on whether the file exists.
func TestDenyNoExistenceOracle(t *testing.T) {
	w := denyTree(t)
	_, _, e1 := w.Resolve("sub/.env")
	if err := os.Remove(filepath.Join(w.Root(), "sub", ".env")); err != nil {
		t.Fatal(err)
	}
	_, _, e2 := w.Resolve("sub/.env")
	if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
		t.Errorf("existing: %v\nmissing: %v", e1, e2)
	}
	_, _, e3 := w.ResolveWrite("sub/.env")
	_, _, e4 := w.ResolveWrite(".env")
	if e3 == nil || e4 == nil || strings.ReplaceAll(e3.Error(), "sub/", "") != e4.Error() {
		t.Errorf("write refusals differ: %v / %v", e3, e4)
	}
}

func TestDenyWalk(t *testing.T) {
	w := denyTree(t)
	for _, par := range []int{0, 4} {
		var got []string
		var mu sync.Mutex // a parallel walk calls fn from its workers
		opts := WalkOptions{Hidden: true, IncludeIgnored: true, Parallel: par}
		err := w.Walk(context.Background(), "", opts, func(e WalkEntry) error {
			mu.Lock()
			got = append(got, e.Rel)
			mu.Unlock()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		for _, g := range got {
			if slices.Contains(deniedNames, g) && g != "innocent.txt" {
				t.Errorf("parallel=%d: walk visited denied %s", par, g)
			}
		}
		for _, want := range []string{"env", "envrc", "main.go", "keys.go", "tls/README", "config", "innocent.txt", "home/.ssh"} {
			if !slices.Contains(got, want) {
				t.Errorf("parallel=%d: walk missed %s (got %v)", par, want, got)
			}
		}
	}
	var all []string
	w.Walk(context.Background(), "", WalkOptions{Hidden: true, IncludeIgnored: true, IncludeDenied: true}, func(e WalkEntry) error {
		all = append(all, e.Rel)
		return nil
	})
	if !slices.Contains(all, ".env") || !slices.Contains(all, "tls/server.key") {
		t.Errorf("IncludeDenied walk: %v", all)
	}
	// A denied directory cannot be walked by name.
	w.SetDeny([]string{"tls/"})
	if err := w.Walk(context.Background(), "tls", WalkOptions{}, func(WalkEntry) error { return nil }); !errors.Is(err, ErrNotExist) {
		t.Errorf("walk of a denied dir: %v", err)
	}
}

func TestDenyReadRawAndBuffers(t *testing.T) {
	w := denyTree(t)
	env := filepath.Join(w.Root(), ".env")
	if _, _, err := w.ReadRaw(env); !errors.Is(err, ErrNotExist) {
		t.Errorf("ReadRaw(.env) = %v", err)
	}
	if _, err := w.Read(env, 0); !errors.Is(err, ErrNotExist) {
		t.Errorf("Read(.env) = %v", err)
	}
	w.Open(env, 1, "BUFFERED SECRET")
	w.Open(filepath.Join(w.Root(), "main.go"), 1, "package main")
	for _, b := range w.Buffers() {
		if b.Path == env {
			t.Error("Buffers lists a denied buffer")
		}
	}
	if len(w.Buffers()) != 1 {
		t.Errorf("Buffers = %v", w.Buffers())
	}
	if _, err := w.ReadFile(".env"); !errors.Is(err, ErrNotExist) {
		t.Errorf("ReadFile of a denied open buffer = %v", err)
	}
	if _, ok := w.Buffer(env); ok {
		t.Error("Buffer returns a denied buffer")
	}
}

func TestDenyConfigured(t *testing.T) {
	w := denyTree(t)
	v := w.DenyVersion()
	w.SetDeny([]string{"!.env.local", "keys.go", "tls/", "", "/config"})
	if w.DenyVersion() == v {
		t.Error("DenyVersion did not change with SetDeny")
	}
	if got := w.DenyPatterns(); len(got) != 5 {
		t.Errorf("DenyPatterns = %v", got)
	}
	for p, want := range map[string]bool{
		".env": true, ".env.local": false, "keys.go": true, "sub/keys.go": true,
		"tls/README": true, "certs/README": true, "tls": true, "config": true, "sub/config": false,
		"main.go": false,
	} {
		if got := w.Denied(p) || func() bool { _, _, err := w.Resolve(p); return err != nil }(); got != want {
			t.Errorf("%s denied = %v, want %v", p, got, want)
		}
	}
	// A trailing slash matches directories only.
	writeFile(t, filepath.Join(w.Root(), "other", "tls"), "a file named tls")
	if w.Denied("other/tls") {
		t.Error("tls/ denies a file named tls")
	}
	w.SetDeny([]string{"!*"})
	if _, _, err := w.Resolve(".env"); err != nil {
		t.Errorf(`["!*"] turns the defaults off: %v`, err)
	}
	w.SetDeny(nil)
	if !w.Denied(".env") || w.Denied("keys.go") {
		t.Error("SetDeny(nil) restores the defaults only")
	}
}

func TestSessionSetSettingsDeny(t *testing.T) {
	w := denyTree(t)
	s, err := NewSession(w, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetSettings(json.RawMessage(`{"secrets":{"deny":["*.go"]}}`)); err != nil {
		t.Fatal(err)
	}
	if !w.Denied("main.go") || !w.Denied(".env") {
		t.Error("secrets.deny not applied")
	}
	if err := s.SetSettings(json.RawMessage(`{"secrets.deny":["!.env"]}`)); err != nil {
		t.Fatal(err)
	}
	if w.Denied("main.go") || w.Denied(".env") {
		t.Error("a literal dotted key replaces the previous list")
	}
	if err := s.SetSettings(json.RawMessage(`{"secrets":{"deny":"*.go"}}`)); err == nil || !strings.Contains(err.Error(), "secrets.deny") {
		t.Errorf("bad value: %v", err)
	}
	if w.Denied(".env") {
		t.Error("a bad value must leave the list as it was")
	}
	var v string
	if !s.Setting("secrets.deny", &v) || v != "*.go" {
		t.Errorf("Setting reads what SetSettings set: %q", v)
	}
	if err := s.SetSettings(nil); err != nil || !w.Denied(".env") {
		t.Errorf("nil settings: %v, defaults back: %v", err, w.Denied(".env"))
	}
}

// SetSettings and Setting run concurrently with tools (go test -race).
func TestSessionSettingsConcurrent(t *testing.T) {
	w := newWS(t, t.TempDir())
	s, err := NewSession(w, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			var v []string
			s.Setting("secrets.deny", &v)
			w.Denied(".env")
		}
	}()
	for i := range 200 {
		s.SetSettings(json.RawMessage(`{"secrets":{"deny":["a` + strings.Repeat("x", i%5) + `"]}}`))
	}
	<-done
}

func BenchmarkWalkDeny(b *testing.B) {
	root := b.TempDir()
	for i := range 2000 {
		p := filepath.Join(root, "d"+string(rune('a'+i%20)), "f"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+".go")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	w, _ := New(root)
	for _, inc := range []bool{false, true} {
		name := "deny"
		if inc {
			name = "nodeny"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				w.Walk(context.Background(), "", WalkOptions{NoStat: true, IncludeDenied: inc}, func(WalkEntry) error { return nil })
			}
		})
	}
}

// denyAgrees checks that d's name condition (denyNames) never turns away
// a path its rules deny.
func denyAgrees(t *testing.T, d *denyList, rel string) {
	t.Helper()
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	rules := *d
	rules.names = nil
	for _, isDir := range []bool{false, true} {
		if got, want := d.match(rel, name, isDir), rules.match(rel, name, isDir); got != want {
			t.Errorf("patterns %q: %q (dir %v): denied %v, the rules alone say %v", d.patterns, rel, isDir, got, want)
		}
	}
}

func TestDenyNames(t *testing.T) {
	lists := [][]string{
		nil, // the defaults
		{"*.secret", "!public.secret", "creds/", "/top/**/deep*", "a?c", "x[yz]w", "[ab]*.txt", "*.K"},
		{"Secret*", "**/CONF/*.ini", "*?"},
		{"*"},         // any name: no name condition
		{"foo/**"},    // likewise
		{"*[ab]"},     // a class last
		{`esc\*aped`}, // an escape
		{"!*"},        // the defaults off
		{"**x", "q**", "*.*.bak"},
		{"x[a/b]y", "k[/]z"}, // a '/' inside a class: "xay" is denied
	}
	names := []string{
		"main.go", "init.lua", "config.lua", "config", "credentials", ".env", ".ENV", ".env.local", ".envrc",
		"id_rsa", "ID_RSA.pub", "server.pem", "Server.PEM", "x.key", "keys.go", "a.p12", "b.PFX", "c.jks",
		"d.keystore", "x", "X", "", "abc", "aXc", "xyw", "xzw", "a.txt", "b.TXT", "c.txt", "f.secret",
		"public.secret", "creds", "deep1", "secretive", "SECRETS.md", "k.ini", "q", "qq", "xx", "a.b.bak",
		"escaped", `esc*aped`, "xay", "xby", "kz", "\u212aey", "x.\u212a", "a\u212a", "é.env", "ae\u0301", ".\u212aey",
	}
	dirs := []string{"", "top/", "top/mid/", "home/.ssh/", "x/.aws/", "r/.git/", ".git/modules/m/", "creds/", "a/CONF/"}
	for _, pats := range lists {
		d := compileDeny(pats)
		for _, dir := range dirs {
			for _, n := range names {
				if n == "" && dir != "" {
					continue
				}
				denyAgrees(t, d, dir+n)
			}
		}
	}
	if d := compileDeny(nil); d.names == nil || d.names.may("main.go") || d.names.may("init.lua") || !d.names.may("server.PEM") {
		t.Errorf("the default list's name condition lets main.go or init.lua through, or not server.PEM: %+v", d.names)
	}
}

func FuzzDenyNames(f *testing.F) {
	f.Add("*.pem", "a/b.pem")
	f.Add("**/.ssh/id_*", "home/.ssh/id_rsa")
	f.Add("[ab]?c*d", "x/bXcYd")
	f.Add(`a\*`, "a*")
	f.Fuzz(func(t *testing.T, pattern, rel string) {
		if rel == "" || strings.HasPrefix(rel, "/") || strings.HasSuffix(rel, "/") {
			return
		}
		denyAgrees(t, compileDeny(strings.Split(pattern, "\n")), rel)
	})
}
