package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/workspace"
)

func TestEditFile(t *testing.T) {
	ctx, s := newTestSession(t, testdataArchive(t, "files.txtar"))
	edit := map[string]any{"path": "main.go", "old_string": `fmt.Println("hello")`, "new_string": `fmt.Println("hi")`}
	wantErr(t, ctx, "edit_file", edit, "read main.go before editing it")
	mustExec(t, ctx, "read_file", `{"path":"main.go"}`)
	out := mustExec(t, ctx, "edit_file", edit)
	want := `Edited main.go: replaced 1 occurrence.
--- a/main.go
+++ b/main.go
@@ -3,5 +3,5 @@
 import "fmt"
 
 func main() {
-	fmt.Println("hello")
+	fmt.Println("hi")
 }`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if got := readWS(t, s, "main.go"); !strings.Contains(got, `fmt.Println("hi")`) {
		t.Errorf("file:\n%s", got)
	}
	// What the tool wrote counts as read: a second edit needs no read.
	mustExec(t, ctx, "edit_file", map[string]any{"path": "main.go", "old_string": `"hi"`, "new_string": `"hey"`})

	// Changed on disk since: refused, and the file is left alone.
	writeWS(t, s, "main.go", "package main\n")
	wantErr(t, ctx, "edit_file", map[string]any{"path": "main.go", "old_string": "main", "new_string": "x"}, "main.go changed since you read it (changed on disk)")
	if got := readWS(t, s, "main.go"); got != "package main\n" {
		t.Errorf("file changed: %q", got)
	}

	mustExec(t, ctx, "read_file", `{"path":"util/dup.go"}`)
	wantErr(t, ctx, "edit_file", map[string]any{"path": "util/dup.go", "old_string": "return 1", "new_string": "return 2"},
		"old_string matches 2 places in util/dup.go, at lines 4 and 8", "replace_all")
	out = mustExec(t, ctx, "edit_file", map[string]any{"path": "util/dup.go", "old_string": "return 1", "new_string": "return 2", "replace_all": true})
	wantOut(t, out, "replaced 2 occurrences", "-\treturn 1\n+\treturn 2")
	wantErr(t, ctx, "edit_file", map[string]any{"path": "util/dup.go", "old_string": "x", "new_string": "x"}, "identical")
	wantErr(t, ctx, "edit_file", map[string]any{"path": "util/dup.go", "old_string": "nothing like this", "new_string": "x"}, "was not found in util/dup.go")
	wantErr(t, ctx, "edit_file", map[string]any{"path": "missing.go", "old_string": "a", "new_string": "b"}, "missing.go does not exist; create it with write_file")
}

func TestEditFileWhitespaceTolerant(t *testing.T) {
	ctx, s := newTestSession(t, testdataArchive(t, "files.txtar"))
	mustExec(t, ctx, "read_file", `{"path":"util/strings.go"}`)
	// Spaces typed for the file's tabs, with read_file's prefixes pasted.
	out := mustExec(t, ctx, "edit_file", map[string]any{
		"path":       "util/strings.go",
		"old_string": "     8→    }\n     9→    return string(r)",
		"new_string": "    }\n    // done\n    return string(r)",
	})
	wantOut(t, out, "(matched ignoring differences in indentation and trailing spaces)", "+\t// done")
	if got := readWS(t, s, "util/strings.go"); !strings.Contains(got, "\t}\n\t// done\n\treturn string(r)\n}") {
		t.Errorf("file:\n%s", got)
	}
}

func TestEditFileFormats(t *testing.T) {
	ctx, s := newTestSession(t, "")
	writeWS(t, s, "crlf.txt", "one\r\ntwo\r\nthree\r\n")
	writeWS(t, s, "bom.txt", "\uFEFFalpha\nbeta\n")
	writeWS(t, s, "u16.txt", string(utf16Bytes("héllo\r\nwörld\r\n", false)))
	writeWS(t, s, "bin.dat", "a\x00b")
	os.Chmod(filepath.Join(s.WS.Root(), "crlf.txt"), 0o755)
	for _, f := range []string{"crlf.txt", "bom.txt", "u16.txt"} {
		mustExec(t, ctx, "read_file", map[string]any{"path": f})
	}
	// An LF old_string matches CRLF text; the file stays CRLF, mode kept.
	mustExec(t, ctx, "edit_file", map[string]any{"path": "crlf.txt", "old_string": "one\ntwo\n", "new_string": "1\n2\n"})
	if got := readWS(t, s, "crlf.txt"); got != "1\r\n2\r\nthree\r\n" {
		t.Errorf("crlf.txt = %q", got)
	}
	if st, _ := os.Stat(filepath.Join(s.WS.Root(), "crlf.txt")); st.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v", st.Mode())
	}
	mustExec(t, ctx, "edit_file", map[string]any{"path": "bom.txt", "old_string": "beta", "new_string": "gamma"})
	if got := readWS(t, s, "bom.txt"); got != "\uFEFFalpha\ngamma\n" {
		t.Errorf("bom.txt = %q", got)
	}
	mustExec(t, ctx, "edit_file", map[string]any{"path": "u16.txt", "old_string": "wörld", "new_string": "wereld"})
	if got := readWS(t, s, "u16.txt"); got != string(utf16Bytes("héllo\r\nwereld\r\n", false)) {
		t.Errorf("u16.txt = %q", got)
	}
	wantErr(t, ctx, "edit_file", map[string]any{"path": "bin.dat", "old_string": "a", "new_string": "b"}, "binary")
	// An empty file can be filled with an empty old_string.
	writeWS(t, s, "empty.txt", "")
	mustExec(t, ctx, "read_file", `{"path":"empty.txt"}`)
	mustExec(t, ctx, "edit_file", map[string]any{"path": "empty.txt", "old_string": "", "new_string": "first\n"})
	if got := readWS(t, s, "empty.txt"); got != "first\n" {
		t.Errorf("empty.txt = %q", got)
	}
}

