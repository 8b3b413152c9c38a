package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const codeActionDescription = "The editor's code actions for a line or range (quick fixes, refactorings, organize imports): without apply, lists them numbered; with apply (a number from the list or a title), applies one as an undoable edit and returns the diff."

const codeActionSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "the file"},
		"line": {"type": "integer", "minimum": 1, "description": "1-based first line"},
		"end_line": {"type": "integer", "minimum": 1, "description": "1-based last line (default line)"},
		"only": {"type": "string", "enum": ["quickfix", "refactor", "source"], "description": "only actions of this kind"},
		"apply": {"type": "string", "description": "the number or the exact title of the action to apply"}
	},
	"required": ["path", "line"],
	"additionalProperties": false
}`

type codeAction struct{}

func init() { registry.RegisterBuiltin(codeAction{}) }

func (codeAction) Name() string            { return "code_action" }
func (codeAction) Description() string     { return codeActionDescription }
func (codeAction) Schema() json.RawMessage { return json.RawMessage(codeActionSchema) }
func (codeAction) ReadOnly() bool          { return false }
func (codeAction) Requires() string        { return registry.FeatureLanguageRequest }

func (codeAction) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Path    string `json:"path"`
		Line    int    `json:"line"`
		EndLine int    `json:"end_line"`
		Only    string `json:"only"`
		Apply   string `json:"apply"`
	}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	l, err := languages(s)
	if err != nil {
		return "", err
	}
	abs, rel, err := s.WS.Resolve(a.Path)
	if err != nil {
		return "", err
	}
	end := max(a.EndLine, a.Line)
	last, ok := lineText(s.WS, abs, end)
	if !ok {
		if _, ok := lineText(s.WS, abs, 1); !ok {
			return "", fmt.Errorf("%s does not exist or cannot be read", rel)
		}
		return "", fmt.Errorf("line %d is past the end of %s", end, rel)
	}
	from := workspace.Pos{Line: a.Line, Col: 1}
	to := workspace.Pos{Line: end, Col: len([]rune(last)) + 1}
	actions, err := l.CodeActions(ctx, abs, from, to, a.Only)
	if isNoServer(err) {
		return "", fmt.Errorf("no language server in the editor handles %s, so it has no code actions", rel)
	}
	if err != nil {
		return "", err
	}
	span := fmt.Sprintf("%s:%d", rel, a.Line)
	if end != a.Line {
		span += fmt.Sprintf("-%d", end)
	}
	if len(actions) == 0 {
		return fmt.Sprintf("No code actions at %s.", span), nil
	}
	if a.Apply == "" {
		var b strings.Builder
		fmt.Fprintf(&b, "Code actions at %s (apply one with apply: its number or title):\n", span)
		for i, ac := range actions {
			fmt.Fprintf(&b, "%d. %s", i+1, ac.Title)
			if ac.Kind != "" {
				fmt.Fprintf(&b, " [%s]", ac.Kind)
			}
			if ac.Preferred {
				b.WriteString(" (preferred)")
			}
			if ac.Disabled != "" {
				fmt.Fprintf(&b, " (unavailable: %s)", ac.Disabled)
			}
			b.WriteByte('\n')
		}
		return b.String(), nil
	}
	pick := -1
	if n, err := strconv.Atoi(strings.TrimSpace(a.Apply)); err == nil {
		if n < 1 || n > len(actions) {
			return "", fmt.Errorf("apply: %d is not an action number; there are %d (1 to %d)", n, len(actions), len(actions))
		}
		pick = n - 1
	} else {
		for i, ac := range actions {
			if ac.Title == a.Apply {
				pick = i
				break
			}
		}
		if pick < 0 {
			var titles []string
			for _, ac := range actions {
				titles = append(titles, strconv.Quote(ac.Title))
			}
			return "", fmt.Errorf("apply: no action at %s is titled %q; there are: %s", span, a.Apply, strings.Join(titles, ", "))
		}
	}
	ac := actions[pick]
	if ac.Disabled != "" {
		return "", fmt.Errorf("%q cannot be applied now: %s", ac.Title, ac.Disabled)
	}
	res, err := l.ApplyCodeAction(ctx, abs, ac)
	if err != nil {
		return "", err
	}
	markApplied(s, res)
	return appliedReport(s.WS, "Applied "+strconv.Quote(ac.Title), res), nil
}
