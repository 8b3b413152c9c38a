package lsp_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/lsp"
)

func TestApprovals(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	var mu sync.Mutex
	var asked []string
	answer := "Deny"
	s.Ask = func(msg string, actions []string) string {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, msg)
		if strings.Join(actions, "|") != "Allow|Allow for this session|Deny" {
			t.Errorf("actions = %v", actions)
		}
		return answer
	}
	s.Initialize(nil, map[string]any{"approval": map[string]string{"zz_touch": "ask", "read_file": "deny"}}, s.root)

	r := s.CallTool("zz_touch", map[string]any{"path": "x.txt"})
	if !r.IsError || !strings.Contains(r.Content, "denied") {
		t.Errorf("denied call: %+v", r)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "zz_touch: `x.txt`") {
		t.Errorf("prompt = %q", asked)
	}
	r = s.CallTool("read_file", map[string]any{"path": "x.txt"})
	if !r.IsError || !strings.Contains(r.Content, `"deny"`) {
		t.Errorf("deny setting: %+v", r)
	}

	answer = "Allow"
	if r = s.CallTool("zz_touch", map[string]any{}); r.IsError {
		t.Errorf("allowed call: %+v", r)
	}
	answer = "Allow for this session"
	s.CallTool("zz_touch", map[string]any{})
	answer = "Deny"
	if r = s.CallTool("zz_touch", map[string]any{}); r.IsError {
		t.Errorf("call after Allow for this session: %+v", r)
	}
	if len(asked) != 3 {
		t.Errorf("asked %d times, want 3 (none after Allow for this session)", len(asked))
	}

	// The session's Ask (bash asks per command through it) uses the same prompt.
	answer = "Allow"
	if r = s.CallTool("zz_ask", map[string]any{}); r.IsError || r.Content != "ran" {
		t.Errorf("tool asking through the session: %+v", r)
	}
	if !strings.Contains(asked[len(asked)-1], "make deploy") {
		t.Errorf("session prompt = %q", asked[len(asked)-1])
	}
}

func TestApprovalTimeoutAndClientConfirms(t *testing.T) {
	s := start(t, lsp.Options{AskTimeout: 1}, nil)
	hold := make(chan struct{})
	defer close(hold)
	s.Ask = func(string, []string) string { <-hold; return "" }
	s.Initialize(nil, map[string]any{"approval": map[string]string{"zz_touch": "ask"}}, s.root)
	r := s.CallTool("zz_touch", map[string]any{})
	if !r.IsError || !strings.Contains(r.Content, "did not answer") {
		t.Errorf("unanswered prompt: %+v", r)
	}

	s2 := start(t, lsp.Options{}, nil)
	s2.Ask = func(string, []string) string { t.Error("asked although the client confirms"); return "" }
	s2.Initialize(nil, map[string]any{"approval": map[string]string{"zz_touch": "ask"}, "clientConfirms": true}, s2.root)
	if r := s2.CallTool("zz_touch", map[string]any{}); r.IsError {
		t.Errorf("clientConfirms: %+v", r)
	}
	if r := s2.CallTool("zz_ask", map[string]any{}); r.IsError {
		t.Errorf("clientConfirms, session ask: %+v", r)
	}
}
