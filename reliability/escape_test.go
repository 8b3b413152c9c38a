package reliability

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/lsp/lsptest"
)

// marker is in every file outside the workspace; no tool result may ever
// contain it. Patterns and old_strings the tests send never contain it
// whole, so an echo of the arguments cannot trip the check.
const marker = "CANARY-7f3a9"

// escapeFixture is a workspace inside base, with a canary tree beside it
// and a set of links that lead out.
type escapeFixture struct {
	base, ws, canary string
}

const notebookJSON = `{"cells":[{"cell_type":"code","id":"c1","metadata":{},"source":["print('CANARY')"],"outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":5}`

func newEscapeFixture(t *testing.T) *escapeFixture {
	base := tempRoot(t)
	f := &escapeFixture{base: base, ws: filepath.Join(base, "ws"), canary: filepath.Join(base, "canary")}
	writeFiles(t, base, map[string]string{
		"canary/secret.txt":     marker + " secret\nCANARY line\n",
		"canary/dir/f.txt":      marker + " f\nCANARY\n",
		"canary/dir/nb.ipynb":   strings.Replace(notebookJSON, "print('CANARY')", marker, 1),
		"canary/dir/.env":       "TOKEN=" + marker + "\n",
		"canary/hard.txt":       "HARDLINK-SHARED CANARY\n", // hard-linked into the workspace
		"canary/notebook.ipynb": strings.Replace(notebookJSON, "print('CANARY')", marker, 1),
		"home/secret.txt":       marker + " in HOME\nCANARY\n",
		"home/.bashrc":          marker + "\n",
		"ws-evil/secret.txt":    marker + " sibling with the root as prefix\nCANARY\n",
	})
	if err := os.MkdirAll(f.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	f.reset(t)
	return f
}

// reset rebuilds the workspace's content (the server keeps its folder).
func (f *escapeFixture) reset(t *testing.T) {
	t.Helper()
	ents, _ := os.ReadDir(f.ws)
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(f.ws, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, f.ws, map[string]string{
		"ok.txt":        "hello CANARY\n",
		"sub/a.txt":     "a CANARY\n",
		"victim.txt":    "victim CANARY\n",
		"nb.ipynb":      notebookJSON,
		".git/HEAD":     "ref: refs/heads/main\n",
		".git/config":   "[core]\n",
		"caf\u00e9.txt": "NFC CANARY\n",
	})
	links := map[string]string{
		"linkfile":    "../canary/secret.txt",
		"linkdir":     "../canary/dir",
		"abslink":     f.canary,
		"chain1":      "chain2",
		"chain2":      "chain3",
		"chain3":      "../canary/secret.txt",
		"chaindir1":   "chaindir2",
		"chaindir2":   "../canary/dir",
		"loop1":       "loop2",
		"loop2":       "loop1",
		"dangling":    "../canary/new.txt",
		"danglingdir": "../canary/newdir",
		"relup":       "sub/../../canary",
		"sub/inner":   "../../canary/dir",
		"selfroot":    "/proc/self/root" + f.canary,
		"dotdot":      "..",
		"nblink":      "../canary/notebook.ipynb",
		"evil":        "../ws-evil",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(f.ws, filepath.FromSlash(name))); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	if err := os.Link(filepath.Join(f.canary, "hard.txt"), filepath.Join(f.ws, "hard.txt")); err != nil {
		t.Logf("no hard link: %v", err)
	}
}

// outsideSnapshot is everything in base but the workspace.
func (f *escapeFixture) outsideSnapshot(t *testing.T) map[string]string {
	return snapshot(t, f.base, f.ws)
}

// escapeCase is one hostile path; outside says it names something outside
// the workspace (so reading and writing it must be refused), as opposed to
// a literal odd name that stays inside.
type escapeCase struct {
	name    string
	path    string
	outside bool
}

func escapeCases(f *escapeFixture) []escapeCase {
	long := strings.Repeat("d/", 2100) + "x.txt" // over PATH_MAX
	longUp := strings.Repeat("../", 1400) + f.canary[1:] + "/secret.txt"
	return []escapeCase{
		{"dotdot file", "../canary/secret.txt", true},
		{"dotdot dir", "../canary", true},
		{"dotdot only", "..", true},
		{"dotdot slash", "../", true},
		{"dotdot twice", "../../", true},
		{"dotdot middle", "sub/../../canary/secret.txt", true},
		{"dotdot after dot", "./../canary/secret.txt", true},
		{"dotdot doubled slashes", "sub//..//..//canary//secret.txt", true},
		{"dotdot trailing dot", "../canary/secret.txt/.", true},
		{"dotdot to sibling with root prefix", "../ws-evil/secret.txt", true},
		{"dotdot deep", strings.Repeat("sub/../", 50) + "../canary/secret.txt", true},
		{"absolute outside", filepath.Join(f.canary, "secret.txt"), true},
		{"absolute etc", "/etc/passwd", true},
		{"absolute root", "/", true},
		{"absolute sibling prefix", f.ws + "-evil/secret.txt", true},
		{"absolute through root and up", f.ws + "/../canary/secret.txt", true},
		{"absolute proc self root", "/proc/self/root" + f.canary + "/secret.txt", true},
		{"absolute proc self root into ws then up", "/proc/self/root" + f.ws + "/../canary/secret.txt", true},
		{"proc self cwd", "/proc/self/cwd/harness_test.go", true},
		{"proc self environ", "/proc/self/environ", true},
		{"proc self fd", "/proc/self/fd/0", true},
		{"symlink to file", "linkfile", true},
		{"symlink to dir", "linkdir", true},
		{"symlink dir file", "linkdir/f.txt", true},
		{"symlink dir new file", "linkdir/new.txt", true},
		{"symlink absolute", "abslink/secret.txt", true},
		{"symlink chain", "chain1", true},
		{"symlink dir chain", "chaindir1/f.txt", true},
		{"symlink loop", "loop1", true},
		{"symlink loop below", "loop1/x", true},
		{"dangling symlink", "dangling", true},
		{"dangling dir symlink", "danglingdir/new.txt", true},
		{"symlink with dotdot target", "relup/secret.txt", true},
		{"nested symlink", "sub/inner/f.txt", true},
		{"symlink through proc", "selfroot/secret.txt", true},
		{"symlink to parent", "dotdot/canary/secret.txt", true},
		{"symlink to notebook", "nblink", true},
		{"symlink to sibling with root prefix", "evil/secret.txt", true},
		// Paths are cleaned lexically, as Go does: this one is secret.txt
		// in the workspace, not the canary's (which the kernel would open).
		{"symlink then dotdot", "linkdir/../secret.txt", false},
		{"NUL then dotdot", "ok.txt\x00../canary/secret.txt", true},
		{"NUL at end", "ok.txt\x00", true},
		{"NUL only", "\x00", true},
		{"long path", long, true},
		{"long path of dotdots", longUp, true},
		{"long name", strings.Repeat("n", 300) + ".txt", true},
		{"tilde", "~/secret.txt", false},
		{"tilde only", "~", false},
		{"env var", "$HOME/secret.txt", false},
		{"url encoded dotdot", "%2e%2e/canary/secret.txt", false},
		{"file url", "file://" + f.canary + "/secret.txt", false},
		{"backslash dotdot", `..\canary\secret.txt`, false},
		{"two dot leader lookalike", "\u2025/canary/secret.txt", false},
		{"fullwidth solidus", "..\uff0fcanary\uff0fsecret.txt", false},
		{"one dot leader pair", "\u2024\u2024/canary/secret.txt", false},
		{"dot with combining mark", ".\u0307./canary/secret.txt", false},
		{"NFD form of a name", "cafe\u0301.txt", false},
		{"trailing space dotdot", ".. /canary/secret.txt", false},
		{"unicode slash lookalike", "..\u2215canary\u2215secret.txt", false},
		{"right-to-left override", "\u202e../canary/secret.txt", false},
		{"git config write", ".git/config", false},
		{"hard link to outside file", "hard.txt", false},
	}
}

// toolCalls are the calls made for one hostile path: every path-taking
// argument of every tool.
func toolCalls(p string) []struct {
	tool string
	args map[string]any
} {
	type c = struct {
		tool string
		args map[string]any
	}
	edit := map[string]any{"old_string": "CANARY", "new_string": "PWNED"}
	return []c{
		{"read_file", map[string]any{"path": p}},
		{"read_file", map[string]any{"path": p, "offset": 0, "limit": 5}},
		{"ls", map[string]any{"path": p, "depth": 3}},
		{"ls", map[string]any{"path": p, "include_ignored": true}},
		{"glob", map[string]any{"pattern": "**/*", "path": p}},
		{"glob", map[string]any{"pattern": p}},
		{"glob", map[string]any{"pattern": p + "/**"}},
		{"grep", map[string]any{"pattern": "CANARY.7f3a9", "path": p, "hidden": true, "include_ignored": true}},
		{"grep", map[string]any{"pattern": "CANARY.7f3a9", "glob": p, "hidden": true}},
		{"code_index", map[string]any{"action": "outline", "path": p}},
		{"code_index", map[string]any{"action": "search", "query": "secret", "path": p}},
		{"write_file", map[string]any{"path": p, "content": "PWNED"}},
		{"edit_file", map[string]any{"path": p, "old_string": "CANARY", "new_string": "PWNED"}},
		{"edit_file", map[string]any{"path": p, "old_string": "CANARY", "new_string": "PWNED", "replace_all": true}},
		{"multi_edit", map[string]any{"path": p, "edits": []any{edit}}},
		{"notebook_edit", map[string]any{"path": p, "cell_number": 0, "new_source": "PWNED"}},
		{"notebook_edit", map[string]any{"path": p, "edit_mode": "insert", "new_source": "PWNED", "cell_type": "code"}},
		{"notebook_edit", map[string]any{"path": p, "cell_id": "c1", "edit_mode": "delete"}},
		{"move_file", map[string]any{"source": p, "destination": "moved/in.txt", "overwrite": true}},
		{"move_file", map[string]any{"source": "victim.txt", "destination": p, "overwrite": true}},
		{"move_file", map[string]any{"source": "sub", "destination": p, "overwrite": true}},
		{"delete_file", map[string]any{"path": p}},
		{"delete_file", map[string]any{"path": p, "recursive": true}},
	}
}

var writeTools = map[string]bool{"write_file": true, "edit_file": true, "multi_edit": true, "notebook_edit": true, "move_file": true, "delete_file": true}

// TestEscapeCorpus runs every hostile path against every path-taking tool
// through the LSP server. Nothing outside the workspace may change (the
// canary tree is compared after every call) and no result may contain the
// canary's marker. Paths that name something outside must be refused by
// read_file and write_file.
func TestEscapeCorpus(t *testing.T) {
	f := newEscapeFixture(t)
	t.Setenv("HOME", filepath.Join(f.base, "home"))
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the code index's cache is not the canary's business
	before := f.outsideSnapshot(t)
	s := startServer(t, f.ws, nil)
	cases := escapeCases(f)
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	calls := 0
	spent := map[string]time.Duration{}
	for _, c := range cases {
		f.reset(t)
		for _, tc := range toolCalls(c.path) {
			// A write tool refuses a file the agent has not read: read first,
			// so that a refusal below is the confinement's, not that rule's.
			if writeTools[tc.tool] {
				s.call("read_file", map[string]any{"path": c.path})
			}
			t0 := time.Now()
			r := s.call(tc.tool, tc.args)
			spent[tc.tool] += time.Since(t0)
			calls++
			if strings.Contains(r.Content, marker) {
				t.Errorf("%s: %s(%s) leaked the canary: %s", c.name, tc.tool, short(fmt.Sprint(tc.args), 80), short(r.Content, 300))
			}
			if c.outside && (tc.tool == "read_file" || tc.tool == "write_file") && !r.IsError {
				t.Errorf("%s: %s(%q) was not refused: %s", c.name, tc.tool, short(c.path, 80), short(r.Content, 200))
			}
			if d := diffSnapshots(before, f.outsideSnapshot(t)); len(d) > 0 {
				t.Fatalf("%s: %s(%s) changed the outside:\n%s", c.name, tc.tool, short(fmt.Sprint(tc.args), 120), strings.Join(d, "\n"))
			}
		}
	}
	// The hard link reads the content it shares (it is a file of the
	// workspace), but a write replaces the workspace's name only.
	f.reset(t)
	if r := s.call("read_file", map[string]any{"path": "hard.txt"}); r.IsError || !strings.Contains(r.Content, "HARDLINK-SHARED") {
		t.Errorf("hard link read: %+v", r)
	}
	if r := s.call("edit_file", map[string]any{"path": "hard.txt", "old_string": "HARDLINK", "new_string": "EDITED"}); r.IsError {
		t.Errorf("hard link edit: %+v", r)
	}
	if got, _ := os.ReadFile(filepath.Join(f.canary, "hard.txt")); string(got) != "HARDLINK-SHARED CANARY\n" {
		t.Errorf("editing the hard link changed the outside file: %q", got)
	}
	if d := diffSnapshots(before, f.outsideSnapshot(t)); len(d) > 0 {
		t.Fatalf("changed outside:\n%s", strings.Join(d, "\n"))
	}
	t.Logf("%d cases, %d tool calls, nothing outside changed or read; time per tool: %v", len(cases), calls, spent)
	if code := s.Shutdown(); code != 0 {
		t.Errorf("exit status %d", code)
	}
}

// TestEscapeWorkspaceArgument: the workspace argument of a call routes
// between open folders only; naming another directory does not open it.
func TestEscapeWorkspaceArgument(t *testing.T) {
	f := newEscapeFixture(t)
	before := f.outsideSnapshot(t)
	s := startServer(t, f.ws, nil)
	for _, ws := range []string{lsptest.URI(f.canary), lsptest.URI(f.ws + "-evil"), lsptest.URI(f.ws + "/../canary"), "file:///", "untitled:x", "file://host/etc"} {
		var r lsptest.Result
		err := s.ExecuteCommand("agentls.callTool", map[string]any{
			"name": "read_file", "arguments": map[string]any{"path": "secret.txt"}, "workspace": ws,
		}, &r)
		if err == nil && !r.IsError || strings.Contains(r.Content, marker) {
			t.Errorf("workspace %s: %v %+v", ws, err, r)
		}
		err = s.ExecuteCommand("agentls.callTool", map[string]any{
			"name": "write_file", "arguments": map[string]any{"path": "pwned.txt", "content": "x"}, "workspace": ws,
		}, &r)
		if err == nil && !r.IsError {
			if _, serr := os.Stat(filepath.Join(f.ws, "pwned.txt")); serr != nil {
				t.Errorf("workspace %s: write_file accepted, not in the workspace: %+v", ws, r)
			}
		}
	}
	// A buffer opened outside the folder is not the folder's.
	outside := filepath.Join(f.canary, "secret.txt")
	s.Open(outside, "BUFFER "+marker)
	s.Sync()
	for _, a := range []map[string]any{{"path": outside}, {"path": "../canary/secret.txt"}} {
		if r := s.call("read_file", a); !r.IsError || strings.Contains(r.Content, marker) {
			t.Errorf("read_file %v of an outside buffer: %+v", a, r)
		}
	}
	if r := s.call("grep", map[string]any{"pattern": "BUFFER"}); strings.Contains(r.Content, marker) {
		t.Errorf("grep sees an outside buffer: %+v", r)
	}
	if d := diffSnapshots(before, f.outsideSnapshot(t)); len(d) > 0 {
		t.Fatalf("changed outside:\n%s", strings.Join(d, "\n"))
	}
}

// TestEscapeWebFetch: web_fetch reaches neither files nor the machine's
// own addresses (a canary server listens on loopback).
func TestEscapeWebFetch(t *testing.T) {
	f := newEscapeFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, marker)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	s := startServer(t, f.ws, nil)
	urls := []string{
		"file://" + f.canary + "/secret.txt",
		"file:///proc/self/root" + f.canary + "/secret.txt",
		"file:secret.txt",
		fmt.Sprintf("http://127.0.0.1:%d/", port),
		fmt.Sprintf("http://localhost:%d/", port),
		fmt.Sprintf("http://127.1:%d/", port),
		fmt.Sprintf("http://0x7f000001:%d/", port),
		fmt.Sprintf("http://2130706433:%d/", port),
		fmt.Sprintf("http://0177.0.0.1:%d/", port),
		fmt.Sprintf("http://[::1]:%d/", port),
		fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", port),
		fmt.Sprintf("http://0.0.0.0:%d/", port),
		fmt.Sprintf("http://127.0.0.1.nip.io:%d/", port),
		fmt.Sprintf("http://user@127.0.0.1:%d/", port),
		"gopher://127.0.0.1/",
		"ftp://127.0.0.1/",
		"http://169.254.169.254/latest/meta-data/",
	}
	for _, u := range urls {
		r := s.call("web_fetch", map[string]any{"url": u, "timeout_seconds": 5})
		if !r.IsError || strings.Contains(r.Content, marker) {
			t.Errorf("web_fetch %s: %+v", u, r)
		}
	}
	// Settings cannot be smuggled in the arguments.
	r := s.call("web_fetch", map[string]any{"url": fmt.Sprintf("http://127.0.0.1:%d/", port), "allowPrivate": true})
	if !r.IsError || strings.Contains(r.Content, marker) {
		t.Errorf("web_fetch with an extra argument: %+v", r)
	}
}
