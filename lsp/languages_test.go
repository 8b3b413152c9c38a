package lsp_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/internal/wire"
	"github.com/agentls/agentls/lsp/lsptest"
)

// languageCaps are VS Code's capabilities plus the agentls extension's
// client requests of the editor's language servers.
func languageCaps() map[string]any {
	caps := lsptest.VSCodeCapabilities()
	caps["experimental"] = map[string]any{"agentls": map[string]any{
		"saveDocument": true, "diagnostics": true, "languageRequest": true, "editorState": true,
	}}
	return caps
}

var editorTools = []string{"code_action", "code_nav", "diagnostics", "editor_state", "rename_symbol"}

func toolNames(t *testing.T, s *session) []string {
	t.Helper()
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := s.ExecuteCommand("agentls.listTools", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestEditorToolsOnlyWhenTheClientOffersThem(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.go": "package a\n"})
	s.Initialize(nil, nil, s.root)
	names := toolNames(t, s)
	for _, name := range editorTools {
		for _, got := range names {
			if got == name {
				t.Errorf("a client without the agentls language requests got tool %s", name)
			}
		}
	}
	// A tools.disabled change re-adds built-ins: never the editor tools.
	s.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"agentls": map[string]any{"tools": map[string]any{"disabled": []string{"diagnostics"}}}}})
	s.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"agentls": map[string]any{}}})
	s.Sync()

	s2 := start(t, lsp.Options{}, map[string]string{"a.go": "package a\n"})
	s2.Initialize(languageCaps(), nil, s2.root)
	names = strings.Fields(strings.Join(toolNames(t, s2), " "))
	for _, name := range editorTools {
		found := false
		for _, got := range names {
			found = found || got == name
		}
		if !found {
			t.Errorf("a client offering the language requests lacks tool %s (tools: %v)", name, names)
		}
	}
	for _, name := range toolNames(t, s) {
		if name == "diagnostics" {
			t.Error("re-enabling built-ins added the diagnostics tool to a session that cannot serve it")
		}
	}
}

// fakeServers is what the fake editor's "other language servers" answer.
type fakeServers struct {
	mu       sync.Mutex
	requests []map[string]any // agentls/languageRequest params, in order
	diagAsks []map[string]any // agentls/diagnostics params
	answer   func(method string, params map[string]any) (any, error)
	diags    func(params map[string]any) any
}

func (f *fakeServers) install(s *session) {
	s.Requests = map[string]func(json.RawMessage) (any, error){
		"agentls/languageRequest": func(raw json.RawMessage) (any, error) {
			var p struct {
				Method string         `json:"method"`
				Params map[string]any `json:"params"`
			}
			json.Unmarshal(raw, &p)
			f.mu.Lock()
			f.requests = append(f.requests, map[string]any{"method": p.Method, "params": p.Params})
			answer := f.answer
			f.mu.Unlock()
			return answer(p.Method, p.Params)
		},
		"agentls/diagnostics": func(raw json.RawMessage) (any, error) {
			var p map[string]any
			json.Unmarshal(raw, &p)
			f.mu.Lock()
			f.diagAsks = append(f.diagAsks, p)
			diags := f.diags
			f.mu.Unlock()
			if diags == nil {
				return map[string]any{"items": []any{}}, nil
			}
			return diags(p), nil
		},
	}
}

func lrng(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{"start": map[string]any{"line": l1, "character": c1}, "end": map[string]any{"line": l2, "character": c2}}
}

