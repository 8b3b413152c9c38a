package lsp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

// lastApplyEdit decodes the most recent workspace/applyEdit the editor got.
func lastApplyEdit(t *testing.T, s *session) map[string]any {
	t.Helper()
	reqs := s.Received("workspace/applyEdit")
	if len(reqs) == 0 {
		t.Fatal("no workspace/applyEdit was sent")
	}
	var p map[string]any
	json.Unmarshal(reqs[len(reqs)-1].Params, &p)
	return p
}

func TestEditCleanBufferIsSaved(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.go": "package a\n\nfunc Old() {}\n"})
	s.Initialize(nil, nil, s.root)
	a := s.path("a.go")
	s.Open(a, "package a\n\nfunc Old() {}\n")
	s.CallTool("read_file", map[string]any{"path": "a.go"})
	r := s.CallTool("edit_file", map[string]any{"path": "a.go", "old_string": "Old", "new_string": "New"})
	if r.IsError {
		t.Fatalf("edit_file: %s", r.Content)
	}
	p := lastApplyEdit(t, s)
	dc := p["edit"].(map[string]any)["documentChanges"].([]any)[0].(map[string]any)
	if v := dc["textDocument"].(map[string]any)["version"]; v != float64(1) {
		t.Errorf("applyEdit version = %v, want 1", v)
	}
	edits := dc["edits"].([]any)
	if len(edits) != 1 || edits[0].(map[string]any)["newText"] != "New" {
		t.Errorf("edits = %v, want one minimal edit inserting New", edits)
	}
	if text, v, _ := s.Text(a); text != "package a\n\nfunc New() {}\n" || v != 2 {
		t.Errorf("editor buffer = %q v%d", text, v)
	}
	if got := s.disk("a.go"); got != "package a\n\nfunc New() {}\n" {
		t.Errorf("disk = %q: a clean buffer is saved after the edit", got)
	}
	if len(s.Received("agentls/saveDocument")) != 1 {
		t.Errorf("saveDocument requests: %d", len(s.Received("agentls/saveDocument")))
	}
	// The next read sees the edit.
	r = s.CallTool("read_file", map[string]any{"path": "a.go"})
	mustContain(t, "read_file", r.Content, "func New()")
}

func TestEditDirtyBufferIsNotSaved(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.txt": "disk text\n"})
	s.Initialize(nil, nil, s.root)
	a := s.path("a.txt")
	s.Open(a, "unsaved text 中文\r\nsecond\r\n")
	r := s.CallTool("read_file", map[string]any{"path": "a.txt"})
	mustContain(t, "read_file", r.Content, "unsaved text")
	r = s.CallTool("edit_file", map[string]any{"path": "a.txt", "old_string": "second", "new_string": "2nd\nthird"})
	if r.IsError {
		t.Fatalf("edit_file: %s", r.Content)
	}
	mustContain(t, "result", r.Content, "not on disk")
	if text, _, _ := s.Text(a); text != "unsaved text 中文\r\n2nd\r\nthird\r\n" {
		t.Errorf("buffer = %q (line endings of the buffer kept)", text)
	}
	if got := s.disk("a.txt"); got != "disk text\n" {
		t.Errorf("disk = %q: a dirty buffer must not be saved", got)
	}
	if n := len(s.Received("agentls/saveDocument")); n != 0 {
		t.Errorf("saveDocument sent %d times for a dirty buffer", n)
	}
}

func TestEditWithoutDocumentChangesOrSave(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.txt": "one\n"})
	caps := lsptest.VSCodeCapabilities()
	caps["workspace"].(map[string]any)["workspaceEdit"] = map[string]any{}
	delete(caps, "experimental")
	s.Initialize(caps, nil, s.root)
	a := s.path("a.txt")
	s.Open(a, "one\n")
	s.CallTool("read_file", map[string]any{"path": "a.txt"})
	s.ReplyBeforeChange = true
	r := s.CallTool("write_file", map[string]any{"path": "a.txt", "content": "two\n"})
	if r.IsError {
		t.Fatalf("write_file: %s", r.Content)
	}
	mustContain(t, "result", r.Content, "not saved")
	p := lastApplyEdit(t, s)
	if _, ok := p["edit"].(map[string]any)["changes"]; !ok {
		t.Errorf("applyEdit without documentChanges support: %v", p)
	}
	if text, _, _ := s.Text(a); text != "two\n" {
		t.Errorf("buffer = %q", text)
	}
	if s.disk("a.txt") != "one\n" {
		t.Errorf("disk changed without saveDocument")
	}
}

