package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/config"
	"github.com/agentls/agentls/registry"
)

// A standalone connection has no editor to put approval questions to. It
// asks the user through the MCP client instead, when the client offers
// elicitation: the call returns an input request (the go-sdk turns it into
// an elicitation/create request for clients older than the 2026-07-28
// protocol) and runs again with the answer. Nothing runs before the
// answer: a tool asks before it acts, and its first run stops at the
// question.

// The choices offered; "for this session" remembers the exact question
// for the rest of the connection.
const (
	choiceAllow   = "Allow"
	choiceSession = "Allow for this session"
	choiceDeny    = "Deny"
)

const askInputID = "approval"

var askSchema = json.RawMessage(`{"type":"object","properties":{"decision":{"type":"string","title":"Decision","enum":["` +
	choiceAllow + `","` + choiceSession + `","` + choiceDeny + `"]}},"required":["decision"]}`)

// errNeedsInput stops a call's first run at its question.
var errNeedsInput = errors.New("waiting for the user's answer through the MCP client")

// maxPending bounds the questions awaiting an answer per connection.
const maxPending = 64

// asker holds a standalone connection's approval state.
type asker struct {
	mu      sync.Mutex
	session map[string]bool   // questions allowed for the rest of the connection
	pending map[string]string // request state → question asked
	order   []string          // pending keys, oldest first
}

// callAsk is one tool call's view of the asker: what the client can do,
// and the answer it brought back, if any.
type callAsk struct {
	canElicit bool
	answered  string // the question the answer is for
	allow     bool
	session   bool   // the answer was "Allow for this session"
	asked     string // set when the run stopped at a question
}

type callAskKey struct{}

// AskThroughClient makes the server put the session's approval questions
// (Session.Ask: a bash command outside bash.allow) and the "ask" mode of
// the approval setting to the MCP client's user, for a standalone
// connection with no editor. Call it before serving.
func (s *Server) AskThroughClient() {
	s.ask = &asker{session: map[string]bool{}, pending: map[string]string{}}
	s.sess.Ask = s.askQuestion
	s.gate = s.approvalGate
}

// askQuestion is the standalone session's Session.Ask.
func (s *Server) askQuestion(ctx context.Context, question string) (bool, error) {
	c, _ := ctx.Value(callAskKey{}).(*callAsk)
	if c == nil {
		return false, errors.New("no MCP call to ask through")
	}
	s.ask.mu.Lock()
	remembered := s.ask.session[question]
	if c.answered == question && c.session && c.allow {
		s.ask.session[question] = true
	}
	s.ask.mu.Unlock()
	switch {
	case remembered:
		return true, nil
	case c.answered == question:
		return c.allow, nil
	case !c.canElicit:
		var fallback string
		if s.sess.Setting("bash.askFallback", &fallback) && fallback == "run" {
			return true, nil
		}
		return false, noAskError(question)
	}
	c.asked = question
	return false, errNeedsInput
}

// noAskError tells the model, and through it the user, how to allow what
// could not be asked.
func noAskError(question string) error {
	example := `"go test"`
	if cmd := questionCommand(question); cmd != "" {
		example = fmt.Sprintf("%q", cmd)
	}
	return fmt.Errorf("this MCP client cannot ask the user (it does not offer elicitation), and the settings do not allow this; "+
		"the user can allow it in %s with a line like {\"bash\": {\"allow\": [%s]}}, or start agentls mcp with --settings '{\"bash\":{\"allow\":[%s]}}'",
		config.UserPath(), example, example)
}

var plainWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./:=+-]+$`) }) // compiled at first use

// questionCommand returns a bash.allow pattern for the command a bash
// question names (its first two plain words), or "".
func questionCommand(question string) string {
	_, rest, ok := strings.Cut(question, "`")
	if !ok {
		return ""
	}
	cmd, _, ok := strings.Cut(rest, "`")
	if !ok {
		return ""
	}
	var words []string
	for _, w := range strings.Fields(cmd) {
		if !plainWord().MatchString(w) || len(words) == 2 {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// withAsk prepares a call for asking: it reads the answer the client
// brought back (a retried call) and puts the call's state in ctx.
func (s *Server) withAsk(ctx context.Context, req *sdk.CallToolRequest) (context.Context, *callAsk) {
	if s.ask == nil {
		return ctx, nil
	}
	c := &callAsk{}
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil {
			e := p.Capabilities.Elicitation
			c.canElicit = e.Form != nil || e.URL == nil
		}
	}
	if req.Params != nil && req.Params.RequestState != "" {
		s.ask.mu.Lock()
		q, ok := s.ask.pending[req.Params.RequestState]
		delete(s.ask.pending, req.Params.RequestState)
		s.ask.mu.Unlock()
		if res, _ := req.Params.InputResponses[askInputID].(*sdk.ElicitResult); ok && res != nil {
			c.answered = q
			if res.Action == "accept" {
				switch d, _ := res.Content["decision"].(string); d {
				case choiceAllow:
					c.allow = true
				case choiceSession:
					c.allow, c.session = true, true
				}
			}
		}
	}
	return context.WithValue(ctx, callAskKey{}, c), c
}

// inputRequest is the result that asks the client for the user's answer
// to the question the call stopped at.
func (s *Server) inputRequest(question string) *sdk.CallToolResult {
	var b [12]byte
	rand.Read(b[:])
	state := hex.EncodeToString(b[:])
	s.ask.mu.Lock()
	s.ask.pending[state] = question
	s.ask.order = append(s.ask.order, state)
	for len(s.ask.order) > maxPending {
		delete(s.ask.pending, s.ask.order[0])
		s.ask.order = s.ask.order[1:]
	}
	s.ask.mu.Unlock()
	return &sdk.CallToolResult{
		InputRequests: sdk.InputRequestMap{askInputID: &sdk.ElicitParams{
			Mode:            "form",
			Message:         question,
			RequestedSchema: askSchema,
		}},
		RequestState: state,
	}
}

// approvalGate applies the approval setting ({"approval": {"write_file":
// "ask"}}) to a standalone connection: deny refuses, ask asks through the
// client, allow (and no setting) runs.
func (s *Server) approvalGate(ctx context.Context, name string, args json.RawMessage) (registry.Result, bool) {
	var mode string
	s.sess.Setting("approval."+name, &mode)
	switch mode {
	case "deny":
		return registry.Result{IsError: true, Content: fmt.Sprintf("%s is denied by the user's settings (approval.%s = \"deny\"); do not call it again, and tell the user what you wanted to do instead", name, name)}, false
	case "ask":
		if c, _ := ctx.Value(callAskKey{}).(*callAsk); c != nil && !c.canElicit {
			return registry.Result{IsError: true, Content: fmt.Sprintf("%s needs the user's approval (approval.%s = \"ask\"), and this MCP client cannot ask the user (it does not offer elicitation); "+
				"the user can allow it in %s with a line like {\"approval\": {%q: \"allow\"}}", name, name, config.UserPath(), name)}, false
		}
		ok, err := s.askQuestion(ctx, fmt.Sprintf("Allow agentls to run %s with %s?", name, summarize(args)))
		if errors.Is(err, errNeedsInput) {
			return registry.Result{}, false
		}
		if err != nil {
			return registry.Result{IsError: true, Content: fmt.Sprintf("%s was not run: %v", name, err)}, false
		}
		if !ok {
			return registry.Result{IsError: true, Content: fmt.Sprintf("the user denied %s; do not retry it unchanged, ask the user how to proceed", name)}, false
		}
	}
	return registry.Result{}, true
}

// summarize shortens a call's arguments for a question.
func summarize(args json.RawMessage) string {
	s := strings.TrimSpace(string(args))
	if s == "" {
		s = "{}"
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
