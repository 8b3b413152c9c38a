package reliability

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretsAfterMoves: a move that would take a denied file out from
// under the deny list (by moving its directory) or put a file under a
// denied name is refused with the file and the pattern named; ls shows a
// symlink to a denied file without its target; the extended defaults deny
// credentials files.
func TestSecretsAfterMoves(t *testing.T) {
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{
		"config/prod.json":        `{"password": "` + secret + `"}`,
		"config/app.json":         "{}\n",
		"awsbackup/credentials":   "aws_secret_access_key = placeholder\n",
		"id_rsa.py":               secret + "\n",
		".npmrc":                  "//registry.npmjs.org/:_authToken=" + secret + "\n",
		"deploy/.ssh/id_work":     secret + "\n",
		".git/modules/sub/config": "url = https://" + secret + "@example.com\n",
		"keys/store.p12":          secret + "\n",
		"plain/notes.txt":         "nothing\n",
	})
	if err := os.Symlink("id_rsa.py", filepath.Join(root, "link.py")); err != nil {
		t.Skip(err)
	}
	s := startServer(t, root, map[string]any{"secrets": map[string]any{"deny": []string{"config/prod.json"}}})

	r := s.call("move_file", map[string]any{"source": "config", "destination": "cfg"})
	if !r.IsError || !strings.Contains(r.Content, "config/prod.json") || !strings.Contains(r.Content, `"config/prod.json"`) {
		t.Errorf("move config -> cfg = %q, want a refusal naming config/prod.json and its pattern", r.Content)
	}
	noSecret(t, "read_file cfg/prod.json", s.call("read_file", map[string]any{"path": "cfg/prod.json"}))
	if _, err := os.Stat(filepath.Join(root, "config", "prod.json")); err != nil {
		t.Errorf("config/prod.json moved: %v", err)
	}
	r = s.call("move_file", map[string]any{"source": "awsbackup", "destination": "home/.aws"})
	if !r.IsError || !strings.Contains(r.Content, "**/.aws/credentials") || !strings.Contains(r.Content, "awsbackup/credentials") {
		t.Errorf("move awsbackup -> home/.aws = %q, want a refusal naming the file and **/.aws/credentials", r.Content)
	}
	if r := s.call("move_file", map[string]any{"source": "plain", "destination": "other"}); r.IsError {
		t.Errorf("an ordinary directory move: %s", r.Content)
	}

	r = s.call("ls", map[string]any{})
	if strings.Contains(r.Content, "id_rsa") || !strings.Contains(r.Content, "link.py") {
		t.Errorf("ls shows the target of a link to a denied file, or not the link: %q", r.Content)
	}
	for _, p := range []string{".npmrc", "deploy/.ssh/id_work", ".git/modules/sub/config", "keys/store.p12", "link.py"} {
		r := s.call("read_file", map[string]any{"path": p})
		noSecret(t, "read_file "+p, r)
		if !r.IsError {
			t.Errorf("read_file %s = %q, want it denied", p, short(r.Content, 100))
		}
	}
	noSecret(t, "grep", s.call("grep", map[string]any{"pattern": secret, "hidden": true}))
}

// TestSecretsHardLink: a hard link to .env made elsewhere in the folder
// (under a name the deny list does not cover) is denied too: same device
// and inode as a denied file.
func TestSecretsHardLink(t *testing.T) {
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{
		".env":                    "TOKEN=" + secret + "\n",
		"notes.txt":               "nothing\n",
		".git/modules/sub/config": "url = https://" + secret + "@example.com\n",
	})
	if err := os.Link(filepath.Join(root, ".env"), filepath.Join(root, "docs.txt")); err != nil {
		t.Skip(err)
	}
	// .git is never walked: a submodule's config (on the default list) is
	// recognised by name.
	if err := os.Link(filepath.Join(root, ".git/modules/sub/config"), filepath.Join(root, "sub.cfg")); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, root, nil)
	for _, args := range []map[string]any{{"path": "docs.txt"}, {"path": "docs.txt", "offset": 1, "limit": 5}, {"path": "sub.cfg"}} {
		r := s.call("read_file", args)
		noSecret(t, "read_file", r)
		if !r.IsError || !strings.Contains(r.Content, "does not exist") {
			t.Errorf("read_file %v = %q", args, r.Content)
		}
	}
	r := s.call("edit_file", map[string]any{"path": "docs.txt", "old_string": "TOKEN", "new_string": "X"})
	noSecret(t, "edit_file docs.txt", r)
	if !r.IsError {
		t.Errorf("edit_file of the link: %q", r.Content)
	}
	if r := s.call("read_file", map[string]any{"path": "notes.txt"}); r.IsError {
		t.Errorf("an ordinary file: %s", r.Content)
	}
}

