package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/lsp/lsptest"
)

// TestMCPAttachGetsTheEditorsLanguageTools: an agent attached through
// `agentls mcp --attach` to an editor that offers its language servers
// lists the tools backed by them and gets the editor's answers.
func TestMCPAttachGetsTheEditorsLanguageTools(t *testing.T) {
	runtime, root, e := attachSetup(t)
	file := filepath.Join(root, "main.go")
	if err := os.WriteFile(file, []byte("package main\n\nfunc main() { undefined() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Requests = map[string]func(json.RawMessage) (any, error){
		"agentls/diagnostics": func(json.RawMessage) (any, error) {
			return map[string]any{"items": []any{map[string]any{"uri": lsptest.URI(file), "diagnostics": []any{map[string]any{
				"range":    map[string]any{"start": map[string]any{"line": 2, "character": 14}, "end": map[string]any{"line": 2, "character": 23}},
				"severity": 1, "source": "compiler", "message": "undefined: undefined",
			}}}}}, nil
		},
	}
	caps := lsptest.VSCodeCapabilities()
	caps["experimental"] = map[string]any{"agentls": map[string]any{"saveDocument": true, "diagnostics": true, "languageRequest": true, "editorState": true}}
	e.Initialize(caps, nil, root)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cs := attachAgent(t, ctx, e, runtime, root)
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"diagnostics", "code_nav", "rename_symbol", "code_action", "editor_state"} {
		if !slices.Contains(names, want) {
			t.Errorf("the attached agent's tools lack %s: %v", want, names)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "diagnostics", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("diagnostics through attach: %v %+v", err, res)
	}
	got := res.Content[0].(*sdk.TextContent).Text
	if !strings.Contains(got, "main.go:3:15: error [compiler] undefined: undefined") {
		t.Errorf("diagnostics through attach = %q", got)
	}
}
