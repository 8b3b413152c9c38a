package lsp_test

import (
	"strings"
	"sync"
	"testing"

	_ "github.com/agentls/agentls/builtin"
	"github.com/agentls/agentls/lsp"
)

// TestWebFetchAsksPerHost: in the editor web_fetch asks for each host
// (it can send what the read-only tools read anywhere); "Allow for this
// session" remembers the host only; webFetch.allowHosts pre-approves exact
// hosts and *.domain subdomains; clientConfirms skips the prompt for the
// client's own calls. (The fetches go to 127.0.0.1 and are refused by the
// address check once allowed: what counts is whether the user was asked.)
func TestWebFetchAsksPerHost(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	var mu sync.Mutex
	var asked []string
	answer := "Deny"
	s.Ask = func(msg string, actions []string) string {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, msg)
		return answer
	}
	s.Initialize(nil, map[string]any{"webFetch": map[string]any{"allowHosts": []string{"127.0.0.2", "*.localhost"}}}, s.root)
	fetch := func(url string) string {
		t.Helper()
		return s.CallTool("web_fetch", map[string]any{"url": url}).Content
	}
	if got := fetch("http://127.0.0.1:9/a"); !strings.Contains(got, "the user denied web_fetch from 127.0.0.1") {
		t.Errorf("denied fetch: %q", got)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "fetch from 127.0.0.1") {
		t.Errorf("prompt = %q", asked)
	}
	answer = "Allow for this session"
	if got := fetch("http://127.0.0.1:9/b"); strings.Contains(got, "denied") {
		t.Errorf("allowed fetch: %q", got)
	}
	answer = "Deny"
	if got := fetch("http://127.0.0.1:9/c"); strings.Contains(got, "user denied") {
		t.Errorf("the host allowed for the session was asked again: %q", got)
	}
	if got := fetch("http://[::1]:9/"); !strings.Contains(got, "user denied") {
		t.Errorf("another host was not asked: %q", got)
	}
	n := len(asked)
	for _, u := range []string{"http://127.0.0.2:9/", "http://api.localhost:9/"} {
		if got := fetch(u); strings.Contains(got, "user denied") {
			t.Errorf("%s in allowHosts was asked: %q", u, got)
		}
	}
	if len(asked) != n {
		t.Errorf("allowHosts hosts were asked: %q", asked[n:])
	}
}

func TestHostAllowed(t *testing.T) {
	pats := []string{"Example.com", "*.corp.example"}
	for host, want := range map[string]bool{
		"example.com": true, "EXAMPLE.COM.": true, "www.example.com": false,
		"a.corp.example": true, "a.b.corp.example": true, "corp.example": false, "evilcorp.example": false,
	} {
		if got := lsp.HostAllowed(pats, host); got != want {
			t.Errorf("HostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
}
