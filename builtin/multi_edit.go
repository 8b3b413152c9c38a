package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const multiEditDescription = "Apply several edit_file edits to one file you have read, in order, each seeing the result of the previous ones. All or none: if one fails, nothing changes. Returns a diff."

const multiEditSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "file path, relative to the workspace root"},
		"edits": {
			"type": "array",
			"description": "applied in order",
			"minItems": 1,
			"items": {
				"type": "object",
				"properties": {
					"old_string": {"type": "string", "description": "text to replace, as edit_file"},
					"new_string": {"type": "string", "description": "replacement text"},
					"replace_all": {"type": "boolean", "description": "replace every occurrence (default false)"}
				},
				"required": ["old_string", "new_string"],
				"additionalProperties": false
			}
		}
	},
	"required": ["path", "edits"],
	"additionalProperties": false
}`

type multiEdit struct{}

func init() { registry.RegisterBuiltin(multiEdit{}) }

func (multiEdit) Name() string            { return "multi_edit" }
func (multiEdit) Description() string     { return multiEditDescription }
func (multiEdit) Schema() json.RawMessage { return json.RawMessage(multiEditSchema) }
func (multiEdit) ReadOnly() bool          { return false }

func (multiEdit) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Path  string `json:"path"`
		Edits []struct {
			OldString  string `json:"old_string"`
			NewString  string `json:"new_string"`
			ReplaceAll bool   `json:"replace_all"`
		} `json:"edits"`
	}
	if err := unmarshalArgs(args, &a); err != nil {
		return "", err
	}
	if len(a.Edits) == 0 {
		return "", fmt.Errorf("edits is empty: give at least one {old_string, new_string}")
	}
	s, err := workspace.From(ctx)
	if err != nil {
		return "", err
	}
	abs, rel, err := s.WS.ResolveWrite(a.Path)
	if err != nil {
		return "", err
	}
	counts := make([]string, len(a.Edits))
	loose := false
	before, after, res, err := changeFile(ctx, s, abs, func(f *workspace.File) (string, error) {
		text := f.Text
		for i, e := range a.Edits {
			out, err := applyEdit(rel, text, e.OldString, e.NewString, e.ReplaceAll)
			if err != nil {
				return "", fmt.Errorf("edit %d of %d failed, so none was applied and %s is unchanged: %w", i+1, len(a.Edits), rel, err)
			}
			text = out.Text
			counts[i] = fmt.Sprint(out.Count)
			loose = loose || out.Kind != matchExact
		}
		return text, nil
	})
	if err != nil {
		return "", err
	}
	summary := fmt.Sprintf("Edited %s: %s applied (replacements per edit: %s)", rel, plural(len(a.Edits), "edit"), strings.Join(counts, ", "))
	if loose {
		summary += "; some old_strings matched only ignoring whitespace or line-number prefixes"
	}
	summary += "."
	if after == before.Text {
		summary += " Together they change nothing: nothing was written."
	}
	return report(summary, shortDiff(rel, before.Text, after, maxDiffLines), res.Note), nil
}
