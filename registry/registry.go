// Package registry holds the Tool interface, the process-global set of
// built-in tools, and the per-session *Registry that agents see: canonical
// schemas, argument validation, calls and batches.
//
// registry knows nothing about LSP, MCP or the workspace; the per-call
// environment travels in the context.
package registry

import (
	"context"
	"encoding/json"
)

// Tool is one tool an agent can call. Built-ins are stateless: everything a
// call needs (workspace, editor, session) comes from ctx.
type Tool interface {
	Name() string
	Description() string
	Schema() json.RawMessage // JSON Schema of the arguments
	Execute(ctx context.Context, args json.RawMessage) (string, error)
	ReadOnly() bool // no observable side effects
}

// Result is what a call returns to the agent. Tool failures (unknown tool,
// schema violation, refused path, error returned by Execute, panic) are
// results with IsError set, never Go errors.
type Result struct {
	Content string `json:"content"`
	IsError bool   `json:"isError"`
}

// Schema is one entry of a registry's tool list. InputSchema holds the
// canonical bytes stored by Add; callers must not modify them.
type Schema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	ReadOnly    bool            `json:"readOnly"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// BatchCall is one call of RunBatch.
type BatchCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}