func TestDiagnosticsToolConvertsColumnsAndOrders(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.go": "package a\n", "b.go": "package b\n"})
	var f fakeServers
	f.install(s.session())
	a, b := s.path("a.go"), s.path("b.go")
	f.diags = func(map[string]any) any {
		return map[string]any{"items": []any{
			map[string]any{"uri": lsptest.URI(b), "diagnostics": []any{
				map[string]any{"range": lrng(0, 0, 0, 1), "severity": 2, "source": "vet", "message": "suspicious"},
			}},
			map[string]any{"uri": lsptest.URI(a), "diagnostics": []any{
				// "s := \"😀\"; y": y follows 11 UTF-16 units, 10 characters: column 11.
				map[string]any{"range": lrng(1, 11, 1, 12), "severity": 1, "source": "compiler", "code": "UndeclaredName", "message": "undefined: y"},
				map[string]any{"range": lrng(0, 0, 0, 1), "severity": 4, "message": "a hint"},
			}},
		}}
	}
	s.Initialize(languageCaps(), nil, s.root)
	s.Open(a, "package a\ns := \"😀\"; y\n")
	r := s.CallTool("diagnostics", map[string]any{})
	if r.IsError {
		t.Fatalf("diagnostics: %s", r.Content)
	}
	want := "a.go:2:11: error [compiler UndeclaredName] undefined: y\nb.go:1:1: warning [vet] suspicious\n"
	if r.Content != want {
		t.Errorf("diagnostics =\n%s\nwant\n%s", r.Content, want)
	}
	r = s.CallTool("diagnostics", map[string]any{"path": "a.go", "severity": "hint"})
	mustContain(t, "diagnostics of a.go", r.Content, "a.go:1:1: hint a hint")
	if strings.Contains(r.Content, "b.go") {
		t.Errorf("diagnostics of a.go lists b.go: %s", r.Content)
	}
	f.mu.Lock()
	last := f.diagAsks[len(f.diagAsks)-1]
	f.mu.Unlock()
	if last["uri"] != lsptest.URI(a) {
		t.Errorf("diagnostics of one file asked for %v, want its uri", last["uri"])
	}
}

// session returns s itself (for the fake servers' install).
func (s *session) session() *session { return s }

func TestCodeNavSendsUTF16AndPrintsLines(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{
		"a.go": "package a\n\nfunc use() { _ = \"😀\"; Target() }\n",
		"b.go": "package a\n\nfunc Target() {}\n",
	})
	var f fakeServers
	f.install(s.session())
	a, b := s.path("a.go"), s.path("b.go")
	f.answer = func(method string, p map[string]any) (any, error) {
		switch method {
		case "textDocument/references":
			return []any{
				map[string]any{"uri": lsptest.URI(b), "range": lrng(2, 5, 2, 11)},
				map[string]any{"uri": lsptest.URI(a), "range": lrng(2, 24, 2, 30)},
			}, nil
		case "textDocument/definition":
			return []any{map[string]any{"targetUri": lsptest.URI(b), "targetRange": lrng(2, 0, 2, 16), "targetSelectionRange": lrng(2, 5, 2, 11)}}, nil
		case "textDocument/hover":
			return map[string]any{"contents": map[string]any{"kind": "markdown", "value": "func Target()"}}, nil
		}
		return nil, nil
	}
	s.Initialize(languageCaps(), nil, s.root)
	s.Open(a, "package a\n\nfunc use() { _ = \"😀\"; Target() }\n")
	r := s.CallTool("code_nav", map[string]any{"action": "references", "path": "a.go", "line": 3, "symbol": "Target"})
	if r.IsError {
		t.Fatalf("code_nav: %s", r.Content)
	}
	mustContain(t, "references", r.Content, "a.go:3: func use() { _ = \"😀\"; Target() }", "b.go:3: func Target() {}")
	f.mu.Lock()
	req := f.requests[0]
	f.mu.Unlock()
	pos := req["params"].(map[string]any)["position"].(map[string]any)
	// "func use() { _ = \"" is 18 units, the emoji 2, "\"; " 3: Target at 23.
	if pos["line"] != float64(2) || pos["character"] != float64(23) {
		t.Errorf("position sent = %v, want line 2 character 23 (UTF-16)", pos)
	}
	if ctx := req["params"].(map[string]any)["context"]; ctx == nil {
		t.Error("references sent without context.includeDeclaration")
	}
	r = s.CallTool("code_nav", map[string]any{"action": "definition", "path": "a.go", "line": 3, "symbol": "Target"})
	if strings.TrimSpace(r.Content) != "b.go:3: func Target() {}" {
		t.Errorf("definition = %q", r.Content)
	}
	r = s.CallTool("code_nav", map[string]any{"action": "hover", "path": "a.go", "line": 3, "column": 24})
	if r.Content != "func Target()" {
		t.Errorf("hover = %q", r.Content)
	}
	r = s.CallTool("code_nav", map[string]any{"action": "definition", "path": "a.go", "line": 3, "symbol": "Nope"})
	if !r.IsError || !strings.Contains(r.Content, `"Nope" is not on line 3`) {
		t.Errorf("a symbol not on the line: %+v", r)
	}
}