func TestMultiEdit(t *testing.T) {
	ctx, s := newTestSession(t, testdataArchive(t, "files.txtar"))
	mustExec(t, ctx, "read_file", `{"path":"util/dup.go"}`)
	before := readWS(t, s, "util/dup.go")
	// The second edit fails: nothing is written, and the error names it.
	wantErr(t, ctx, "multi_edit", map[string]any{"path": "util/dup.go", "edits": []map[string]any{
		{"old_string": "func a()", "new_string": "func first()"},
		{"old_string": "func a()", "new_string": "func again()"},
	}}, "edit 2 of 2 failed, so none was applied and util/dup.go is unchanged", "old_string was not found")
	if got := readWS(t, s, "util/dup.go"); got != before {
		t.Errorf("file changed:\n%s", got)
	}
	// Edits apply in order, each seeing the previous result.
	out := mustExec(t, ctx, "multi_edit", map[string]any{"path": "util/dup.go", "edits": []map[string]any{
		{"old_string": "func a()", "new_string": "func first()"},
		{"old_string": "func first() int {\n\treturn 1", "new_string": "func first() int {\n\treturn 10"},
		{"old_string": "return 1\n", "new_string": "return 0\n", "replace_all": true},
	}})
	wantOut(t, out, "Edited util/dup.go: 3 edits applied (replacements per edit: 1, 1, 1).", "+func first() int {")
	want := "package util\n\nfunc first() int {\n\treturn 10\n}\n\nfunc b() int {\n\treturn 0\n}\n"
	if got := readWS(t, s, "util/dup.go"); got != want {
		t.Errorf("file:\n%s", got)
	}
	wantErr(t, ctx, "multi_edit", map[string]any{"path": "util/dup.go", "edits": []any{}}, "edits is empty")
}

func TestWriteFile(t *testing.T) {
	ctx, s := newTestSession(t, testdataArchive(t, "files.txtar"))
	out := mustExec(t, ctx, "write_file", map[string]any{"path": "new/dir/a.txt", "content": "one\ntwo\n"})
	want := "Created new/dir/a.txt (2 lines).\n--- a/new/dir/a.txt\n+++ b/new/dir/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if got := readWS(t, s, "new/dir/a.txt"); got != "one\ntwo\n" {
		t.Errorf("file = %q", got)
	}
	// Replacing what it wrote needs no read; replacing another file does.
	out = mustExec(t, ctx, "write_file", map[string]any{"path": "new/dir/a.txt", "content": "one\n"})
	wantOut(t, out, "Replaced new/dir/a.txt (1 line, was 2).", "-two")
	wantErr(t, ctx, "write_file", map[string]any{"path": "main.go", "content": "x"}, "read main.go before editing it")
	mustExec(t, ctx, "read_file", `{"path":"main.go"}`)
	out = mustExec(t, ctx, "write_file", map[string]any{"path": "main.go", "content": readWS(t, s, "main.go")})
	wantOut(t, out, "main.go already has this content; nothing was written.")

	// CRLF stays CRLF; CRLF content makes a CRLF file.
	writeWS(t, s, "crlf.txt", "a\r\nb\r\n")
	mustExec(t, ctx, "read_file", `{"path":"crlf.txt"}`)
	mustExec(t, ctx, "write_file", map[string]any{"path": "crlf.txt", "content": "x\ny\n"})
	if got := readWS(t, s, "crlf.txt"); got != "x\r\ny\r\n" {
		t.Errorf("crlf.txt = %q", got)
	}
	mustExec(t, ctx, "write_file", map[string]any{"path": "win.txt", "content": "p\r\nq\r\n"})
	if got := readWS(t, s, "win.txt"); got != "p\r\nq\r\n" {
		t.Errorf("win.txt = %q", got)
	}
	writeWS(t, s, "bin.dat", "\x00\x01")
	wantErr(t, ctx, "write_file", map[string]any{"path": "bin.dat", "content": "x"}, "binary file", "delete_file")
	wantErr(t, ctx, "write_file", map[string]any{"path": "util", "content": "x"}, "directory")
	wantErr(t, ctx, "write_file", map[string]any{"path": ".", "content": "x"}, "workspace root")
	wantErr(t, ctx, "write_file", map[string]any{"path": "newdir/", "content": "x"}, "ends in /")
	wantErr(t, ctx, "write_file", map[string]any{"path": ".git/config", "content": "x"}, ".git")
	// An empty file can be created.
	wantOut(t, mustExec(t, ctx, "write_file", map[string]any{"path": "empty", "content": ""}), "Created empty (0 lines).")
}