func TestStaleEditRefused(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.txt": "alpha\n"})
	s.Initialize(nil, nil, s.root)
	a := s.path("a.txt")
	s.Open(a, "alpha\n")
	s.CallTool("read_file", map[string]any{"path": "a.txt"})

	// The editor refuses (its buffer moved on).
	s.RefuseEdits = true
	r := s.CallTool("edit_file", map[string]any{"path": "a.txt", "old_string": "alpha", "new_string": "beta"})
	if !r.IsError {
		t.Fatalf("refused edit: %+v", r)
	}
	mustContain(t, "result", r.Content, "read it again")
	s.RefuseEdits = false

	// The user typed after the agent read the file.
	s.Edit(a, lsptest.TextEdit{Range: rng(0, 0, 0, 0), NewText: "x"})
	r = s.CallTool("edit_file", map[string]any{"path": "a.txt", "old_string": "alpha", "new_string": "beta"})
	if !r.IsError {
		t.Fatalf("edit after the user typed: %+v", r)
	}
	if text, _, _ := s.Text(a); text != "xalpha\n" {
		t.Errorf("buffer = %q, want the user's text untouched", text)
	}
}

// An editor that never reports the edit it applied: the call does not wait
// for it, and the next read sees the edit.
func TestEditWithoutDidChange(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.txt": "alpha\n"})
	s.Initialize(nil, nil, s.root)
	a := s.path("a.txt")
	s.Open(a, "alpha\n")
	s.CallTool("read_file", map[string]any{"path": "a.txt"})
	s.IgnoreEdits = true
	r := s.CallTool("edit_file", map[string]any{"path": "a.txt", "old_string": "alpha", "new_string": "beta"})
	if r.IsError {
		t.Fatalf("edit without a didChange: %s", r.Content)
	}
	r = s.CallTool("read_file", map[string]any{"path": "a.txt"})
	mustContain(t, "read_file", r.Content, "beta")
}

// logSink collects the server's log and wakes waiters on every record.
type logSink struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newLogSink() *logSink { return &logSink{changed: make(chan struct{})} }

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// wait waits until the log holds want.
func (l *logSink) wait(t *testing.T, want string) {
	t.Helper()
	deadline := time.NewTimer(lsptest.Timeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		has, ch := strings.Contains(l.buf.String(), want), l.changed
		l.mu.Unlock()
		if has {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("the log never said %q; it has:\n%s", want, l.String())
		}
	}
}

