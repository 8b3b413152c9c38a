package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const notebookEditDescription = "Edit a cell of a Jupyter notebook (.ipynb) you have read: replace its source, insert a new cell (after cell_id, at cell_number, or at the end) or delete one. Editing a code cell clears its outputs."

const notebookEditSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "notebook path, relative to the workspace root"},
		"cell_id": {"type": "string", "description": "the cell's id"},
		"cell_number": {"type": "integer", "minimum": 0, "description": "the cell's index, 0-based"},
		"new_source": {"type": "string", "description": "the cell's new source"},
		"cell_type": {"type": "string", "enum": ["code", "markdown", "raw"], "description": "type of an inserted cell (default code), or the new type of a replaced one"},
		"edit_mode": {"type": "string", "enum": ["replace", "insert", "delete"], "description": "default replace"}
	},
	"required": ["path"],
	"additionalProperties": false
}`

type notebookEdit struct{}

func init() { registry.RegisterBuiltin(notebookEdit{}) }

func (notebookEdit) Name() string            { return "notebook_edit" }
func (notebookEdit) Description() string     { return notebookEditDescription }
func (notebookEdit) Schema() json.RawMessage { return json.RawMessage(notebookEditSchema) }
func (notebookEdit) ReadOnly() bool          { return false }

func (notebookEdit) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Path       string  `json:"path"`
		CellID     string  `json:"cell_id"`
		CellNumber *int    `json:"cell_number"`
		NewSource  *string `json:"new_source"`
		CellType   string  `json:"cell_type"`
		EditMode   string  `json:"edit_mode"`
	}
	if err := unmarshalArgs(args, &a); err != nil {
		return "", err
	}
	e := nbEdit{mode: a.EditMode, cellID: a.CellID, number: a.CellNumber, source: a.NewSource, cellType: a.CellType}
	switch e.mode {
	case "":
		e.mode = "replace"
	case "replace", "insert", "delete":
	default:
		return "", fmt.Errorf("edit_mode %q is not one of replace, insert, delete", e.mode)
	}
	s, err := workspace.From(ctx)
	if err != nil {
		return "", err
	}
	abs, rel, err := s.WS.ResolveWrite(a.Path)
	if err != nil {
		return "", err
	}
	var r nbResult
	_, _, res, err := changeFile(ctx, s, abs, func(f *workspace.File) (string, error) {
		r, err = editNotebook(f.Text, e)
		if err != nil {
			return "", fmt.Errorf("%s: %w", rel, err)
		}
		return r.Text, nil
	})
	if err != nil {
		return "", err
	}
	cell := fmt.Sprintf("cell %d", r.Index)
	if r.ID != "" {
		cell += fmt.Sprintf(" (id %s)", r.ID)
	}
	var summary string
	switch e.mode {
	case "insert":
		summary = fmt.Sprintf("Inserted %s %s in %s.", r.Type, cell, rel)
	case "delete":
		summary = fmt.Sprintf("Deleted %s %s from %s.", r.Type, cell, rel)
	default:
		summary = fmt.Sprintf("Replaced %s %s in %s.", r.Type, cell, rel)
		if r.TypeChange != "" {
			summary = fmt.Sprintf("Replaced %s in %s, now a %s cell (was %s).", cell, rel, r.Type, r.TypeChange)
		}
		if r.Cleared {
			summary += " Its outputs and execution count were cleared."
		}
	}
	label := fmt.Sprintf("%s cell %d", rel, r.Index)
	return report(summary, shortDiff(label, endLine(r.OldSource), endLine(r.NewSource), maxDiffLines), res.Note), nil
}

// endLine ends a cell's source with a newline, as cells usually are not, so
// that their diff is not strewn with "No newline at end of file".
func endLine(src string) string {
	if src == "" || strings.HasSuffix(src, "\n") {
		return src
	}
	return src + "\n"
}
