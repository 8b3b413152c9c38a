package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/registry"
)

type echoTool struct{ name string }

func (e echoTool) Name() string        { return e.name }
func (e echoTool) Description() string { return "Echoes its text." }
func (e echoTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
}
func (e echoTool) ReadOnly() bool { return false }
func (e echoTool) Execute(_ context.Context, args json.RawMessage) (string, error) {
	var a struct{ Text string }
	json.Unmarshal(args, &a)
	return "echo " + a.Text, nil
}

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// Tools added to and removed from the registry while a client is connected
// (plugin servers starting, stopping) reach it as list changes.
func TestToolListFollowsRegistry(t *testing.T) {
	reg := registry.New()
	if err := reg.Add(echoTool{"first"}); err != nil {
		t.Fatal(err)
	}
	cs, changed := serve(t, t.TempDir(), reg, nil)
	if got := toolNames(t, cs); !slices.Equal(got, []string{"first"}) {
		t.Fatalf("tools at connect: %v", got)
	}
	wait := func(want []string) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			if got := toolNames(t, cs); slices.Equal(got, want) {
				return
			}
			select {
			case <-changed:
			case <-timeout:
				t.Fatalf("tools %v, want %v", toolNames(t, cs), want)
			}
		}
	}
	reg.Add(echoTool{"mcp__p__late"})
	wait([]string{"first", "mcp__p__late"})
	text, isErr := call(t, cs, "mcp__p__late", `{"text":"hi"}`)
	if isErr || text != "echo hi" {
		t.Fatalf("call of a tool added after connect: %q %v", text, isErr)
	}
	reg.SuspendPrefix("mcp__p__")
	wait([]string{"first"})
	reg.ResumePrefix("mcp__p__")
	wait([]string{"first", "mcp__p__late"})
}

// A gate decides before a call runs; a refused call is an error result the
// model reads, and the tool does not run.
func TestGate(t *testing.T) {
	reg := registry.New()
	reg.Add(echoTool{"echo"})
	var asked []string
	gate := func(_ context.Context, name string, args json.RawMessage) (registry.Result, bool) {
		asked = append(asked, name+" "+string(args))
		if strings.Contains(string(args), "no") {
			return registry.Result{IsError: true, Content: "the user denied echo"}, false
		}
		return registry.Result{}, true
	}
	cs, _ := serve(t, t.TempDir(), reg, gate)
	if text, isErr := call(t, cs, "echo", `{"text":"yes"}`); isErr || text != "echo yes" {
		t.Fatalf("allowed call: %q %v", text, isErr)
	}
	if text, isErr := call(t, cs, "echo", `{"text":"no"}`); !isErr || text != "the user denied echo" {
		t.Fatalf("refused call: %q %v", text, isErr)
	}
	if len(asked) != 2 {
		t.Fatalf("gate asked %d times: %v", len(asked), asked)
	}
}