func (l *logSink) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// A lazy editor (eglot reports changes when Emacs is idle) answers
// applyEdit at once and sends its didChange seconds later. Here the delay
// is a channel the test releases: each call returns while the changes are
// held, and the reads between see the edits.
func TestEditLazyDidChange(t *testing.T) {
	log := newLogSink()
	s := start(t, lsp.Options{Logger: log.logger()}, map[string]string{"a.txt": "alpha 中文 😀 x\n"})
	s.Initialize(nil, nil, s.root)
	a := s.path("a.txt")
	s.Open(a, "alpha 中文 😀 x\n")
	s.CallTool("read_file", map[string]any{"path": "a.txt"})
	release := make(chan struct{})
	s.HoldChanges = release

	r := s.CallTool("edit_file", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y"})
	if r.IsError {
		t.Fatalf("edit_file with the didChange held: %s", r.Content)
	}
	r = s.CallTool("read_file", map[string]any{"path": "a.txt"})
	mustContain(t, "read_file before the editor reported the edit", r.Content, "alpha 中文 😀 y")
	// A second edit builds on the first, at the version the editor has.
	r = s.CallTool("edit_file", map[string]any{"path": "a.txt", "old_string": "alpha", "new_string": "omega"})
	if r.IsError {
		t.Fatalf("second edit with the didChange held: %s", r.Content)
	}
	if got := s.disk("a.txt"); got != "omega 中文 😀 y\n" {
		t.Errorf("disk = %q: the clean buffer is saved after the edit", got)
	}

	close(release)
	s.FlushHeld()
	s.Sync()
	r = s.CallTool("read_file", map[string]any{"path": "a.txt"})
	mustContain(t, "read_file after the editor reported the edits", r.Content, "omega 中文 😀 y")
	if strings.Contains(log.String(), "differs") {
		t.Errorf("a mismatch was logged for edits the editor applied as sent:\n%s", log)
	}
	// The buffer is at the editor's version: the user's next change and
	// the agent's next edit agree with the editor.
	s.Edit(a, lsptest.TextEdit{Range: rng(0, 0, 0, 0), NewText: "> "})
	s.CallTool("read_file", map[string]any{"path": "a.txt"})
	r = s.CallTool("edit_file", map[string]any{"path": "a.txt", "old_string": "omega", "new_string": "psi"})
	if r.IsError {
		t.Fatalf("edit after the reconciliation: %s", r.Content)
	}
	if text, _, _ := s.Text(a); text != "> psi 中文 😀 y\n" {
		t.Errorf("editor buffer = %q", text)
	}
}

// The editor applied the edit differently from what was sent (lsp-mode 8.0
// counts columns in characters): its report wins, and the mismatch is
// logged.
func TestEditMismatchTakesEditorText(t *testing.T) {
	log := newLogSink()
	s := start(t, lsp.Options{Logger: log.logger()}, map[string]string{"a.txt": "😀 alpha\n"})
	s.Initialize(nil, nil, s.root)
	a := s.path("a.txt")
	s.Open(a, "😀 alpha\n")
	s.CallTool("read_file", map[string]any{"path": "a.txt"})
	release := make(chan struct{})
	s.HoldChanges = release
	s.Misapply = func(ed lsptest.TextEdit) lsptest.TextEdit {
		ed.Range.Start.Character--
		ed.Range.End.Character--
		return ed
	}
	r := s.CallTool("edit_file", map[string]any{"path": "a.txt", "old_string": "alpha", "new_string": "beta"})
	if r.IsError {
		t.Fatalf("edit_file: %s", r.Content)
	}
	close(release)
	s.FlushHeld()
	s.Sync()
	want, _, _ := s.Text(a)
	if want == "😀 beta\n" {
		t.Fatalf("the test's editor applied the edit as sent")
	}
	r = s.CallTool("read_file", map[string]any{"path": "a.txt"})
	mustContain(t, "read_file", r.Content, strings.TrimSuffix(want, "\n"))
	mustContain(t, "log", log.String(), "differs from the edit it applied")
}

// The call is cancelled while the editor holds the edit; the editor then
// applies it. The log says that it is in the buffer, and reads see it.
func TestEditAppliedAfterCallEnded(t *testing.T) {
	log := newLogSink()
	s := start(t, lsp.Options{Logger: log.logger()}, map[string]string{"a.txt": "alpha\n"})
	s.Initialize(nil, nil, s.root)
	a := s.path("a.txt")
	s.Open(a, "alpha\n")
	s.CallTool("read_file", map[string]any{"path": "a.txt"})
	release := make(chan struct{})
	s.HoldAnswers = release
	s.HoldChanges = release
	wait := s.Start("41", "workspace/executeCommand", map[string]any{"command": "agentls.callTool", "arguments": []any{
		map[string]any{"name": "edit_file", "arguments": map[string]any{"path": "a.txt", "old_string": "alpha", "new_string": "beta"}},
	}}, nil)
	s.WaitFor("the applyEdit", func() bool { return len(s.Received("workspace/applyEdit")) == 1 })
	s.Notify("$/cancelRequest", map[string]any{"id": 41})
	if err := wait(); code(err) != -32800 {
		t.Fatalf("cancelled call: %v", err)
	}
	close(release)
	log.wait(t, "it is in the buffer")
	r := s.CallTool("read_file", map[string]any{"path": "a.txt"})
	mustContain(t, "read_file", r.Content, "beta")
}

func TestClosedFileEditedOnDisk(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"b.txt": "one\r\ntwo\r\n"})
	s.Initialize(nil, nil, s.root)
	s.CallTool("read_file", map[string]any{"path": "b.txt"})
	r := s.CallTool("edit_file", map[string]any{"path": "b.txt", "old_string": "two", "new_string": "three"})
	if r.IsError {
		t.Fatalf("edit_file: %s", r.Content)
	}
	if got := s.disk("b.txt"); got != "one\r\nthree\r\n" {
		t.Errorf("disk = %q", got)
	}
	if n := len(s.Received("workspace/applyEdit")); n != 0 {
		t.Errorf("applyEdit sent for a closed file")
	}
}