func TestCodeNavFallsBackToTheIndexWithoutAServer(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.txt": "hello Target\n"})
	var f fakeServers
	f.install(s.session())
	f.answer = func(string, map[string]any) (any, error) {
		return nil, wire.Errorf(-32001, "no language server handles a.txt")
	}
	s.Initialize(languageCaps(), nil, s.root)
	r := s.CallTool("code_nav", map[string]any{"action": "hover", "path": "a.txt", "line": 1, "symbol": "Target"})
	if !r.IsError || !strings.Contains(r.Content, "no language server in the editor handles a.txt") {
		t.Errorf("hover without a server: %+v", r)
	}
}

func TestRenameSymbolAcrossBufferAndDisk(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{
		"a.go": "package a\n\ntype Old struct{}\n",
		"b.go": "package a\n\nvar _ Old\nvar _ = Old{}\n",
	})
	var f fakeServers
	f.install(s.session())
	a, b := s.path("a.go"), s.path("b.go")
	f.answer = func(method string, p map[string]any) (any, error) {
		if method != "textDocument/rename" || p["newName"] != "New" {
			t.Errorf("unexpected request %s %v", method, p)
			return nil, nil
		}
		return map[string]any{"changes": map[string]any{
			lsptest.URI(a): []any{map[string]any{"range": lrng(3, 5, 3, 8), "newText": "New"}},
			lsptest.URI(b): []any{
				map[string]any{"range": lrng(2, 6, 2, 9), "newText": "New"},
				map[string]any{"range": lrng(3, 8, 3, 11), "newText": "New"},
			},
		}}, nil
	}
	s.Initialize(languageCaps(), nil, s.root)
	// The user added a line above in the buffer (unsaved): the server's
	// edit counts against the buffer, line 3.
	s.Open(a, "package a\n\n// doc\ntype Old struct{}\n")
	r := s.CallTool("rename_symbol", map[string]any{"path": "a.go", "line": 4, "symbol": "Old", "new_name": "New"})
	if r.IsError {
		t.Fatalf("rename_symbol: %s", r.Content)
	}
	mustContain(t, "rename result", r.Content, "3 edits in 2 files", "a.go: 1 edit (in the editor buffer, not saved)", "b.go: 2 edits (on disk)", "+type New struct{}")
	if text, v, _ := s.Text(a); text != "package a\n\n// doc\ntype New struct{}\n" || v != 2 {
		t.Errorf("buffer of a.go = %q v%d", text, v)
	}
	if got := s.disk("a.go"); got != "package a\n\ntype Old struct{}\n" {
		t.Errorf("a.go on disk = %q: a dirty buffer is not saved", got)
	}
	if got := s.disk("b.go"); got != "package a\n\nvar _ New\nvar _ = New{}\n" {
		t.Errorf("b.go on disk = %q", got)
	}
	if n := len(s.Received("workspace/applyEdit")); n != 1 {
		t.Errorf("%d applyEdit requests, want 1 (one undo step)", n)
	}
	// The renamed files count as read: an edit may follow at once.
	r = s.CallTool("edit_file", map[string]any{"path": "b.go", "old_string": "var _ New\n", "new_string": ""})
	if r.IsError {
		t.Errorf("edit after rename: %s", r.Content)
	}
}

func TestRenameOutsideTheFolderIsRefusedWhole(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.go": "package a\n\ntype Old struct{}\n"})
	var f fakeServers
	f.install(s.session())
	a := s.path("a.go")
	f.answer = func(string, map[string]any) (any, error) {
		return map[string]any{"documentChanges": []any{
			map[string]any{"textDocument": map[string]any{"uri": lsptest.URI(a), "version": nil}, "edits": []any{map[string]any{"range": lrng(2, 5, 2, 8), "newText": "New"}}},
			map[string]any{"textDocument": map[string]any{"uri": "file:///etc/hosts", "version": nil}, "edits": []any{map[string]any{"range": lrng(0, 0, 0, 0), "newText": "x"}}},
		}}, nil
	}
	s.Initialize(languageCaps(), nil, s.root)
	r := s.CallTool("rename_symbol", map[string]any{"path": "a.go", "line": 3, "symbol": "Old", "new_name": "New"})
	if !r.IsError || !strings.Contains(r.Content, "/etc/hosts") || !strings.Contains(r.Content, "nothing was changed") {
		t.Errorf("rename touching /etc/hosts: %+v", r)
	}
	if got := s.disk("a.go"); got != "package a\n\ntype Old struct{}\n" {
		t.Errorf("a.go changed: %q", got)
	}
}

