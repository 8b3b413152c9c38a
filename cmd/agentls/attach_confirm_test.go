package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/lsp/lsptest"
)

// TestMCPAttachClientConfirms: the editor sets clientConfirms (VS Code
// does: it confirms its own agent's calls), yet the calls of an agent
// attached through `agentls mcp --attach` never pass the editor's UI, so
// they follow agentls.approval and ask with window/showMessageRequest:
// bash's `touch PWNED` and write_file (approval "ask") are put to the user,
// who denies, and nothing is written. The editor's own call still runs
// unasked.
func TestMCPAttachClientConfirms(t *testing.T) {
	runtime, root, e := attachSetup(t)
	settings := map[string]any{"clientConfirms": true, "approval": map[string]string{"write_file": "ask"}}
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
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cs := attachAgent(t, ctx, e, runtime, root)
	text := func(res *sdk.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			b.WriteString(c.(*sdk.TextContent).Text)
		}
		return b.String()
	}
	asked := func(want string) {
		t.Helper()
		qmu.Lock()
		defer qmu.Unlock()
		for _, q := range questions {
			if strings.Contains(q, want) {
				return
			}
		}
		t.Errorf("no question in the editor names %q; asked: %q", want, questions)
	}

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "touch PWNED"}})
	if err != nil || !res.IsError {
		t.Errorf("attached bash touch PWNED: %v %q", err, text(res))
	}
	asked("touch PWNED")
	if _, err := os.Stat(filepath.Join(root, "PWNED")); err == nil {
		t.Fatal("the attached agent's bash ran without asking")
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "new.txt", "content": "x"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "the user denied write_file") {
		t.Errorf("attached write_file: %v %q", err, text(res))
	}
	asked("new.txt")
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Fatal("the attached agent's write_file wrote without asking")
	}

	// The editor's own agent: VS Code confirmed the call, nothing is asked.
	qmu.Lock()
	n := len(questions)
	qmu.Unlock()
	if r := e.CallTool("write_file", map[string]any{"path": "mine.txt", "content": "x\n"}); r.IsError {
		t.Errorf("the editor's own write_file: %s", r.Content)
	}
	qmu.Lock()
	if len(questions) != n {
		t.Errorf("the editor's own call was asked again: %q", questions[n:])
	}
	qmu.Unlock()
}