// bufferEditor plays an editor whose buffers hold some files: writes to an
// open file go into its buffer (and stay unsaved), others go to disk.
type bufferEditor struct {
	workspace.DiskEditor
	mu   sync.Mutex
	reqs []workspace.WriteRequest
}

func (e *bufferEditor) Write(ctx context.Context, req workspace.WriteRequest) (workspace.WriteResult, error) {
	e.mu.Lock()
	e.reqs = append(e.reqs, req)
	e.mu.Unlock()
	if b, ok := e.WS.Buffer(req.Abs); ok {
		e.WS.Change(req.Abs, b.Version+1, req.Text)
		return workspace.WriteResult{InBuffer: true, Note: "the change is in the editor's buffer, not yet on disk"}, nil
	}
	return e.DiskEditor.Write(ctx, req)
}

func TestEditFileBuffer(t *testing.T) {
	_, s := newTestSession(t, "-- a.go --\npackage a\n")
	ed := &bufferEditor{DiskEditor: workspace.DiskEditor{WS: s.WS}}
	s.Editor = ed
	ctx := workspace.WithSession(context.Background(), s)
	abs := filepath.Join(s.WS.Root(), "a.go")
	s.WS.Open(abs, 7, "package a\n\nvar x = 1\n")
	mustExec(t, ctx, "read_file", `{"path":"a.go"}`)
	out := mustExec(t, ctx, "edit_file", map[string]any{"path": "a.go", "old_string": "x = 1", "new_string": "x = 2"})
	wantOut(t, out, "+var x = 2", "Note: the change is in the editor's buffer, not yet on disk")
	if len(ed.reqs) != 1 || ed.reqs[0].Version != 7 || ed.reqs[0].Text != "package a\n\nvar x = 2\n" {
		t.Errorf("requests = %+v", ed.reqs)
	}
	if got := readWS(t, s, "a.go"); got != "package a\n" {
		t.Errorf("disk changed: %q", got)
	}
	// The buffer as edited counts as read; the user's typing after it does not.
	mustExec(t, ctx, "edit_file", map[string]any{"path": "a.go", "old_string": "x = 2", "new_string": "x = 3"})
	s.WS.Change(abs, 20, "package a\n\nvar x = 3 // user\n")
	wantErr(t, ctx, "edit_file", map[string]any{"path": "a.go", "old_string": "x = 3", "new_string": "x = 4"}, "a.go changed since you read it (buffer edited)")
}

func TestEditFileNoChange(t *testing.T) {
	ctx, s := newTestSession(t, "-- a.txt --\nfoo\nbar\n")
	mustExec(t, ctx, "read_file", `{"path":"a.txt"}`)
	// A loose match of "foo  " replaced by "foo" leaves the file as it was.
	out := mustExec(t, ctx, "edit_file", `{"path":"a.txt","old_string":"foo  ","new_string":"foo"}`)
	wantOut(t, out, "nothing was written")
	out = mustExec(t, ctx, "multi_edit", `{"path":"a.txt","edits":[{"old_string":"foo","new_string":"baz"},{"old_string":"baz","new_string":"foo"}]}`)
	wantOut(t, out, "Together they change nothing")
	if got := readWS(t, s, "a.txt"); got != "foo\nbar\n" {
		t.Errorf("file = %q", got)
	}
}

func TestEditThroughInnerSymlink(t *testing.T) {
	ctx, s := newTestSession(t, "-- real/a.txt --\none\n")
	root := s.WS.Root()
	if err := os.Symlink("real/a.txt", filepath.Join(root, "link.txt")); err != nil {
		t.Skip(err)
	}
	mustExec(t, ctx, "read_file", `{"path":"link.txt"}`)
	mustExec(t, ctx, "edit_file", `{"path":"link.txt","old_string":"one","new_string":"two"}`)
	if got := readWS(t, s, "real/a.txt"); got != "two\n" {
		t.Errorf("target = %q", got)
	}
	if st, err := os.Lstat(filepath.Join(root, "link.txt")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.txt is no longer a symlink: %v", err)
	}
}