func TestCodeActionListAndApply(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.go": "package a\n\nfunc f() { fmt.Println() }\n"})
	var f fakeServers
	f.install(s.session())
	a := s.path("a.go")
	f.diags = func(map[string]any) any {
		return map[string]any{"items": []any{map[string]any{"uri": lsptest.URI(a), "diagnostics": []any{
			map[string]any{"range": lrng(2, 11, 2, 14), "severity": 1, "message": "undefined: fmt", "data": "keep-me"},
			map[string]any{"range": lrng(0, 0, 0, 1), "severity": 1, "message": "elsewhere"},
		}}}}
	}
	first := true
	f.answer = func(method string, p map[string]any) (any, error) {
		switch method {
		case "textDocument/codeAction":
			ds := p["context"].(map[string]any)["diagnostics"].([]any)
			if first {
				first = false
				if len(ds) != 1 || ds[0].(map[string]any)["data"] != "keep-me" {
					t.Errorf("code action context diagnostics = %v, want the one on the line, as sent", ds)
				}
			}
			return []any{
				map[string]any{"title": "Add import \"fmt\"", "kind": "quickfix", "isPreferred": true, "agentlsServer": 7, "edit": map[string]any{"changes": map[string]any{
					lsptest.URI(a): []any{map[string]any{"range": lrng(1, 0, 1, 0), "newText": "import \"fmt\"\n"}},
				}}},
				map[string]any{"title": "Organize imports", "kind": "source.organizeImports", "agentlsServer": 7, "command": map[string]any{"title": "Organize", "command": "gopls.organize", "arguments": []any{"x"}}},
			}, nil
		case "workspace/executeCommand":
			return nil, nil
		}
		return nil, nil
	}
	s.Initialize(languageCaps(), nil, s.root)
	r := s.CallTool("code_action", map[string]any{"path": "a.go", "line": 3})
	want := "Code actions at a.go:3 (apply one with apply: its number or title):\n1. Add import \"fmt\" [quickfix] (preferred)\n2. Organize imports [source.organizeImports]\n"
	if r.Content != want {
		t.Errorf("list =\n%s\nwant\n%s", r.Content, want)
	}
	r = s.CallTool("code_action", map[string]any{"path": "a.go", "line": 3, "apply": "1"})
	if r.IsError {
		t.Fatalf("apply: %s", r.Content)
	}
	if got := s.disk("a.go"); got != "package a\nimport \"fmt\"\n\nfunc f() { fmt.Println() }\n" {
		t.Errorf("a.go after the quick fix = %q", got)
	}
	r = s.CallTool("code_action", map[string]any{"path": "a.go", "line": 4, "apply": "Organize imports"})
	if r.IsError {
		t.Fatalf("apply command: %s", r.Content)
	}
	mustContain(t, "command result", r.Content, "the editor ran the command gopls.organize")
	f.mu.Lock()
	last := f.requests[len(f.requests)-1]
	f.mu.Unlock()
	params := last["params"].(map[string]any)
	if last["method"] != "workspace/executeCommand" || params["command"] != "gopls.organize" || params["agentlsServer"] != float64(7) {
		t.Errorf("command request = %v", last)
	}
	r = s.CallTool("code_action", map[string]any{"path": "a.go", "line": 3, "apply": "9"})
	if !r.IsError || !strings.Contains(r.Content, "not an action number") {
		t.Errorf("apply 9: %+v", r)
	}
}

func TestEditorState(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.go": "package a\n\nfunc 😀x() {}\n", ".env": "SECRET=1\n"})
	a := s.path("a.go")
	s.Requests = map[string]func(json.RawMessage) (any, error){
		"agentls/editorState": func(json.RawMessage) (any, error) {
			return map[string]any{
				"documents": []any{
					map[string]any{"uri": lsptest.URI(a), "languageId": "go", "version": 3, "dirty": true},
					map[string]any{"uri": lsptest.URI(s.path(".env")), "languageId": "dotenv", "version": 1},
					map[string]any{"uri": "untitled:Untitled-1", "languageId": "plaintext", "version": 1},
				},
				"active": map[string]any{"uri": lsptest.URI(a), "cursor": map[string]any{"line": 2, "character": 7},
					"selections":   []any{lrng(2, 5, 2, 8)},
					"visibleRange": lrng(0, 0, 2, 0)},
			}, nil
		},
	}
	s.Initialize(languageCaps(), nil, s.root)
	r := s.CallTool("editor_state", map[string]any{})
	if r.IsError {
		t.Fatalf("editor_state: %s", r.Content)
	}
	mustContain(t, "editor_state", r.Content,
		"Active: a.go, cursor at line 3 column 7", // UTF-16 7 = "func " + the emoji (2 units)
		"Selection: lines 3:6 to 3:8\n```\n😀x\n```",
		"Visible: lines 1 to 3",
		"- a.go [go] (unsaved changes)",
		"- untitled:Untitled-1 [plaintext]")
	if strings.Contains(r.Content, ".env") {
		t.Errorf("editor_state shows a denied file: %s", r.Content)
	}
}

