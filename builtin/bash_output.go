package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/agentls/agentls/registry"
)

const bashOutputDescription = "New output of a background shell since the last read, and its status. filter (RE2) keeps only matching lines."

const bashOutputSchema = `{
	"type": "object",
	"properties": {
		"shell_id": {"type": "string", "description": "id returned by bash with run_in_background"},
		"filter": {"type": "string", "description": "RE2 regexp; only matching lines are shown"}
	},
	"required": ["shell_id"],
	"additionalProperties": false
}`

type bashOutput struct{}

func init() { registry.RegisterBuiltin(bashOutput{}) }

func (bashOutput) Name() string            { return "bash_output" }
func (bashOutput) Description() string     { return bashOutputDescription }
func (bashOutput) Schema() json.RawMessage { return json.RawMessage(bashOutputSchema) }
func (bashOutput) ReadOnly() bool          { return true }

func (bashOutput) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		ShellID string `json:"shell_id"`
		Filter  string `json:"filter"`
	}
	if err := unmarshalArgs(args, &a); err != nil {
		return "", err
	}
	var re *regexp.Regexp
	if a.Filter != "" {
		var err error
		if re, err = regexp.Compile(a.Filter); err != nil {
			return "", fmt.Errorf("invalid filter: %w", err)
		}
	}
	j, err := job(ctx, a.ShellID)
	if err != nil {
		return "", err
	}
	return j.Read(re).String(), nil
}
