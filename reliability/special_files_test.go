//go:build unix

package reliability

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSpecialFiles: every tool that opens a file answers at once for a
// named pipe (open(2) of a FIFO for reading waits for a writer unless it is
// non-blocking) and for a socket, with an error that names the kind of
// file; grep, glob and the code index pass over them; delete_file removes
// one like any file.
func TestSpecialFiles(t *testing.T) {
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{
		"a.txt":     "hello\n",
		"nb.ipynb":  `{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":5}`,
		"pkg/x.go":  "package pkg\n\nfunc Hello() {}\n",
		"dir/b.txt": "hello\n",
	})
	fifo := filepath.Join(root, "notes.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "dir", "hello.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A socket, made where its path is short enough and hard-linked into
	// the folder (where the file system allows it).
	sockDir, err := os.MkdirTemp("", "agentls-sock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	if l, err := net.Listen("unix", filepath.Join(sockDir, "s")); err == nil {
		t.Cleanup(func() { l.Close() })
		if err := os.Link(filepath.Join(sockDir, "s"), filepath.Join(root, "app.sock")); err != nil {
			t.Logf("no socket in the folder: %v", err)
		}
	}

	s := startServer(t, root, nil)
	// Should a call block in open(2) after all, open the FIFO for writing
	// so that it returns and the server can shut down.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})

	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "notes.fifo"}},
		{"read_file", map[string]any{"path": "notes.fifo", "offset": 0, "limit": 10}},
		{"write_file", map[string]any{"path": "notes.fifo", "content": "x\n"}},
		{"edit_file", map[string]any{"path": "notes.fifo", "old_string": "a", "new_string": "b"}},
		{"multi_edit", map[string]any{"path": "notes.fifo", "edits": []any{map[string]any{"old_string": "a", "new_string": "b"}}}},
		{"notebook_edit", map[string]any{"path": "notes.fifo", "cell_number": 0, "new_source": "x", "edit_mode": "insert", "cell_type": "code"}},
		{"grep", map[string]any{"pattern": "x", "path": "notes.fifo"}},
	}
	if _, err := os.Lstat(filepath.Join(root, "app.sock")); err == nil {
		calls = append(calls,
			struct {
				tool string
				args map[string]any
			}{"read_file", map[string]any{"path": "app.sock"}},
			struct {
				tool string
				args map[string]any
			}{"write_file", map[string]any{"path": "app.sock", "content": "x\n"}},
		)
	}
	for _, c := range calls {
		r := s.call(c.tool, c.args)
		name := c.args["path"].(string)
		kind := "a named pipe"
		if strings.HasSuffix(name, ".sock") {
			kind = "a socket"
		}
		want := name + " is " + kind + ", not a regular file"
		if !r.IsError || !strings.Contains(r.Content, want) {
			t.Errorf("%s %v = %q (error %v), want an error saying %q", c.tool, c.args, r.Content, r.IsError, want)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("notes.fifo changed: %v %v", st, err)
	}

	// Searches pass over them without a word.
	if r := s.call("grep", map[string]any{"pattern": "hello"}); r.IsError || strings.Contains(r.Content, "fifo") || !strings.Contains(r.Content, "a.txt") {
		t.Errorf("grep = %q", r.Content)
	}
	if r := s.call("grep", map[string]any{"pattern": "hello", "path": "dir"}); r.IsError || strings.Contains(r.Content, "hello.go") || !strings.Contains(r.Content, "b.txt") {
		t.Errorf("grep in dir = %q", r.Content)
	}
	if r := s.call("glob", map[string]any{"pattern": "**/*"}); r.IsError || strings.Contains(r.Content, "fifo") || strings.Contains(r.Content, "hello.go") || strings.Contains(r.Content, ".sock") || !strings.Contains(r.Content, "a.txt") {
		t.Errorf("glob = %q", r.Content)
	}
	if r := s.call("code_index", map[string]any{"action": "search", "query": "Hello"}); r.IsError || strings.Contains(r.Content, "dir/hello.go") || !strings.Contains(r.Content, "pkg/x.go") {
		t.Errorf("code_index = %q", r.Content)
	}

	// Deleting one is fine.
	if r := s.call("delete_file", map[string]any{"path": "notes.fifo"}); r.IsError {
		t.Errorf("delete_file notes.fifo: %s", r.Content)
	}
	if _, err := os.Lstat(fifo); err == nil {
		t.Errorf("notes.fifo is still there")
	}
}
