package lsp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/registry"
)

type plugTool struct {
	name string
	ann  registry.Annotations
}

func (p plugTool) Name() string            { return p.name }
func (p plugTool) Description() string     { return "a plugin tool" }
func (p plugTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (p plugTool) ReadOnly() bool          { return false }
func (p plugTool) Annotations() registry.Annotations {
	return p.ann
}
func (p plugTool) Execute(context.Context, json.RawMessage) (string, error) { return "", nil }

// The gate's default comes from what the tool says of itself, not from its
// name: a writing plugin asks, one that asks per call itself runs, as bash.
func TestApprovalModeFromAnnotations(t *testing.T) {
	reg := registry.New()
	for _, tl := range []registry.Tool{
		plugTool{name: "zz_writes"},
		plugTool{name: "zz_asks_itself", ann: registry.Annotations{AsksPerCall: true}},
	} {
		if err := reg.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"zz_writes": "ask", "zz_asks_itself": "allow", "zz_unknown": "allow"} {
		if got := approvalMode(settings{}, reg, name); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if got := approvalMode(settings{Approval: map[string]string{"zz_asks_itself": "deny"}}, reg, "zz_asks_itself"); got != "deny" {
		t.Errorf("the setting does not win over the annotation: %s", got)
	}
	bash, ok := registry.LookupBuiltin("bash")
	if !ok || !registry.AnnotationsOf(bash).AsksPerCall {
		t.Error("bash does not say it asks per call")
	}
}