func TestPathEscapeRefused(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	s.Initialize(nil, nil, s.root)
	for _, p := range []string{"../outside.txt", "/etc/passwd"} {
		r := s.CallTool("read_file", map[string]any{"path": p})
		if !r.IsError {
			t.Errorf("read_file %s: %+v", p, r)
		}
	}
	r := s.CallTool("write_file", map[string]any{"path": "../x.txt", "content": "x"})
	if !r.IsError {
		t.Errorf("write_file outside: %+v", r)
	}
}

func TestRenameAndDeleteOpenFile(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	s.Initialize(nil, nil, s.root)
	s.Open(s.path("a.txt"), "a\n")
	s.Open(s.path("b.txt"), "b\n")
	r := s.CallTool("move_file", map[string]any{"source": "a.txt", "destination": "sub/c.txt"})
	if r.IsError {
		t.Fatalf("move_file: %s", r.Content)
	}
	if _, _, ok := s.Text(s.path("sub/c.txt")); !ok {
		t.Errorf("the buffer did not follow the move")
	}
	if _, err := os.Stat(s.path("sub/c.txt")); err != nil {
		t.Errorf("moved file: %v", err)
	}
	r = s.CallTool("delete_file", map[string]any{"path": "b.txt"})
	if r.IsError {
		t.Fatalf("delete_file: %s", r.Content)
	}
	if _, _, ok := s.Text(s.path("b.txt")); ok {
		t.Errorf("the deleted file's buffer is still open")
	}
	if _, err := os.Stat(s.path("b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt still exists: %v", err)
	}
}

// A multi_edit touching lines 3 and 900 of an open buffer reaches the editor
// as two TextEdits, each covering only what changed: the lines between them
// (and the user's cursor, marks and folds there) are left alone.
func TestMultiEditSendsOneTextEditPerChange(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "line %d 中文\n", i)
	}
	text := b.String()
	s := start(t, lsp.Options{}, map[string]string{"big.txt": text})
	s.Initialize(nil, nil, s.root)
	a := s.path("big.txt")
	s.Open(a, text)
	s.CallTool("read_file", map[string]any{"path": "big.txt", "limit": 2000})
	r := s.CallTool("multi_edit", map[string]any{"path": "big.txt", "edits": []any{
		map[string]any{"old_string": "line 3 中文\n", "new_string": "line three 中文\n"},
		map[string]any{"old_string": "line 900 中文\n", "new_string": "line 900 中文\nline 900½\n"},
	}})
	if r.IsError {
		t.Fatalf("multi_edit: %s", r.Content)
	}
	var p struct {
		Edit struct {
			DocumentChanges []struct {
				Edits []struct {
					Range struct {
						Start, End struct{ Line, Character int }
					}
					NewText string
				}
			}
		}
	}
	reqs := s.Received("workspace/applyEdit")
	if len(reqs) != 1 {
		t.Fatalf("%d applyEdit requests, want 1", len(reqs))
	}
	if err := json.Unmarshal(reqs[0].Params, &p); err != nil || len(p.Edit.DocumentChanges) != 1 {
		t.Fatalf("applyEdit params %s: %v", reqs[0].Params, err)
	}
	edits := p.Edit.DocumentChanges[0].Edits
	if len(edits) != 2 {
		t.Fatalf("%d TextEdits, want 2: %+v", len(edits), edits)
	}
	if e := edits[0]; e.Range.Start.Line != 2 || e.Range.End.Line != 2 || e.NewText != "three" {
		t.Errorf("first edit %+v, want line 2 (0-based) replaced by three", e)
	}
	if e := edits[1]; e.Range.Start.Line < 899 || e.Range.End.Line > 900 || !strings.Contains(e.NewText, "900½") {
		t.Errorf("second edit %+v, want an insertion after line 899 (0-based)", e)
	}
	want := strings.Replace(strings.Replace(text, "line 3 中文\n", "line three 中文\n", 1), "line 900 中文\n", "line 900 中文\nline 900½\n", 1)
	if got, _, _ := s.Text(a); got != want {
		t.Errorf("the editor's buffer differs from the edited text")
	}
}
