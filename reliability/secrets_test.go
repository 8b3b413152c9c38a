package reliability

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

const secret = "SECRET-9c1e"

func secretTree(t *testing.T) string {
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{
		".env":                 "TOKEN=" + secret + "\n",
		".env.local":           "TOKEN=" + secret + "\n",
		"config/.env.prod":     "TOKEN=" + secret + "\n",
		"tls/server.pem":       secret + "\n",
		"tls/server.key":       secret + "\n",
		"home/.ssh/id_rsa":     secret + "\n",
		".git/config":          "[remote \"origin\"]\n\turl = https://user:" + secret + "@example.com/x.git\n",
		"vendor/x/.git/config": "url = https://" + secret + "@example.com\n",
		"a.secret":             "CONFIGURED (denied only by configuration)\n",
		".env.example":         "TOKEN=changeme\n",
		"main.go":              "package main // not a secret\n",
		"notes.txt":            "nothing here\n",
	})
	if err := os.Symlink(".env", filepath.Join(root, "env-link.txt")); err != nil {
		t.Skip(err)
	}
	return root
}

// noSecret fails when a result shows the secret.
func noSecret(t *testing.T, what string, r lsptest.Result) {
	t.Helper()
	if strings.Contains(r.Content, secret) {
		t.Errorf("%s showed the secret: %s", what, short(r.Content, 300))
	}
}

// TestSecretsDefaultDeny: read_file, grep, glob and ls answer for the
// default deny list as if the files did not exist, through the server, for
// names, symlinks and open buffers alike; write tools refuse them.
func TestSecretsDefaultDeny(t *testing.T) {
	root := secretTree(t)
	s := startServer(t, root, nil)
	// The editor has .env open with unsaved text.
	s.Open(filepath.Join(root, ".env"), "TOKEN="+secret+" (unsaved)\n")
	s.Open(filepath.Join(root, "unsaved.pem"), secret+" in a new buffer\n")
	s.Sync()

	missing := s.call("read_file", map[string]any{"path": "no/such/.env"})
	for _, p := range []string{".env", ".env.local", "config/.env.prod", "tls/server.pem", "tls/server.key", "home/.ssh/id_rsa",
		".git/config", "vendor/x/.git/config", "env-link.txt", "unsaved.pem", "./.env", "tls/../.env", filepath.Join(root, ".env"),
		".ENV", "no/such/.env"} {
		r := s.call("read_file", map[string]any{"path": p})
		noSecret(t, "read_file "+p, r)
		if !r.IsError {
			t.Errorf("read_file %s: not refused: %s", p, short(r.Content, 100))
		}
		// The answer is a missing file's, whatever the name.
		if want := strings.Replace(missing.Content, "no/such/.env", s.relName(p), 1); r.Content != want && !strings.HasPrefix(p, "/") {
			t.Errorf("read_file %s = %q, want what a missing file gets: %q", p, r.Content, want)
		}
	}
	for _, args := range []map[string]any{
		{"pattern": "SECRET.9c1e", "hidden": true, "include_ignored": true},
		{"pattern": "SECRET.9c1e", "hidden": true, "include_ignored": true, "output_mode": "files_with_matches"},
		{"pattern": "SECRET.9c1e", "path": ".env"},
		{"pattern": "SECRET.9c1e", "path": "tls"},
		{"pattern": "SECRET.9c1e", "path": "env-link.txt"},
		{"pattern": "TOKEN", "hidden": true, "glob": ".env*"},
	} {
		r := s.call("grep", args)
		noSecret(t, "grep", r)
		if strings.Contains(r.Content, ".env:") || strings.Contains(r.Content, ".pem") || strings.Contains(r.Content, "id_rsa") {
			t.Errorf("grep %v names a denied file: %s", args, short(r.Content, 300))
		}
	}
	for _, pat := range []string{"**/*", "**/.env*", "**/*.pem", "**/*.key", "**/id_rsa*", ".git/*", "**/.git/config", ".env"} {
		r := s.call("glob", map[string]any{"pattern": pat, "include_ignored": true})
		for _, line := range strings.Split(r.Content, "\n") {
			if !strings.HasPrefix(line, "No files match") && denied(line) {
				t.Errorf("glob %s lists %s", pat, line)
			}
		}
	}
	r := s.call("ls", map[string]any{"depth": 5, "include_ignored": true})
	for _, line := range strings.Split(r.Content, "\n") {
		if name, _, _ := strings.Cut(strings.TrimSpace(line), " "); denied(name) {
			t.Errorf("ls lists %s: %s", name, short(r.Content, 400))
		}
	}
	if !strings.Contains(r.Content, "main.go") {
		t.Errorf("ls: %s", r.Content)
	}
	// Nothing may be written, moved or deleted either.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": ".env", "content": "x"}},
		{"write_file", map[string]any{"path": "new.key", "content": "x"}},
		{"edit_file", map[string]any{"path": ".env", "old_string": "TOKEN", "new_string": "X"}},
		{"multi_edit", map[string]any{"path": "tls/server.pem", "edits": []any{map[string]any{"old_string": "S", "new_string": "X"}}}},
		{"move_file", map[string]any{"source": ".env", "destination": "leak.txt"}},
		{"move_file", map[string]any{"source": "env-link.txt", "destination": "leak.txt"}},
		{"move_file", map[string]any{"source": "notes.txt", "destination": ".env", "overwrite": true}},
		{"delete_file", map[string]any{"path": ".env"}},
	} {
		r := s.call(c.tool, c.args)
		noSecret(t, c.tool, r)
		if !r.IsError {
			t.Errorf("%s %v was not refused: %s", c.tool, c.args, r.Content)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".env")); string(b) != "TOKEN="+secret+"\n" {
		t.Errorf(".env changed: %q", b)
	}
	// What is not denied still works.
	if r := s.call("read_file", map[string]any{"path": "main.go"}); r.IsError {
		t.Errorf("read_file main.go: %s", r.Content)
	}
}

