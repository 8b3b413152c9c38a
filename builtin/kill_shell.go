package builtin

import (
	"context"
	"encoding/json"

	"github.com/agentls/agentls/registry"
)

const killShellDescription = "Stop a background shell and its whole process group; returns its final status and unread output."

const killShellSchema = `{
	"type": "object",
	"properties": {
		"shell_id": {"type": "string", "description": "id returned by bash with run_in_background"}
	},
	"required": ["shell_id"],
	"additionalProperties": false
}`

type killShell struct{}

func init() { registry.RegisterBuiltin(killShell{}) }

func (killShell) Name() string            { return "kill_shell" }
func (killShell) Description() string     { return killShellDescription }
func (killShell) Schema() json.RawMessage { return json.RawMessage(killShellSchema) }
func (killShell) ReadOnly() bool          { return false }
func (killShell) Annotations() registry.Annotations {
	return registry.Annotations{Destructive: true, Idempotent: true}
}

func (killShell) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		ShellID string `json:"shell_id"`
	}
	if err := unmarshalArgs(args, &a); err != nil {
		return "", err
	}
	j, err := job(ctx, a.ShellID)
	if err != nil {
		return "", err
	}
	j.Kill()
	return j.Read(nil).String(), nil
}
