package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/workspace"
)

// escapeWorkspace makes a workspace beside a canary directory and fills the
// workspace with every kind of way out: a symlinked file, a symlinked
// directory, chains of links, and dangling links whose targets are outside.
// The read-before-write rule is off, as on the command line, so that
// confinement alone has to stop each write.
func escapeWorkspace(t *testing.T) (ctx context.Context, s *workspace.Session, canary string) {
	t.Helper()
	parent := t.TempDir()
	canary = filepath.Join(parent, "canary")
	root := filepath.Join(parent, "ws")
	for _, d := range []string{canary, filepath.Join(canary, "sub"), root} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(canary, "secret.txt"):    "secret\n",
		filepath.Join(canary, "sub/deep.txt"):  "secret too\n",
		filepath.Join(canary, "secret.ipynb"):  notebookFile(t, "nb.ipynb"),
		filepath.Join(root, "inside.txt"):      "inside\n",
		filepath.Join(root, "real/inside.txt"): "inside\n",
	}
	for p, data := range files {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"linkfile":    "../canary/secret.txt",
		"linknb":      filepath.Join(canary, "secret.ipynb"),
		"linkdir":     canary,
		"chain1":      "chain2",
		"chain2":      "real/../linkdir",
		"chainfile1":  "chainfile2",
		"chainfile2":  "linkfile",
		"dangling":    filepath.Join(canary, "new.txt"),
		"danglingdir": filepath.Join(canary, "newdir"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err = workspace.NewSession(ws, workspace.DiskEditor{WS: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return workspace.WithSession(context.Background(), s), s, canary
}

// TestPathEscapes sends each way out of the workspace to every path-taking
// file tool, and checks that each call fails and nothing outside changed.
func TestPathEscapes(t *testing.T) {
	ctx, s, canary := escapeWorkspace(t)
	parent := filepath.Dir(canary)
	before := snapshot(t, parent)

	escapes := map[string]string{
		"dotdot":             "../canary/secret.txt",
		"dotdot dir":         "real/../../canary",
		"absolute outside":   filepath.Join(canary, "secret.txt"),
		"absolute prefix":    s.WS.Root() + "-evil/x.txt",
		"symlink file":       "linkfile",
		"symlink notebook":   "linknb",
		"symlink dir":        "linkdir",
		"through symlink":    "linkdir/secret.txt",
		"deep through link":  "linkdir/sub/deep.txt",
		"symlink chain dir":  "chain1/secret.txt",
		"symlink chain file": "chainfile1",
		"dangling":           "dangling",
		"dangling dir":       "danglingdir/x.txt",
	}
	type call struct {
		tool string
		args func(p string) map[string]any
	}
	calls := []call{
		{"read_file", func(p string) map[string]any { return map[string]any{"path": p} }},
		{"read_file", func(p string) map[string]any { return map[string]any{"path": p, "offset": 0, "limit": 1} }},
		{"write_file", func(p string) map[string]any { return map[string]any{"path": p, "content": "pwned\n"} }},
		{"write_file", func(p string) map[string]any { return map[string]any{"path": p + "/new.txt", "content": "pwned\n"} }},
		{"edit_file", func(p string) map[string]any {
			return map[string]any{"path": p, "old_string": "secret", "new_string": "pwned", "replace_all": true}
		}},
		{"multi_edit", func(p string) map[string]any {
			return map[string]any{"path": p, "edits": []map[string]any{{"old_string": "secret", "new_string": "pwned"}}}
		}},
		{"notebook_edit", func(p string) map[string]any {
			return map[string]any{"path": p, "cell_number": 0, "new_source": "pwned"}
		}},
		{"notebook_edit", func(p string) map[string]any {
			return map[string]any{"path": p, "edit_mode": "delete", "cell_number": 0}
		}},
		{"move_file", func(p string) map[string]any { return map[string]any{"source": p, "destination": "stolen.txt"} }},
		{"move_file", func(p string) map[string]any {
			return map[string]any{"source": "inside.txt", "destination": p, "overwrite": true}
		}},
		{"move_file", func(p string) map[string]any {
			return map[string]any{"source": "real", "destination": p + "/real", "overwrite": true}
		}},
		{"delete_file", func(p string) map[string]any { return map[string]any{"path": p, "recursive": true} }},
		{"delete_file", func(p string) map[string]any { return map[string]any{"path": p} }},
		{"ls", func(p string) map[string]any { return map[string]any{"path": p, "include_ignored": true} }},
		{"glob", func(p string) map[string]any {
			return map[string]any{"pattern": "**", "path": p, "include_ignored": true}
		}},
		{"glob", func(p string) map[string]any { return map[string]any{"pattern": p + "/**"} }},
	}
	for kind, p := range escapes {
		for _, c := range calls {
			args := c.args(p)
			out, err := execTool(t, ctx, c.tool, args)
			if err == nil && !(c.tool == "glob" && strings.HasPrefix(out, "No files match")) {
				t.Errorf("%s: %s %v succeeded:\n%s", kind, c.tool, args, out)
			}
			if strings.Contains(out, "secret") && !strings.HasPrefix(out, "No files match") {
				t.Errorf("%s: %s %v leaked the canary:\n%s", kind, c.tool, args, out)
			}
		}
	}
	// Whole-workspace listings name the links but never look through them.
	for _, c := range []struct {
		tool string
		args string
	}{
		{"ls", `{"depth":5,"include_ignored":true}`},
		{"glob", `{"pattern":"**","include_ignored":true}`},
		{"glob", `{"pattern":"**/*.txt","include_ignored":true}`},
	} {
		out := mustExec(t, ctx, c.tool, c.args)
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "deep.txt") || strings.TrimSpace(l) == "secret.txt" || strings.HasSuffix(l, "/secret.txt") && !strings.Contains(l, "->") {
				t.Errorf("%s %s lists the canary's contents: %q", c.tool, c.args, l)
			}
		}
	}

	after := snapshot(t, parent)
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed: %q -> %q", p, v, after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared", p)
		}
	}
}
