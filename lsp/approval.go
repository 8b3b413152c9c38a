package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/registry"
)

// Answers of an approval prompt.
const (
	answerAllow        = "Allow"
	answerAllowSession = "Allow for this session"
	answerDeny         = "Deny"
)

// approvalMode is the server-level gate of a tool: the setting
// agentls.approval.<tool>, else the default: read-only and built-in tools
// allow, a tool that asks per call itself (registry.Annotations.AsksPerCall:
// bash's command policy) allows, any other tool (a plugin that writes)
// asks.
func approvalMode(st settings, reg *registry.Registry, name string) string {
	if m, ok := st.Approval[name]; ok {
		return m
	}
	t, ok := reg.Get(name)
	if !ok || t.ReadOnly() || registry.AnnotationsOf(t).AsksPerCall {
		return "allow" // an unknown tool gets the registry's own error
	}
	if _, builtin := registry.LookupBuiltin(name); builtin {
		return "allow"
	}
	return "ask"
}

// Approve applies the folder's approval gate (agentls.approval settings,
// prompts in the editor) to a call that reaches the folder by another way
// than the LSP connection (an attached MCP client). clientConfirms does not
// apply: the client confirms only the calls its own UI makes, and an
// attached agent's calls never pass through that UI. When the call may not
// run, res is the error result the model reads.
func (f *Folder) Approve(ctx context.Context, name string, args json.RawMessage) (res registry.Result, ok bool) {
	return f.srv.approve(ctx, f, f.Registry(), name, args, false)
}

// AskAttached is the Ask of an attached agent's session (bash asks per
// command through it): always a prompt in the editor, whatever
// clientConfirms says (see Approve).
func (f *Folder) AskAttached(ctx context.Context, question string) (bool, error) {
	return f.srv.ask(ctx, f, question, question)
}

// approve applies the gate to one call; when the call may not run, res is
// the error result the model reads. viaClient says the call came from the
// client itself (workspace/executeCommand), whose own confirmation counts
// when it sets clientConfirms.
func (s *Server) approve(ctx context.Context, f *Folder, reg *registry.Registry, name string, args json.RawMessage, viaClient bool) (res registry.Result, ok bool) {
	var st settings
	if f != nil {
		st = f.currentSettings()
	} else {
		s.mu.Lock()
		st = s.global
		s.mu.Unlock()
	}
	mode := approvalMode(st, reg, name)
	if _, set := st.Approval[name]; name == "web_fetch" && !set {
		// web_fetch is read-only, but it can send what the other tools
		// read anywhere: by default the user allows each host.
		return s.approveFetch(ctx, f, st, args, viaClient)
	}
	switch mode {
	case "allow":
		return res, true
	case "deny":
		return registry.Result{IsError: true, Content: fmt.Sprintf("%s is denied by the user's settings (agentls.approval.%s = \"deny\"); do not call it again, and tell the user what you wanted to do instead", name, name)}, false
	}
	if st.ClientConfirms && viaClient {
		return res, true
	}
	question := fmt.Sprintf("Allow agentls to run %s%s?", name, callSummary(args))
	allowed, err := s.ask(ctx, f, name, question)
	if err != nil {
		return registry.Result{IsError: true, Content: fmt.Sprintf("%s was not run: %v", name, err)}, false
	}
	if !allowed {
		return registry.Result{IsError: true, Content: fmt.Sprintf("the user denied %s; do not retry it unchanged, ask the user how to proceed", name)}, false
	}
	return res, true
}

// approveFetch is the default gate of web_fetch in the editor: a host in
// webFetch.allowHosts ("example.com", or "*.example.com" for its
// subdomains) runs at once, as does a call the client confirmed itself
// (clientConfirms, through its own UI); otherwise the user is asked, and
// "Allow for this session" allows the host for the session.
func (s *Server) approveFetch(ctx context.Context, f *Folder, st settings, args json.RawMessage, viaClient bool) (registry.Result, bool) {
	var a struct {
		URL string `json:"url"`
	}
	json.Unmarshal(args, &a)
	u, err := url.Parse(a.URL)
	if err != nil || u.Hostname() == "" {
		return registry.Result{}, true // the tool gives its own error for a bad URL
	}
	host := strings.ToLower(u.Hostname())
	var allowHosts []string
	if f != nil && f.Session != nil {
		f.Session.Setting("webFetch.allowHosts", &allowHosts)
	}
	if st.ClientConfirms && viaClient || HostAllowed(allowHosts, host) {
		return registry.Result{}, true
	}
	question := fmt.Sprintf("Allow agentls to fetch from %s (web_fetch %s)?", host, a.URL)
	allowed, err := s.ask(ctx, f, "web_fetch host "+host, question)
	if err != nil {
		return registry.Result{IsError: true, Content: fmt.Sprintf("web_fetch was not run: %v", err)}, false
	}
	if !allowed {
		return registry.Result{IsError: true, Content: fmt.Sprintf("the user denied web_fetch from %s; do not retry it, ask the user how to proceed", host)}, false
	}
	return registry.Result{}, true
}

// HostAllowed reports whether host matches one of patterns: a host name
// exactly, or "*.example.com" for every subdomain of example.com (not
// example.com itself). Case does not matter.
func HostAllowed(patterns []string, host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, p := range patterns {
		p = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(p)), ".")
		if suffix, ok := strings.CutPrefix(p, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if p != "" && host == p {
			return true
		}
	}
	return false
}

// callSummary names what a call acts on, for the prompt.
func callSummary(args json.RawMessage) string {
	var a map[string]json.RawMessage
	json.Unmarshal(args, &a)
	for _, key := range []string{"command", "path", "source", "url", "shell_id"} {
		var v string
		if json.Unmarshal(a[key], &v) == nil && v != "" {
			if len(v) > 200 {
				v = v[:200] + "…"
			}
			return ": `" + v + "`"
		}
	}
	return ""
}

// askSession is the folder session's Ask (bash asks per command through it).
func (s *Server) askSession(ctx context.Context, f *Folder, question string) (bool, error) {
	if f.currentSettings().ClientConfirms {
		return true, nil
	}
	return s.ask(ctx, f, question, question)
}

var errNoAnswer = errors.New("the user did not answer the approval prompt in time")

// ask puts question to the user with window/showMessageRequest. key is
// what "Allow for this session" remembers (a tool name or a question).
func (s *Server) ask(ctx context.Context, f *Folder, key, question string) (bool, error) {
	if f != nil {
		f.allowMu.Lock()
		ok := f.allowed[key]
		f.allowMu.Unlock()
		if ok {
			return true, nil
		}
	}
	actx, cancel := context.WithTimeout(ctx, s.opts.AskTimeout)
	defer cancel()
	var answer *protocol.MessageActionItem
	err := s.conn.Call(actx, "window/showMessageRequest", protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeInfo,
		Message: question,
		Actions: []protocol.MessageActionItem{{Title: answerAllow}, {Title: answerAllowSession}, {Title: answerDeny}},
	}, &answer)
	switch {
	case err != nil && ctx.Err() != nil:
		return false, ctx.Err()
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		return false, fmt.Errorf("%w (%s)", errNoAnswer, s.opts.AskTimeout)
	case err != nil:
		return false, fmt.Errorf("cannot ask the user for approval: %v", err)
	case answer == nil:
		return false, nil // dismissed
	}
	switch strings.TrimSpace(answer.Title) {
	case answerAllow:
		return true, nil
	case answerAllowSession:
		if f != nil {
			f.allowMu.Lock()
			f.allowed[key] = true
			f.allowMu.Unlock()
		}
		return true, nil
	}
	return false, nil
}