// TestSecretsHardLinkSearch: grep and the code index pass over a hard link
// to a denied file as they pass over the file itself, whether the search
// walks the folder (the first) or uses the session's file table (the
// next ones); an ordinary file beside it is still found.
func TestSecretsHardLinkSearch(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{
		"secret/keys.go": "package secret\n\n// " + secret + "\nfunc LeakedKeys() {}\n",
		"main.go":        "package main\n\n// " + secret[:6] + " is not the whole secret\nfunc VisibleFunc() {}\n",
	})
	if err := os.Link(filepath.Join(root, "secret/keys.go"), filepath.Join(root, "copy.go")); err != nil {
		t.Skip(err)
	}
	s := startServer(t, root, map[string]any{"secrets": map[string]any{"deny": []string{"secret/"}}})
	for i, args := range []map[string]any{
		{"pattern": secret},
		{"pattern": secret},
		{"pattern": secret[:6], "output_mode": "files_with_matches"},
	} {
		r := s.call("grep", args)
		noSecret(t, "grep", r)
		if strings.Contains(r.Content, "copy.go") {
			t.Errorf("grep %d %v lists the hard link: %s", i, args, short(r.Content, 300))
		}
		if args["output_mode"] != nil && !strings.Contains(r.Content, "main.go") {
			t.Errorf("grep %v misses main.go: %s", args, short(r.Content, 300))
		}
	}
	r := s.call("grep", map[string]any{"pattern": secret, "path": "copy.go"})
	noSecret(t, "grep copy.go", r)
	if !r.IsError || !strings.Contains(r.Content, "does not exist") {
		t.Errorf("grep in the hard link by name = %q, want it missing", r.Content)
	}
	for _, args := range []map[string]any{
		{"action": "search", "query": "Leaked"},
		{"action": "outline", "path": "copy.go"},
		{"action": "map"},
	} {
		r := s.call("code_index", args)
		if strings.Contains(r.Content, "LeakedKeys") || strings.Contains(r.Content, "copy.go:") {
			t.Errorf("code_index %v shows the hard link: %s", args, short(r.Content, 300))
		}
	}
	if r := s.call("code_index", map[string]any{"action": "search", "query": "VisibleFunc"}); !strings.Contains(r.Content, "main.go") {
		t.Errorf("code_index misses main.go: %s", r.Content)
	}
	// The editor opened the link: its buffer is the denied file's text.
	s.Open(filepath.Join(root, "copy.go"), "package secret\n\n// "+secret+" edited\nfunc LeakedKeys() {}\n")
	s.Sync()
	noSecret(t, "grep with the link open", s.call("grep", map[string]any{"pattern": secret}))
	noSecret(t, "read_file of the open link", s.call("read_file", map[string]any{"path": "copy.go"}))
	if r := s.call("code_index", map[string]any{"action": "search", "query": "Leaked"}); strings.Contains(r.Content, "LeakedKeys") {
		t.Errorf("code_index shows the open link's buffer: %s", short(r.Content, 300))
	}
}

// TestSecretsHardLinkListing: ls and glob do not list a hard link to a
// denied file (it reads as missing, so a listing naming it would invite a
// read that fails), at the top and in a subdirectory, while the editor has
// it open too; files beside it are listed.
func TestSecretsHardLinkListing(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{
		".env":        "TOKEN=" + secret + "\n",
		"main.go":     "package main\n",
		"sub/keep.go": "package sub\n",
	})
	for _, name := range []string{"notes.txt", "sub/deep.txt"} {
		if err := os.Link(filepath.Join(root, ".env"), filepath.Join(root, name)); err != nil {
			t.Skip(err)
		}
	}
	s := startServer(t, root, nil)
	check := func(when string) {
		t.Helper()
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"ls", map[string]any{"path": "."}},
			{"ls", map[string]any{"path": "sub"}},
			{"glob", map[string]any{"pattern": "**/*"}},
			{"glob", map[string]any{"pattern": "*.txt"}},
			{"glob", map[string]any{"pattern": "sub/*"}},
		} {
			r := s.call(c.tool, c.args)
			if strings.Contains(r.Content, "notes.txt") || strings.Contains(r.Content, "deep.txt") {
				t.Errorf("%s: %s %v lists a hard link to .env: %s", when, c.tool, c.args, short(r.Content, 300))
			}
		}
		if r := s.call("ls", map[string]any{"path": "."}); !strings.Contains(r.Content, "main.go") || !strings.Contains(r.Content, "sub/") {
			t.Errorf("%s: ls misses main.go or sub/: %s", when, r.Content)
		}
		if r := s.call("glob", map[string]any{"pattern": "**/*.go"}); !strings.Contains(r.Content, "sub/keep.go") {
			t.Errorf("%s: glob misses sub/keep.go: %s", when, r.Content)
		}
	}
	check("on disk")
	s.Open(filepath.Join(root, "notes.txt"), "TOKEN="+secret+" edited\n")
	s.Sync()
	check("open in the editor")
}
