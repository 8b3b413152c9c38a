package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	_ "github.com/agentls/agentls/builtin"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

// connect serves a standalone MCP session on dir with the built-in tools
// in process and returns a go-sdk client connected to it.
func connect(t *testing.T, dir string) *sdk.ClientSession {
	t.Helper()
	reg, err := registry.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := serve(t, dir, reg, nil)
	return cs
}

// serve runs a server on reg (calls pass gate) in a session on dir and
// returns a connected client whose tool-list-changed notifications arrive
// on changed.
func serve(t *testing.T, dir string, reg *registry.Registry, gate mcp.Gate) (cs *sdk.ClientSession, changed chan struct{}) {
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
	srv := mcp.NewServer(reg, sess, "test", nil)
	srv.SetGate(gate)
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Run(ctx, st); close(done) }()
	changed = make(chan struct{}, 16)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err = client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); cancel(); <-done })
	return cs, changed
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.(*sdk.TextContent).Text)
	}
	return b.String(), res.IsError
}

func TestStandaloneSession(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\n// TODO: fix\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("canary-content\n"), 0o644)
	cs := connect(t, dir)

	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	for _, tl := range list.Tools {
		byName[tl.Name] = tl
	}
	for _, s := range registry.Builtins() {
		if registry.Requires(s) != "" {
			continue // offered only to an editor that provides the feature
		}
		tl, ok := byName[s.Name()]
		if !ok {
			t.Fatalf("tools/list lacks %s", s.Name())
		}
		if tl.Annotations == nil || tl.Annotations.ReadOnlyHint != s.ReadOnly() {
			t.Errorf("%s: readOnlyHint does not match the registry", s.Name())
		}
	}
	if d := byName["delete_file"].Annotations.DestructiveHint; d == nil || !*d {
		t.Errorf("delete_file is not marked destructive")
	}
	// The other hints are the tools' own annotations.
	for name, want := range map[string]registry.Annotations{
		"bash":       {Destructive: true, OpenWorld: true},
		"web_fetch":  {OpenWorld: true},
		"write_file": {Idempotent: true},
		"edit_file":  {},
	} {
		a := byName[name].Annotations
		if got := a.OpenWorldHint != nil && *a.OpenWorldHint; got != want.OpenWorld {
			t.Errorf("%s: openWorldHint %v, want %v", name, got, want.OpenWorld)
		}
		if a.ReadOnlyHint {
			continue
		}
		if got := a.DestructiveHint != nil && *a.DestructiveHint; got != want.Destructive {
			t.Errorf("%s: destructiveHint %v, want %v", name, got, want.Destructive)
		}
		if a.IdempotentHint != want.Idempotent {
			t.Errorf("%s: idempotentHint %v, want %v", name, a.IdempotentHint, want.Idempotent)
		}
	}
	// The input schema is the registry's canonical bytes.
	reg, _ := registry.NewBuiltin()
	for _, sc := range reg.Schemas() {
		got, _ := json.Marshal(byName[sc.Name].InputSchema)
		want, _ := registry.Canonicalize(sc.InputSchema)
		if canon, _ := registry.Canonicalize(got); string(canon) != string(want) {
			t.Errorf("%s: inputSchema %s, want %s", sc.Name, got, want)
		}
	}

	if out, isErr := call(t, cs, "read_file", `{"path":"a.go"}`); isErr || !strings.Contains(out, "func A()") {
		t.Fatalf("read_file: %v %q", isErr, out)
	}
	if out, isErr := call(t, cs, "grep", `{"pattern":"TODO"}`); isErr || !strings.Contains(out, "a.go:3:") {
		t.Fatalf("grep: %v %q", isErr, out)
	}
	// Read-before-write holds per connection: a file written on disk
	// behind the agent's back must be read again.
	if out, isErr := call(t, cs, "edit_file", `{"path":"a.go","old_string":"func A() {}","new_string":"func A() int { return 1 }"}`); isErr {
		t.Fatalf("edit after read: %q", out)
	}
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc B() {}\n"), 0o644)
	if out, isErr := call(t, cs, "edit_file", `{"path":"a.go","old_string":"func B() {}","new_string":"func C() {}"}`); !isErr || !strings.Contains(out, "changed") {
		t.Fatalf("stale edit not refused: %v %q", isErr, out)
	}
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x\n"), 0o644)
	if out, isErr := call(t, cs, "edit_file", `{"path":"new.txt","old_string":"x","new_string":"y"}`); !isErr || !strings.Contains(out, "read") {
		t.Fatalf("edit without read not refused: %v %q", isErr, out)
	}
	// A path escape is an error result and reads nothing.
	if out, isErr := call(t, cs, "read_file", `{"path":"`+outside+`"}`); !isErr || strings.Contains(out, "canary-content") {
		t.Fatalf("escape not refused: %v %q", isErr, out)
	}
	if out, isErr := call(t, cs, "read_file", `{"path":"../x"}`); !isErr {
		t.Fatalf("../ not refused: %q", out)
	}
	// A schema violation is an error result naming the pointer.
	if out, isErr := call(t, cs, "read_file", `{"path":7}`); !isErr || !strings.Contains(out, "/path") {
		t.Fatalf("schema violation: %v %q", isErr, out)
	}
	if data, _ := os.ReadFile(outside); string(data) != "canary-content\n" {
		t.Fatal("the file outside changed")
	}
}
