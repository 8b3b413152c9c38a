package builtin

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentls/agentls/registry"
)

const waitDescription = "Wait until a background shell ends or timeout_seconds (default 30, max 600) pass; returns its status and new output."

const waitSchema = `{
	"type": "object",
	"properties": {
		"shell_id": {"type": "string", "description": "id returned by bash with run_in_background"},
		"timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 600, "description": "default 30"}
	},
	"required": ["shell_id"],
	"additionalProperties": false
}`

// Bounds of one wait.
const (
	defaultWait = 30 * time.Second
	maxWait     = 600 * time.Second
)

type wait struct{}

func init() { registry.RegisterBuiltin(wait{}) }

func (wait) Name() string            { return "wait" }
func (wait) Description() string     { return waitDescription }
func (wait) Schema() json.RawMessage { return json.RawMessage(waitSchema) }
func (wait) ReadOnly() bool          { return true }

func (wait) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		ShellID        string `json:"shell_id"`
		TimeoutSeconds *int   `json:"timeout_seconds"`
	}
	if err := unmarshalArgs(args, &a); err != nil {
		return "", err
	}
	d := defaultWait
	if a.TimeoutSeconds != nil {
		d = min(max(time.Duration(*a.TimeoutSeconds)*time.Second, time.Second), maxWait)
	}
	j, err := job(ctx, a.ShellID)
	if err != nil {
		return "", err
	}
	if !j.Wait(ctx, d) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
	}
	return j.Read(nil).String(), nil
}
