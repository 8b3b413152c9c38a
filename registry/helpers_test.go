package registry

import (
	"context"
	"encoding/json"
)

// fakeTool is a Tool whose behaviour each test chooses.
type fakeTool struct {
	name, desc string
	schema     string
	readOnly   bool
	exec       func(ctx context.Context, args json.RawMessage) (string, error)
}

func (t *fakeTool) Name() string            { return t.name }
func (t *fakeTool) Description() string     { return t.desc }
func (t *fakeTool) Schema() json.RawMessage { return json.RawMessage(t.schema) }
func (t *fakeTool) ReadOnly() bool          { return t.readOnly }
func (t *fakeTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	if t.exec == nil {
		return "ok " + string(args), nil
	}
	return t.exec(ctx, args)
}

func mustAdd(t interface {
	Helper()
	Fatal(...any)
}, r *Registry, tools ...Tool) {
	t.Helper()
	for _, tool := range tools {
		if err := r.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
}
