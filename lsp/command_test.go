package lsp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

type listResult struct {
	Workspace string `json:"workspace"`
	Revision  uint64 `json:"revision"`
	Digest    string `json:"digest"`
	Tools     []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		ReadOnly    bool            `json:"readOnly"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
}

func (l listResult) names() []string {
	var out []string
	for _, t := range l.Tools {
		out = append(out, t.Name)
	}
	return out
}

func TestListTools(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	s.Initialize(nil, nil, s.root)
	var a, b json.RawMessage
	if err := s.ExecuteCommand("agentls.listTools", map[string]any{}, &a); err != nil {
		t.Fatal(err)
	}
	if err := s.ExecuteCommand("agentls.listTools", map[string]any{"workspace": lsptest.URI(s.root)}, &b); err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("listTools bytes differ between calls")
	}
	var l listResult
	if err := json.Unmarshal(a, &l); err != nil {
		t.Fatal(err)
	}
	if l.Workspace != lsptest.URI(s.root) || len(l.Digest) != 64 || l.Revision == 0 {
		t.Errorf("listTools header: %+v", l)
	}
	names := l.names()
	if !slices.IsSorted(names) || !slices.Contains(names, "read_file") || !slices.Contains(names, "edit_file") {
		t.Errorf("tools = %v", names)
	}
	for _, tool := range l.Tools {
		if tool.Name == "read_file" && (!tool.ReadOnly || !strings.Contains(string(tool.InputSchema), `"path"`)) {
			t.Errorf("read_file entry: %+v", tool)
		}
	}
	if err := s.ExecuteCommand("agentls.listTools", map[string]any{"workspace": "file:///no/such/folder"}, nil); code(err) != -32602 {
		t.Errorf("listTools of an unknown folder: %v", err)
	}
}

func TestCallToolsInOrder(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"a.txt": "A\n", "b.txt": "B\n"})
	s.Initialize(nil, map[string]any{"approval": map[string]string{"zz_touch": "deny"}}, s.root)
	var res struct {
		Results []lsptest.Result `json:"results"`
	}
	err := s.ExecuteCommand("agentls.callTools", map[string]any{"calls": []any{
		map[string]any{"name": "read_file", "arguments": map[string]any{"path": "a.txt"}},
		map[string]any{"name": "zz_touch", "arguments": map[string]any{}},
		map[string]any{"name": "no_such_tool", "arguments": map[string]any{}},
		map[string]any{"name": "read_file", "arguments": map[string]any{"path": "b.txt"}},
	}}, &res)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Results
	if len(r) != 4 || r[0].IsError || !strings.Contains(r[0].Content, "A") || !r[1].IsError || !strings.Contains(r[1].Content, "denied") ||
		!r[2].IsError || r[3].IsError || !strings.Contains(r[3].Content, "B") {
		t.Errorf("results = %+v", r)
	}
	if err := s.ExecuteCommand("agentls.callTools", map[string]any{}, nil); code(err) != -32602 {
		t.Errorf("callTools without calls: %v", err)
	}
}

func TestFoldersAndRouting(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"one/x.txt": "in one\n", "two/x.txt": "in two\n"})
	one, two := s.path("one"), s.path("two")
	s.Initialize(nil, nil, one)
	// Relative paths go to the first folder.
	r := s.CallTool("read_file", map[string]any{"path": "x.txt"})
	mustContain(t, "read_file", r.Content, "in one")

	s.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{map[string]string{"uri": lsptest.URI(two), "name": "two"}}, "removed": []any{},
	}})
	// Routing by the workspace argument and by an absolute path.
	var r2 lsptest.Result
	s.ExecuteCommand("agentls.callTool", map[string]any{"name": "read_file", "arguments": map[string]any{"path": "x.txt"}, "workspace": lsptest.URI(two)}, &r2)
	mustContain(t, "by workspace", r2.Content, "in two")
	r = s.CallTool("read_file", map[string]any{"path": s.path("two/x.txt")})
	mustContain(t, "by path", r.Content, "in two")
	var echo struct {
		Folder string `json:"folder"`
	}
	s.ExecuteCommand("test.echo", map[string]any{"path": s.path("two/x.txt")}, &echo)
	if echo.Folder != lsptest.URI(two) {
		t.Errorf("extension command routed to %q", echo.Folder)
	}
	// An unknown folder is an error result.
	s.ExecuteCommand("agentls.callTool", map[string]any{"name": "read_file", "arguments": map[string]any{"path": "x.txt"}, "workspace": "file:///nowhere"}, &r2)
	if !r2.IsError {
		t.Errorf("unknown workspace: %+v", r2)
	}
	// Removing the first folder leaves the second.
	s.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{}, "removed": []any{map[string]string{"uri": lsptest.URI(one), "name": "one"}},
	}})
	r = s.CallTool("read_file", map[string]any{"path": "x.txt"})
	mustContain(t, "after removal", r.Content, "in two")
}

func TestSettings(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	config := map[string]any{"tools": map[string]any{"disabled": []string{"grep"}}}
	s.Config = func(scope, section string) any {
		if section != "agentls" {
			return nil
		}
		return config
	}
	s.Initialize(nil, map[string]any{"tools": map[string]any{"disabled": []string{"glob"}}, "saveAfterEdit": "yes"}, s.root)
	f := s.folder()
	reg := f.Registry()
	// The bad value is reported.
	s.WaitFor("showMessage about saveAfterEdit", func() bool {
		for _, m := range s.Received("window/showMessage") {
			if strings.Contains(string(m.Params), "saveAfterEdit") {
				return true
			}
		}
		return false
	})
	// The pulled configuration (after initialized) wins over the
	// initialization options.
	// Settings are applied at initialize and again after the pull.
	s.WaitFor("the pulled settings", func() bool { return len(s.Received("window/logMessage")) >= 2 })
	var l listResult
	s.ExecuteCommand("agentls.listTools", map[string]any{}, &l)
	if slices.Contains(l.names(), "grep") {
		t.Errorf("grep still listed: %v", l.names())
	}
	if !slices.Contains(l.names(), "glob") {
		t.Errorf("glob missing: %v", l.names())
	}
	digest := l.Digest
	config = map[string]any{"tools": map[string]any{"disabled": []string{}}}
	s.Notify("workspace/didChangeConfiguration", map[string]any{"settings": nil})
	s.WaitFor("the second pull", func() bool { return len(s.Received("window/logMessage")) >= 3 })
	s.ExecuteCommand("agentls.listTools", map[string]any{}, &l)
	if !slices.Contains(l.names(), "grep") {
		t.Errorf("grep not back: %v", l.names())
	}
	if l.Digest == digest {
		t.Errorf("digest did not change with the tool list")
	}
	if f.Registry() != reg {
		t.Errorf("the folder's registry was replaced; plugin tools in it would be lost")
	}
	// The settings watcher saw the initial object and both changes.
	var seen []string
	for len(s.settings) > 0 {
		seen = append(seen, <-s.settings)
	}
	if len(seen) != 3 || !strings.Contains(seen[0], "glob") || !strings.Contains(seen[1], "grep") || strings.Contains(seen[2], "grep") {
		t.Errorf("SettingsChanged got %q", seen)
	}
	r := s.CallTool("grep", map[string]any{"pattern": "x"})
	if r.IsError && strings.Contains(r.Content, "unknown tool") {
		t.Errorf("grep after re-enabling: %s", r.Content)
	}
}

func TestPushedSettings(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	caps := lsptest.VSCodeCapabilities()
	caps["workspace"].(map[string]any)["configuration"] = false
	s.Initialize(caps, nil, s.root)
	s.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"agentls": map[string]any{
		"tools": map[string]any{"disabled": []string{"ls"}}, "approval": map[string]string{"read_file": "sometimes"},
	}}})
	var l listResult
	s.ExecuteCommand("agentls.listTools", map[string]any{}, &l)
	if slices.Contains(l.names(), "ls") {
		t.Errorf("ls still listed after a pushed tools.disabled")
	}
	s.WaitFor("showMessage about approval", func() bool {
		for _, m := range s.Received("window/showMessage") {
			if strings.Contains(string(m.Params), "sometimes") {
				return true
			}
		}
		return false
	})
}

func TestNestedFoldersShareBuffers(t *testing.T) {
	s := start(t, lsp.Options{}, map[string]string{"outer/inner/x.txt": "disk\n"})
	outer, inner := s.path("outer"), s.path("outer/inner")
	s.Initialize(nil, nil, outer, inner)
	x := s.path("outer/inner/x.txt")
	s.Open(x, "buffer\n")
	for _, ws := range []string{outer, inner} {
		var r lsptest.Result
		s.ExecuteCommand("agentls.callTool", map[string]any{"name": "read_file", "arguments": map[string]any{"path": x}, "workspace": lsptest.URI(ws)}, &r)
		mustContain(t, "read_file in "+ws, r.Content, "buffer")
	}
}
