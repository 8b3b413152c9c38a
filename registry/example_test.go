package registry_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/registry"
)

type greet struct{}

func (greet) Name() string        { return "greet" }
func (greet) Description() string { return "Say hello." }
func (greet) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string"}},"additionalProperties":false}`)
}
func (greet) ReadOnly() bool { return true }
func (greet) Execute(_ context.Context, args json.RawMessage) (string, error) {
	var a struct{ Name string }
	if err := json.Unmarshal(args, &a); err != nil {
		return "", err
	}
	return "hello, " + a.Name, nil
}

func ExampleRegistry_Call() {
	r := registry.New()
	if err := r.Add(greet{}); err != nil {
		panic(err)
	}
	fmt.Println(string(r.Schemas()[0].InputSchema))

	ctx := context.Background()
	fmt.Println(r.Call(ctx, "greet", json.RawMessage(`{"name":"editor"}`)).Content)
	res := r.Call(ctx, "greet", json.RawMessage(`{"nmae":"editor"}`))
	fmt.Println(res.IsError)
	fmt.Println(res.Content)
	fmt.Println(r.Call(ctx, "greeet", nil).Content)
	// Output:
	// {"additionalProperties":false,"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}
	// hello, editor
	// true
	// invalid arguments for greet:
	// - /: missing required property "name"
	// - /: unknown property "nmae" (allowed: name)
	// Fix the arguments to match the tool's input schema and call it again.
	// unknown tool "greeet"; did you mean greet?
}
