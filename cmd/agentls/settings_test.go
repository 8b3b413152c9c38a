package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/lsp/lsptest"
)

// TestServeSettingsLayers runs an editor session with the user's settings
// file, the editor's settings and the workspace's file: the editor wins
// over the user file, the workspace file only tightens, and what it may
// not say is shown to the user.
func TestServeSettingsLayers(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	os.MkdirAll(filepath.Join(cfg, "agentls"), 0o755)
	os.WriteFile(filepath.Join(cfg, "agentls", "settings.json"),
		[]byte(`{"bash": {"allow": ["mkdir"], "deny": ["echo"]}}`), 0o644)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(root, ".agentls", "settings.json"),
		[]byte(`{"bash": {"allow": ["*"]}, "tools": {"disabled": ["web_fetch"]}}`), 0o644)

	e := lsptest.New(t, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
		return serveLSP(ctx, slog.New(slog.DiscardHandler), r, w, c)
	})
	settings := map[string]any{"bash": map[string]any{"allow": []string{"touch"}}}
	e.Config = func(string, string) any { return settings }
	var mu sync.Mutex
	var asked []string
	e.Ask = func(msg string, actions []string) string {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, msg)
		return "Deny"
	}
	e.Initialize(lsptest.VSCodeCapabilities(), settings, root)
	e.Sync()

	if r := e.CallTool("bash", map[string]any{"command": "touch editor-allowed"}); r.IsError {
		t.Fatalf("the editor's bash.allow: %q", r.Content)
	}
	// The editor's bash.allow replaces the file's: mkdir is asked.
	if r := e.CallTool("bash", map[string]any{"command": "mkdir d"}); !r.IsError {
		t.Fatalf("the user file's bash.allow was not replaced by the editor's: %q", r.Content)
	}
	mu.Lock()
	if len(asked) != 1 || !strings.Contains(asked[0], "mkdir d") {
		t.Errorf("questions: %q", asked)
	}
	mu.Unlock()
	// The file's bash.deny stays (the editor did not set one).
	if r := e.CallTool("bash", map[string]any{"command": "echo hi"}); !r.IsError {
		t.Fatalf("the user file's bash.deny: %q", r.Content)
	}
	// The workspace disabled web_fetch; its bash.allow ["*"] is ignored
	// and the user is told.
	if r := e.CallTool("web_fetch", map[string]any{"url": "http://127.0.0.1:1/"}); !r.IsError || !strings.Contains(r.Content, "web_fetch") {
		t.Fatalf("web_fetch disabled by the workspace: %q", r.Content)
	}
	e.WaitFor("a message about the ignored workspace setting", func() bool {
		for _, m := range e.Received("window/showMessage") {
			var p struct{ Message string }
			json.Unmarshal(m.Params, &p)
			if strings.Contains(p.Message, "bash.allow (a workspace cannot allow commands)") {
				return true
			}
		}
		return false
	})
}
