package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/registry"
)

const renameSymbolDescription = "Rename a symbol everywhere the editor's language server finds it, as one undoable edit (open files change in their buffers). Name it by path, line and the symbol (or column). Returns the files changed and a diff."

const renameSymbolSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "a file where the symbol is"},
		"line": {"type": "integer", "minimum": 1, "description": "its 1-based line"},
		"symbol": {"type": "string", "description": "the name on that line"},
		"column": {"type": "integer", "minimum": 1, "description": "1-based column in characters, instead of symbol"},
		"new_name": {"type": "string", "minLength": 1, "description": "the new name"}
	},
	"required": ["path", "line", "new_name"],
	"additionalProperties": false
}`

type renameSymbol struct{}

func init() { registry.RegisterBuiltin(renameSymbol{}) }

func (renameSymbol) Name() string            { return "rename_symbol" }
func (renameSymbol) Description() string     { return renameSymbolDescription }
func (renameSymbol) Schema() json.RawMessage { return json.RawMessage(renameSymbolSchema) }
func (renameSymbol) ReadOnly() bool          { return false }
func (renameSymbol) Requires() string        { return registry.FeatureLanguageRequest }

func (renameSymbol) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		positionArgs
		NewName string `json:"new_name"`
	}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(a.NewName) == "" {
		return "", fmt.Errorf("new_name is empty")
	}
	l, err := languages(s)
	if err != nil {
		return "", err
	}
	abs, at, err := a.resolve(s)
	if err != nil {
		return "", err
	}
	res, err := l.RenameSymbol(ctx, abs, at, a.NewName)
	if isNoServer(err) {
		return "", fmt.Errorf("no language server in the editor handles %s, so it cannot rename safely; use grep and multi_edit", s.WS.Rel(abs))
	}
	if err != nil {
		return "", err
	}
	what := "Renamed"
	if a.Symbol != "" {
		what = fmt.Sprintf("Renamed %s to %s", a.Symbol, a.NewName)
	}
	markApplied(s, res)
	return appliedReport(s.WS, what, res), nil
}