func TestWriteEndsWithTheEditorsDiagnostics(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.go": "package a\n\nfunc Old() {}\n"})
	var f fakeServers
	f.install(s.session())
	a := s.path("a.go")
	f.diags = func(p map[string]any) any {
		return map[string]any{"fresh": true, "items": []any{map[string]any{"uri": lsptest.URI(a), "diagnostics": []any{
			map[string]any{"range": lrng(2, 5, 2, 8), "severity": 1, "source": "compiler", "message": "New redeclared"},
		}}}}
	}
	s.Initialize(languageCaps(), map[string]any{"diagnostics": map[string]any{"waitMs": 700}}, s.root)
	s.Open(a, "package a\n\nfunc Old() {}\n")
	s.CallTool("read_file", map[string]any{"path": "a.go"})
	r := s.CallTool("edit_file", map[string]any{"path": "a.go", "old_string": "Old", "new_string": "New"})
	if r.IsError {
		t.Fatalf("edit_file: %s", r.Content)
	}
	mustContain(t, "edit result", r.Content, "the editor reports after the change:\na.go:3:6: error [compiler] New redeclared")
	f.mu.Lock()
	ask := f.diagAsks[len(f.diagAsks)-1]
	f.mu.Unlock()
	if ask["uri"] != lsptest.URI(a) || ask["version"] != float64(2) || ask["waitMs"] != float64(700) {
		t.Errorf("diagnostics asked with %v, want the uri, version 2 and waitMs 700", ask)
	}

	// No update within the wait: the result says so.
	f.mu.Lock()
	f.diags = func(map[string]any) any { return map[string]any{"fresh": false, "items": []any{}} }
	f.mu.Unlock()
	r = s.CallTool("edit_file", map[string]any{"path": "a.go", "old_string": "New", "new_string": "Newer"})
	mustContain(t, "edit result", r.Content, "no errors or warnings", "no diagnostics update for a.go within 700 ms")
}

func TestWriteWithoutTheCapabilityAsksNothing(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.go": "package a\n"})
	var f fakeServers
	f.install(s.session())
	s.Initialize(nil, nil, s.root)
	s.CallTool("read_file", map[string]any{"path": "a.go"})
	r := s.CallTool("edit_file", map[string]any{"path": "a.go", "old_string": "package a", "new_string": "package b"})
	if r.IsError || strings.Contains(r.Content, "editor reports") {
		t.Errorf("edit_file: %+v", r)
	}
	if len(f.diagAsks) != 0 {
		t.Errorf("diagnostics were asked of a client that did not offer them")
	}
}

func TestEditorThatNeverAnswersGivesABoundedError(t *testing.T) {
	s := start(t, lsp.Options{ApplyEditTimeout: 200 * time.Millisecond}, map[string]string{"a.go": "package a\n"})
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	block := func(json.RawMessage) (any, error) { <-never; return nil, nil }
	s.Requests = map[string]func(json.RawMessage) (any, error){
		"agentls/diagnostics": block, "agentls/languageRequest": block, "agentls/editorState": block,
	}
	s.Initialize(languageCaps(), nil, s.root)
	for _, call := range []struct {
		name string
		args map[string]any
	}{
		{"diagnostics", map[string]any{}},
		{"code_nav", map[string]any{"action": "definition", "path": "a.go", "line": 1, "symbol": "a"}},
		{"editor_state", map[string]any{}},
	} {
		r := s.CallTool(call.name, call.args)
		if !r.IsError || !strings.Contains(r.Content, "did not answer") {
			t.Errorf("%s with a silent editor: %+v", call.name, r)
		}
	}
}
