package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/registry"
)

// TestMain doubles as the plugin MCP server of the tests: with
// AGENTLS_TEST_MCP_SERVER set, this binary serves two tools on stdio.
func TestMain(m *testing.M) {
	if os.Getenv("AGENTLS_TEST_MCP_SERVER") != "" {
		// The gate file lets a test keep the server down: without it, the
		// server exits at once.
		if gate := os.Getenv("AGENTLS_TEST_MCP_GATE"); gate != "" {
			if _, err := os.Stat(gate); err != nil {
				os.Exit(4)
			}
		}
		runTestServer()
		return
	}
	os.Exit(m.Run())
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

func runTestServer() {
	srv := sdk.NewServer(&sdk.Implementation{Name: "testserver", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echo text back."},
		func(ctx context.Context, req *sdk.CallToolRequest, in echoArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "crash", Description: "Exit the server."},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	srv.Run(context.Background(), &sdk.StdioTransport{})
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestPluginTools(t *testing.T) {
	defer mcp.SetBackoffForTest(10*time.Millisecond, 50*time.Millisecond)()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	builtinRev := reg.Revision()
	builtinDigest := reg.Digest()
	gate := t.TempDir() + "/gate"
	os.WriteFile(gate, nil, 0o600)
	p := mcp.StartPlugins(reg, map[string]mcp.ServerConfig{
		"test":   {Command: exe, Env: map[string]string{"AGENTLS_TEST_MCP_SERVER": "1", "AGENTLS_TEST_MCP_GATE": gate}},
		"bad/na": {Command: exe},
	}, nil)
	defer p.Close()

	has := func(name string) bool { _, ok := reg.Get(name); return ok }
	waitFor(t, "the plugin tools", func() bool { return has("mcp__test__echo") && has("mcp__test__crash") })
	if !strings.Contains(p.Status()["bad/na"], "refused") {
		t.Errorf("a bad server name was not refused: %q", p.Status()["bad/na"])
	}
	if reg.Revision() == builtinRev || reg.Digest() == builtinDigest {
		t.Error("adding plugin tools did not change revision and digest")
	}
	ctx := context.Background()
	res := reg.Call(ctx, "mcp__test__echo", json.RawMessage(`{"text":"hi"}`))
	if res.IsError || !strings.Contains(res.Content, "echo: hi") {
		t.Fatalf("echo: %+v", res)
	}
	if tl, _ := reg.Get("mcp__test__echo"); tl.ReadOnly() {
		t.Error("a plugin tool claims to be read-only")
	}
	// Schema validation applies to plugin tools too.
	if res := reg.Call(ctx, "mcp__test__echo", json.RawMessage(`{"text":5}`)); !res.IsError {
		t.Fatalf("schema violation passed: %+v", res)
	}

	// The server dies and cannot restart: its tools are suspended, the
	// digest changes, and a call says which server is missing.
	connected := reg.Digest()
	os.Remove(gate)
	reg.Call(ctx, "mcp__test__crash", nil)
	waitFor(t, "the suspension", func() bool { return !has("mcp__test__echo") })
	if reg.Digest() == connected {
		t.Error("the digest did not change when the tools were suspended")
	}
	res = reg.Call(ctx, "mcp__test__echo", json.RawMessage(`{"text":"hi"}`))
	if !res.IsError || !strings.Contains(res.Content, "mcp__test__") || !strings.Contains(res.Content, "disconnected") {
		t.Fatalf("a call to a suspended tool: %+v", res)
	}
	// It is restarted and its tools come back.
	os.WriteFile(gate, nil, 0o600)
	waitFor(t, "the reconnection", func() bool {
		return has("mcp__test__echo") && strings.HasPrefix(p.Status()["test"], "connected")
	})
	res = reg.Call(ctx, "mcp__test__echo", json.RawMessage(`{"text":"again"}`))
	if res.IsError || !strings.Contains(res.Content, "echo: again") {
		t.Fatalf("echo after reconnection: %+v", res)
	}

	p.Close()
	if has("mcp__test__echo") {
		t.Error("Close left plugin tools in the registry")
	}
}
