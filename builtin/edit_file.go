package builtin

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const editFileDescription = "Replace old_string with new_string in a file you have read. old_string must match exactly one place (add surrounding lines) unless replace_all. Returns a diff."

const editFileSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "file path, relative to the workspace root"},
		"old_string": {"type": "string", "description": "text to replace, copied exactly (without line-number prefixes)"},
		"new_string": {"type": "string", "description": "replacement text"},
		"replace_all": {"type": "boolean", "description": "replace every occurrence (default false)"}
	},
	"required": ["path", "old_string", "new_string"],
	"additionalProperties": false
}`

type editFile struct{}

func init() { registry.RegisterBuiltin(editFile{}) }

func (editFile) Name() string            { return "edit_file" }
func (editFile) Description() string     { return editFileDescription }
func (editFile) Schema() json.RawMessage { return json.RawMessage(editFileSchema) }
func (editFile) ReadOnly() bool          { return false }

func (editFile) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Path       string `json:"path"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	abs, rel, err := s.WS.ResolveWrite(a.Path)
	if err != nil {
		return "", err
	}
	var out editOutcome
	before, after, res, err := changeFile(ctx, s, abs, func(f *workspace.File) (string, error) {
		out, err = applyEdit(rel, f.Text, a.OldString, a.NewString, a.ReplaceAll)
		return out.Text, err
	})
	if err != nil {
		return "", err
	}
	summary := fmt.Sprintf("Edited %s: replaced %s%s.", rel, plural(out.Count, "occurrence"), matchNote(out.Kind))
	if after == before.Text {
		summary += " The text already read that way: nothing was written."
	}
	return report(summary, shortDiff(rel, before.Text, after, maxDiffLines), res.Note), nil
}

// matchNote tells the model when its old_string matched only loosely, so it
// can copy text more exactly next time.
func matchNote(k matchKind) string {
	switch k {
	case matchStripped:
		return " (after removing the line-number prefixes from old_string)"
	case matchLoose:
		return " (matched ignoring differences in indentation and trailing spaces)"
	}
	return ""
}