// denied reports whether a listed path is one of secretTree's denied files.
func denied(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	return base == ".env" || strings.HasPrefix(base, ".env.") && base != ".env.example" ||
		strings.HasSuffix(base, ".pem") || strings.HasSuffix(base, ".key") || strings.HasPrefix(base, "id_rsa") ||
		strings.HasSuffix(p, ".git/config")
}

// relName is how a tool names path p in its messages.
func (s *server) relName(p string) string {
	if filepath.IsAbs(p) {
		if r, err := filepath.Rel(s.root, p); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// TestSecretsConfigured: the secrets.deny setting adds patterns and allows
// names again ("!"), per workspace folder, and follows configuration
// changes.
func TestSecretsConfigured(t *testing.T) {
	a, b := secretTree(t), secretTree(t)
	e := lsptest.New(t, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
		return lsp.New(lsp.Options{}).Run(ctx, r, w, c)
	})
	e.Config = func(scope, section string) any {
		if scope == lsptest.URI(a) {
			return map[string]any{"secrets": map[string]any{"deny": []string{"*.secret", "!.env.example"}}}
		}
		return nil
	}
	e.Initialize(nil, nil, a, b)
	read := func(root, rel string) lsptest.Result {
		var r lsptest.Result
		if err := e.ExecuteCommand("agentls.callTool", map[string]any{"name": "read_file", "arguments": map[string]any{"path": rel}, "workspace": lsptest.URI(root)}, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	// The configuration is pulled after initialized; wait for it to apply.
	e.WaitFor("folder a's settings", func() bool { return read(a, "a.secret").IsError })
	for _, c := range []struct {
		root, rel string
		denied    bool
	}{
		{a, "a.secret", true}, {a, ".env.example", false}, {a, ".env", true},
		{b, "a.secret", false}, {b, ".env.example", true}, {b, ".env", true},
	} {
		if r := read(c.root, c.rel); r.IsError != c.denied {
			t.Errorf("folder %s: read_file %s: denied %v, want %v (%s)", filepath.Base(c.root), c.rel, r.IsError, c.denied, short(r.Content, 100))
		}
	}
	// A pushed change of configuration (settings in the notification).
	e.Config = func(scope, section string) any {
		if scope == lsptest.URI(a) {
			return map[string]any{"secrets": map[string]any{"deny": []string{"main.go"}}}
		}
		return nil
	}
	e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": nil})
	e.WaitFor("new settings", func() bool { return read(a, "main.go").IsError })
	if r := read(a, "a.secret"); r.IsError {
		t.Errorf("a.secret is still denied after the change: %s", r.Content)
	}
}

// TestSecretsDenyChangeReachesGrep: a file denied by a configuration change
// disappears from grep too, even after grep has cached its file list —
// also on a tree whose files and directories are older than the table's
// racy window, as in a real workspace, where the table trusts its file
// list (no directory changed) and the deny list's version tells it to walk
// again.
func TestSecretsDenyChangeReachesGrep(t *testing.T) {
	for _, settled := range []bool{false, true} {
		t.Run(map[bool]string{false: "fresh", true: "settled"}[settled], func(t *testing.T) {
			root := secretTree(t)
			if settled {
				old := time.Now().Add(-time.Hour)
				filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
					if err == nil {
						os.Chtimes(p, old, old)
					}
					return nil
				})
				os.Chtimes(root, old, old)
			}
			denyChangeReachesGrep(t, root)
		})
	}
}

func denyChangeReachesGrep(t *testing.T, root string) {
	e := lsptest.New(t, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
		return lsp.New(lsp.Options{}).Run(ctx, r, w, c)
	})
	deny := []string{}
	e.Config = func(scope, section string) any { return map[string]any{"secrets": map[string]any{"deny": deny}} }
	e.Initialize(nil, nil, root)
	grep := func() string {
		var r lsptest.Result
		if err := e.ExecuteCommand("agentls.callTool", map[string]any{"name": "grep", "arguments": map[string]any{"pattern": "not a secret"}}, &r); err != nil {
			t.Fatal(err)
		}
		return r.Content
	}
	for range 3 { // the second search builds the session's table
		if got := grep(); !strings.Contains(got, "main.go") {
			t.Fatalf("grep before the change: %s", got)
		}
	}
	deny = []string{"main.go"}
	e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": nil})
	var r lsptest.Result
	e.WaitFor("the new deny list", func() bool {
		e.ExecuteCommand("agentls.callTool", map[string]any{"name": "read_file", "arguments": map[string]any{"path": "main.go"}}, &r)
		return r.IsError
	})
	if got := grep(); strings.Contains(got, "main.go") {
		t.Errorf("grep still searches main.go after it was denied: %s", got)
	}
}

