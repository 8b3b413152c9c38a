package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

// askServer serves a standalone session on dir with settings, asking
// through the client, to a client that speaks protocolVersion ("" for
// the SDK's latest) and answers elicitations with answer (nil: it offers
// no elicitation). It returns the client and the questions it was asked.
func askServer(t *testing.T, dir, settings, protocolVersion string, answer func(msg string) string) (*sdk.ClientSession, func() []string) {
	t.Helper()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := workspace.NewSession(ws, workspace.DiskEditor{WS: ws}, workspace.NewReadTracker())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	if err := sess.SetSettings(json.RawMessage(settings)); err != nil {
		t.Fatal(err)
	}
	reg, err := registry.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(reg, sess, "test", nil)
	srv.AskThroughClient()
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Run(ctx, st); close(done) }()
	var mu sync.Mutex
	var asked []string
	opts := &sdk.ClientOptions{}
	if answer != nil {
		opts.ElicitationHandler = func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params.Message)
			mu.Unlock()
			d := answer(req.Params.Message)
			if d == "" {
				return &sdk.ElicitResult{Action: "cancel"}, nil
			}
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": d}}, nil
		}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, opts)
	cs, err := client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); cancel(); <-done })
	return cs, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
}

// TestAskThroughElicitation: a command outside bash.allow is put to the
// user through the client, on the protocol of 2025-06-18 (the server sends
// elicitation/create) and on the SDK's latest (an input-required result
// the client answers and retries). Nothing runs before the answer.
func TestAskThroughElicitation(t *testing.T) {
	for _, version := range []string{"2025-06-18", ""} {
		t.Run("protocol "+version, func(t *testing.T) {
			dir := t.TempDir()
			decision := "Deny"
			cs, asked := askServer(t, dir, `{}`, version, func(string) string { return decision })
			out, isErr := call(t, cs, "bash", `{"command":"touch denied.txt"}`)
			if !isErr || !strings.Contains(out, "declined") {
				t.Fatalf("denied command: %v %q", isErr, out)
			}
			if _, err := os.Stat(filepath.Join(dir, "denied.txt")); err == nil {
				t.Fatal("a denied command ran")
			}
			if q := asked(); len(q) != 1 || !strings.Contains(q[0], "touch denied.txt") {
				t.Fatalf("questions: %q", q)
			}

			decision = "Allow"
			if out, isErr := call(t, cs, "bash", `{"command":"touch once.txt"}`); isErr {
				t.Fatalf("allowed command: %q", out)
			}
			if _, err := os.Stat(filepath.Join(dir, "once.txt")); err != nil {
				t.Fatal("an allowed command did not run")
			}
			// Allow is for this call only: the same command asks again.
			os.Remove(filepath.Join(dir, "once.txt"))
			call(t, cs, "bash", `{"command":"touch once.txt"}`)
			if n := len(asked()); n != 3 {
				t.Fatalf("Allow was remembered: %d questions", n)
			}

			decision = "Allow for this session"
			call(t, cs, "bash", `{"command":"touch session.txt"}`)
			decision = "Deny"
			os.Remove(filepath.Join(dir, "session.txt"))
			if out, isErr := call(t, cs, "bash", `{"command":"touch session.txt"}`); isErr {
				t.Fatalf("a command allowed for the session was refused: %q", out)
			}
			if n := len(asked()); n != 4 {
				t.Fatalf("Allow for this session asked again: %d questions", n)
			}
			if _, err := os.Stat(filepath.Join(dir, "session.txt")); err != nil {
				t.Fatal("the command allowed for the session did not run")
			}

			// A dismissed question is a refusal.
			decision = ""
			if out, isErr := call(t, cs, "bash", `{"command":"touch cancelled.txt"}`); !isErr || !strings.Contains(out, "declined") {
				t.Fatalf("cancelled question: %v %q", isErr, out)
			}
		})
	}
}

// TestAskWithoutElicitation: with a client that cannot ask, a command
// outside bash.allow is refused with the settings file and a line to put
// there; bash.allow and askFallback "run" let it run; approval "ask" and
// "deny" of other tools hold too.
func TestAskWithoutElicitation(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/home/someone/.cfg")
	dir := t.TempDir()
	cs, _ := askServer(t, dir, `{"approval": {"write_file": "ask", "delete_file": "deny"}}`, "", nil)
	out, isErr := call(t, cs, "bash", `{"command":"touch made.txt"}`)
	if !isErr || !strings.Contains(out, "/home/someone/.cfg/agentls/settings.json") || !strings.Contains(out, `{"bash": {"allow": ["touch made.txt"]}}`) {
		t.Fatalf("refusal without elicitation: %v %q", isErr, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Fatal("the refused command ran")
	}
	out, isErr = call(t, cs, "write_file", `{"path":"w.txt","content":"x"}`)
	if !isErr || !strings.Contains(out, `{"approval": {"write_file": "allow"}}`) {
		t.Fatalf("approval ask without elicitation: %v %q", isErr, out)
	}
	out, isErr = call(t, cs, "delete_file", `{"path":"w.txt"}`)
	if !isErr || !strings.Contains(out, "denied by the user's settings") {
		t.Fatalf("approval deny: %v %q", isErr, out)
	}

	for _, settings := range []string{`{"bash": {"allow": ["touch"]}}`, `{"bash": {"askFallback": "run"}}`} {
		dir := t.TempDir()
		cs, _ := askServer(t, dir, settings, "", nil)
		if out, isErr := call(t, cs, "bash", `{"command":"touch made.txt"}`); isErr {
			t.Fatalf("with %s: %q", settings, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "made.txt")); err != nil {
			t.Fatalf("with %s the command did not run", settings)
		}
	}
}
