package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const editorStateDescription = "What the user has open in the editor: open files (unsaved ones marked), the active file with its cursor, selections and visible lines, so you can act on \"this function\" or \"the selection\"."

const editorStateSchema = `{"type": "object", "properties": {}, "additionalProperties": false}`

type editorState struct{}

func init() { registry.RegisterBuiltin(editorState{}) }

func (editorState) Name() string            { return "editor_state" }
func (editorState) Description() string     { return editorStateDescription }
func (editorState) Schema() json.RawMessage { return json.RawMessage(editorStateSchema) }
func (editorState) ReadOnly() bool          { return true }
func (editorState) Requires() string        { return registry.FeatureEditorState }

func (editorState) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct{}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	l, err := languages(s)
	if err != nil {
		return "", err
	}
	st, err := l.State(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	name := func(abs, fallback string) string {
		if abs == "" {
			return fallback
		}
		return showPath(s.WS, abs)
	}
	if st.Active == nil {
		b.WriteString("No active editor.\n")
	} else {
		ac := st.Active
		fmt.Fprintf(&b, "Active: %s, cursor at line %d column %d\n", name(ac.Abs, "(no file)"), ac.Cursor.Line, ac.Cursor.Col)
		for _, sel := range ac.Selections {
			fmt.Fprintf(&b, "Selection: lines %d:%d to %d:%d", sel.Start.Line, sel.Start.Col, sel.End.Line, sel.End.Col)
			if ac.Abs != "" && s.WS.Contains(ac.Abs) {
				if text := selectionText(s.WS, ac.Abs, sel); text != "" {
					fmt.Fprintf(&b, "\n%s", text)
				}
			}
			b.WriteByte('\n')
		}
		if ac.Visible != nil {
			fmt.Fprintf(&b, "Visible: lines %d to %d\n", ac.Visible.Start.Line, ac.Visible.End.Line)
		}
	}
	if len(st.Documents) > 0 {
		b.WriteString("Open:\n")
		for _, d := range st.Documents {
			mark := ""
			if d.Dirty {
				mark = " (unsaved changes)"
			}
			lang := ""
			if d.Language != "" {
				lang = " [" + d.Language + "]"
			}
			fmt.Fprintf(&b, "- %s%s%s\n", name(d.Abs, d.Name), lang, mark)
		}
	}
	return b.String(), nil
}

// selectionText is the selected text, cut at 40 lines, as a fenced block.
func selectionText(ws *workspace.Workspace, abs string, sel workspace.Location) string {
	f, err := ws.ReadFile(abs)
	if err != nil {
		return ""
	}
	lines := strings.Split(f.Text, "\n")
	if sel.Start.Line < 1 || sel.Start.Line > len(lines) {
		return ""
	}
	end := min(sel.End.Line, len(lines))
	var parts []string
	for n := sel.Start.Line; n <= end; n++ {
		rs := []rune(lines[n-1])
		from, to := 0, len(rs)
		if n == sel.Start.Line {
			from = min(max(sel.Start.Col-1, 0), len(rs))
		}
		if n == sel.End.Line {
			to = min(max(sel.End.Col-1, from), len(rs))
		}
		parts = append(parts, string(rs[from:to]))
		if len(parts) == 40 {
			parts = append(parts, fmt.Sprintf("… %d more lines", end-n))
			break
		}
	}
	return "```\n" + strings.Join(parts, "\n") + "\n```"
}
