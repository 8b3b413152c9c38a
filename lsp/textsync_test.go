package lsp_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

func pos(line, char uint32) lsptest.Position { return lsptest.Position{Line: line, Character: char} }

func rng(l1, c1, l2, c2 uint32) lsptest.Range {
	return lsptest.Range{Start: pos(l1, c1), End: pos(l2, c2)}
}

func TestDocumentSync(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.txt": "on disk\n"})
	s.Initialize(nil, nil, s.root)
	f := s.folder()
	a := s.path("a.txt")

	s.Open(a, "a中😀b\r\nline two\r\n")
	// Several changes in one notification, applied in order: after the
	// emoji (2 UTF-16 units), past the end of a line (clamped), a deletion
	// across the CRLF.
	s.Edit(a,
		lsptest.TextEdit{Range: rng(0, 4, 0, 4), NewText: "é"},
		lsptest.TextEdit{Range: rng(1, 99, 1, 99), NewText: "!"},
		lsptest.TextEdit{Range: rng(0, 6, 1, 0), NewText: " "},
	)
	want, _, _ := s.Text(a)
	if want != "a中😀éb line two!\r\n" {
		t.Fatalf("fake editor text = %q", want)
	}
	r := s.CallTool("read_file", map[string]any{"path": "a.txt"})
	mustContain(t, "read_file", r.Content, "a中😀éb line two!")
	buf, ok := f.WS.Buffer(a)
	if !ok || buf.Text != want || buf.Version != 2 || !buf.Dirty {
		t.Fatalf("overlay = %+v, want text %q version 2 dirty", buf, want)
	}

	// grep sees the buffer, not the disk.
	r = s.CallTool("grep", map[string]any{"pattern": "line two"})
	mustContain(t, "grep", r.Content, "a.txt")

	// A full change (no range) replaces the text.
	s.Replace(a, "on disk\n")
	s.Sync()
	buf, _ = f.WS.Buffer(a)
	if buf.Text != "on disk\n" || buf.Dirty {
		t.Errorf("after a full change back to the disk text: %+v, want clean", buf)
	}

	// Save and close.
	s.Replace(a, "saved\n")
	s.Save(a)
	s.Sync()
	if b, _ := f.WS.Buffer(a); b.Version != 4 || b.Dirty {
		t.Errorf("after didSave: %+v, want version 4, clean", b)
	}
	s.Close(a)
	s.Sync()
	if _, open := f.WS.Buffer(a); open {
		t.Errorf("the buffer is still open after didClose")
	}
	r = s.CallTool("read_file", map[string]any{"path": "a.txt"})
	mustContain(t, "read_file after close", r.Content, "saved")
}

func TestNoFolder(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	s.Initialize(nil, nil)
	r := s.CallTool("read_file", map[string]any{"path": "a.txt"})
	if !r.IsError {
		t.Fatalf("read_file with no folder: %+v", r)
	}
	mustContain(t, "error", r.Content, "no workspace folder")
	var lt struct {
		Workspace string `json:"workspace"`
		Tools     []any  `json:"tools"`
	}
	if err := s.ExecuteCommand("agentls.listTools", map[string]any{}, &lt); err != nil || len(lt.Tools) == 0 || lt.Workspace != "" {
		t.Errorf("listTools with no folder: %+v, %v", lt, err)
	}
}

func TestExtensionPositionSeam(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	s.Initialize(nil, nil, s.root)
	a := s.path("a.txt")
	s.Open(a, "x😀y\nz")
	var r struct {
		Offset   int          `json:"offset"`
		Position lsp.Position `json:"position"`
		Version  int32        `json:"version"`
	}
	if err := s.Call("test/offset", map[string]any{"uri": lsptest.URI(a), "position": pos(0, 3)}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Offset != 5 || r.Position != (lsp.Position{Line: 0, Character: 3}) || r.Version != 1 {
		t.Errorf("offset seam = %+v, want offset 5 (after the emoji)", r)
	}
	if d, ok := s.srv.DocumentAt(a); !ok || d.Text != "x😀y\nz" || d.URI != lsptest.URI(a) {
		t.Errorf("DocumentAt = %+v, %v", d, ok)
	}
	if err := s.Call("test/offset", map[string]any{"uri": "file:///nope", "position": pos(0, 0)}, nil); code(err) != -32602 {
		t.Errorf("unknown document: %v", err)
	}
}

func TestWatchedFilesNotifyTheFolder(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"w.txt": "x"})
	s.Initialize(nil, nil, s.root)
	f := s.folder()
	changed := make(chan string, 4)
	cancel := f.WS.OnChange(func(p string) { changed <- p })
	defer cancel()
	s.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": lsptest.URI(s.path("w.txt")), "type": 2}}})
	s.Sync()
	select {
	case p := <-changed:
		if p != s.path("w.txt") {
			t.Errorf("changed %s", p)
		}
	default:
		t.Errorf("the folder was not told about the changed file")
	}
}

// The server keeps one document per file: a second URI spelling of an open
// path reopens the one buffer, and changes and close by either spelling
// reach it.
func TestOneDocumentPerPath(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.txt": "disk\n"})
	s.Initialize(nil, nil, s.root)
	f := s.folder()
	a := s.path("a.txt")
	plain := lsptest.URI(a)
	escaped := strings.TrimSuffix(plain, "a.txt") + "a%2Etxt" // the same path, spelled otherwise
	open := func(uri, text string, v int) {
		s.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "plaintext", "version": v, "text": text}})
	}
	open(plain, "first\n", 1)
	open(escaped, "second\n", 5)
	s.Sync()
	d, ok := s.srv.DocumentAt(a)
	if !ok || d.URI != escaped || d.Text != "second\n" || d.Version != 5 {
		t.Fatalf("DocumentAt = %+v, %v; want the second opening", d, ok)
	}
	s.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": escaped, "version": 6},
		"contentChanges": []any{map[string]any{"range": rng(0, 0, 0, 0), "text": "2 "}},
	})
	s.Sync()
	if b, ok := f.WS.Buffer(a); !ok || b.Text != "2 second\n" || b.Version != 6 {
		t.Fatalf("overlay = %+v, %v", b, ok)
	}
	s.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": escaped}})
	s.Sync()
	if _, ok := f.WS.Buffer(a); ok {
		t.Error("the buffer is still open after didClose")
	}
	if _, ok := s.srv.DocumentAt(a); ok {
		t.Error("the document is still open after didClose")
	}
}
