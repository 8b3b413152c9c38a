package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/lsp/lsptest"
)

// TestMCPAttachToEditorSession runs the editor side (the fake editor
// driving the server the binary serves) and `agentls mcp --attach` in the
// same temp workspace: the attached agent reads the unsaved buffer, and its
// edit reaches the editor as workspace/applyEdit.
func TestMCPAttachToEditorSession(t *testing.T) {
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	file := filepath.Join(root, "main.go")
	if err := os.WriteFile(file, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	e := lsptest.New(t, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
		return serveLSP(ctx, logger, r, w, c)
	})
	// The user's approval settings hold for the attached agent too.
	settings := map[string]any{"approval": map[string]string{"write_file": "ask", "delete_file": "deny"}}
	e.Config = func(string, string) any { return settings }
	var questions []string
	var qmu sync.Mutex
	e.Ask = func(msg string, actions []string) string {
		qmu.Lock()
		defer qmu.Unlock()
		questions = append(questions, msg)
		return "Deny"
	}
	e.Initialize(lsptest.VSCodeCapabilities(), settings, root)
	e.Open(file, "package main\n\n// unsaved comment\nfunc main() {}\n")
	e.Sync()

	// The lock file appears when the folder's session starts.
	e.WaitFor("the attach lock file", func() bool {
		m, _ := filepath.Glob(filepath.Join(runtime, "agentls", "agentls-*.json"))
		return len(m) == 1
	})

	cmd := agentlsCmd(t, "mcp", "--attach", "--dir", root)
	cmd.Env = append(cmd.Env, "XDG_RUNTIME_DIR="+runtime)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	text := func(res *sdk.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			b.WriteString(c.(*sdk.TextContent).Text)
		}
		return b.String()
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "main.go"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "unsaved comment") {
		t.Fatalf("read_file through attach does not see the buffer: %v %q", err, text(res))
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "edit_file", Arguments: map[string]any{
		"path": "main.go", "old_string": "// unsaved comment", "new_string": "// edited by the attached agent"}})
	if err != nil || res.IsError {
		t.Fatalf("edit_file through attach: %v %q", err, text(res))
	}
	if len(e.Received("workspace/applyEdit")) == 0 {
		t.Fatal("the edit did not reach the editor as workspace/applyEdit")
	}
	if got, _, _ := e.Text(file); !strings.Contains(got, "edited by the attached agent") {
		t.Fatalf("the editor's buffer: %q", got)
	}
	// The buffer was dirty: the agent never saves it; disk is unchanged.
	if data, _ := os.ReadFile(file); strings.Contains(string(data), "attached agent") {
		t.Fatal("a dirty buffer was saved to disk")
	}

	// write_file asks the user in the editor (who denies); delete_file is
	// denied by the settings without asking.
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "new.txt", "content": "x"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "the user denied write_file") {
		t.Fatalf("write_file through attach with approval ask/Deny: %v %q", err, text(res))
	}
	qmu.Lock()
	if len(questions) != 1 || !strings.Contains(questions[0], "write_file") || !strings.Contains(questions[0], "new.txt") {
		t.Errorf("questions asked in the editor: %q", questions)
	}
	qmu.Unlock()
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Fatal("a denied write_file wrote the file")
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "main.go"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "denied by the user's settings") {
		t.Fatalf("delete_file through attach with approval deny: %v %q", err, text(res))
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal("a denied delete_file deleted the file")
	}
}
