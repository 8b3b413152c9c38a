package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentlsCmd runs the test binary as agentls.
func agentlsCmd(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), "AGENTLS_TEST_MAIN=1", "XDG_CACHE_HOME="+t.TempDir())
	return cmd
}

func TestIndexCommand(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\n// F does.\nfunc F() {}\n\ntype T struct{}\n\nfunc (T) M() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := agentlsCmd(t, "index", "-C", dir, "--json", "--no-cache")
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	want := []indexLine{
		{Name: "F", Kind: "function", Path: "a.go", Line: 4},
		{Name: "T", Kind: "struct", Path: "a.go", Line: 6},
		{Name: "M", Kind: "method", Path: "a.go", Line: 8, Container: "T"},
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("index printed %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, l := range lines {
		var got indexLine
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d is not JSON: %q", i+1, l)
		}
		if got != want[i] {
			t.Errorf("line %d: %+v, want %+v", i+1, got, want[i])
		}
	}
	cmd = agentlsCmd(t, "index", "-C", filepath.Join(dir, "missing"))
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != exitUsage {
		t.Errorf("index of a missing folder: %v, want exit %d", err, exitUsage)
	}
}

// TestMCPCommand drives `agentls mcp --dir` with the go-sdk client over the
// process's stdio.
func TestMCPCommand(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\nbeta\n"), 0o644)
	cmd := agentlsCmd(t, "mcp", "--dir", dir)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) < 10 {
		t.Fatalf("tools/list: %v (%d tools)", err, len(list.Tools))
	}
	text := func(res *sdk.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			b.WriteString(c.(*sdk.TextContent).Text)
		}
		return b.String()
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "grep", Arguments: map[string]any{"pattern": "beta"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "notes.txt:2:beta") {
		t.Fatalf("grep: %v %q", err, text(res))
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "notes.txt", "content": "x"}})
	if err != nil || !res.IsError {
		t.Fatalf("write over an unread file was not refused: %v %q", err, text(res))
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(data) != "alpha\nbeta\n" {
		t.Fatalf("the refused write changed the file: %q", data)
	}
}

// TestMCPPipedCallsBeforeEOF feeds `agentls mcp` a whole conversation on a
// pipe that then ends, as `printf … | agentls mcp` does: every request
// read before the end of input is answered, the slow one too, and the
// process exits 0.
func TestMCPPipedCallsBeforeEOF(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ls","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 0.3; echo slow-done"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
	}, "\n") + "\n"
	cmd := agentlsCmd(t, "mcp", "--dir", dir)
	cmd.Stdin = strings.NewReader(input)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("agentls mcp on a pipe: %v", err)
	}
	got := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		got[m.ID] = string(m.Result)
	}
	for id, want := range map[int]string{1: `"tools"`, 2: "hello", 3: "a.txt", 4: "slow-done", 5: `"read_file"`} {
		if !strings.Contains(got[id], want) {
			t.Errorf("request %d: answer %q does not contain %s", id, got[id], want)
		}
	}
}

// TestMCPClonedRepositoryCannotAllowItself: a repository's
// .agentls/settings.json that allows every command and asks for
// askFallback "run" gets nothing from `agentls mcp`: the command is still
// refused (this client cannot be asked), and the file's own deny list
// holds. The user's settings file does allow what it names.
func TestMCPClonedRepositoryCannotAllowItself(t *testing.T) {
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(repo, ".agentls", "settings.json"),
		[]byte(`{"bash": {"allow": ["*", "touch"], "askFallback": "run", "deny": ["echo"]}, "approval": {"bash": "allow"}}`), 0o644)
	cfg := t.TempDir()
	os.MkdirAll(filepath.Join(cfg, "agentls"), 0o755)
	os.WriteFile(filepath.Join(cfg, "agentls", "settings.json"), []byte(`{"bash": {"allow": ["mkdir"]}}`), 0o644)

	cmd := agentlsCmd(t, "mcp", "--dir", repo)
	cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+cfg)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
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
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "touch pwned.txt"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), filepath.Join(cfg, "agentls", "settings.json")) {
		t.Fatalf("the repository allowed itself a command: %v %q", err, text(res))
	}
	if _, err := os.Stat(filepath.Join(repo, "pwned.txt")); err == nil {
		t.Fatal("the command ran")
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo hi"}})
	if err != nil || !res.IsError {
		t.Fatalf("the repository's bash.deny did not hold: %v %q", err, text(res))
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "mkdir made"}})
	if err != nil || res.IsError {
		t.Fatalf("the user's bash.allow did not hold: %v %q", err, text(res))
	}
	cs.Close()
	cmd.Wait()
	if !strings.Contains(errOut.String(), "bash.allow (a workspace cannot allow commands)") {
		t.Errorf("the ignored settings were not reported: %q", errOut.String())
	}
}