// TestSecretsCodeIndex: symbols of a denied file, on disk or in an open
// buffer, are not in code_index's answers.
func TestSecretsCodeIndex(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{
		"main.go":           "package main\n\nfunc VisibleFunc() {}\n",
		"secret/keys.go":    "package secret\n\nfunc LeakedOnDisk() {}\n",
		"secret/unsaved.go": "package secret\n",
	})
	s := startServer(t, root, map[string]any{"secrets": map[string]any{"deny": []string{"secret/"}}})
	s.call("code_index", map[string]any{"action": "status"}) // the index starts following buffers
	s.Open(filepath.Join(root, "secret", "unsaved.go"), "package secret\n\nfunc LeakedFromBuffer() {}\n")
	s.Open(filepath.Join(root, "open.go"), "package main\n\nfunc BufferOnlyFunc() {}\n")
	s.Sync()
	// The index does follow buffers: one that is not denied is found.
	if r := s.call("code_index", map[string]any{"action": "search", "query": "BufferOnlyFunc"}); !strings.Contains(r.Content, "open.go") {
		t.Errorf("the index does not see open.go's buffer: %s", r.Content)
	}
	for _, args := range []map[string]any{
		{"action": "search", "query": "Leaked"},
		{"action": "search", "query": "VisibleFunc"},
		{"action": "map"},
		{"action": "outline", "path": "secret/unsaved.go"},
		{"action": "definition", "query": "LeakedFromBuffer"},
	} {
		r := s.call("code_index", args)
		echo := args["query"] == "LeakedFromBuffer"
		if strings.Contains(r.Content, "LeakedOnDisk") || !echo && strings.Contains(r.Content, "LeakedFromBuffer") ||
			strings.Contains(r.Content, "keys.go") || strings.Contains(r.Content, "unsaved.go:") {
			t.Errorf("code_index %v shows a denied file: %s", args, short(r.Content, 300))
		}
		if args["query"] == "VisibleFunc" && !strings.Contains(r.Content, "main.go") {
			t.Errorf("code_index %v: %s", args, short(r.Content, 300))
		}
	}
}
