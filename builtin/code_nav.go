package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const codeNavDescription = "Go to definition, type definition, implementations or references of a symbol, or its hover (type and docs), from the editor's language servers (compiler-grade, unsaved buffers included). Name the place by path, line and the symbol on that line (or column). Returns path:line: text lines."

const codeNavSchema = `{
	"type": "object",
	"properties": {
		"action": {"type": "string", "enum": ["definition", "type_definition", "implementation", "references", "hover"], "description": "what to find"},
		"path": {"type": "string", "description": "the file where the symbol is"},
		"line": {"type": "integer", "minimum": 1, "description": "its 1-based line"},
		"symbol": {"type": "string", "description": "the name on that line"},
		"column": {"type": "integer", "minimum": 1, "description": "1-based column in characters, instead of symbol"},
		"limit": {"type": "integer", "minimum": 1, "description": "most locations (default 50)"}
	},
	"required": ["action", "path", "line"],
	"additionalProperties": false
}`

type codeNav struct{}

func init() { registry.RegisterBuiltin(codeNav{}) }

func (codeNav) Name() string            { return "code_nav" }
func (codeNav) Description() string     { return codeNavDescription }
func (codeNav) Schema() json.RawMessage { return json.RawMessage(codeNavSchema) }
func (codeNav) ReadOnly() bool          { return true }
func (codeNav) Requires() string        { return registry.FeatureLanguageRequest }

func (codeNav) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		positionArgs
		Action string `json:"action"`
		Limit  int    `json:"limit"`
	}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	l, err := languages(s)
	if err != nil {
		return "", err
	}
	abs, at, err := a.resolve(s)
	if err != nil {
		return "", err
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 50
	}
	if a.Action == "hover" {
		h, err := l.Hover(ctx, abs, at)
		if isNoServer(err) {
			return "", fmt.Errorf("no language server in the editor handles %s, so there is no hover; use code_index definition", s.WS.Rel(abs))
		}
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(h) == "" {
			return fmt.Sprintf("No hover information at %s:%d:%d.", s.WS.Rel(abs), at.Line, at.Col), nil
		}
		return h, nil
	}
	locs, err := l.Locate(ctx, a.Action, abs, at)
	if isNoServer(err) {
		return indexFallback(ctx, s, a.Action, abs, at, limit)
	}
	if err != nil {
		return "", err
	}
	if len(locs) == 0 {
		return fmt.Sprintf("No %s found for the symbol at %s:%d:%d.", strings.ReplaceAll(a.Action, "_", " "), s.WS.Rel(abs), at.Line, at.Col), nil
	}
	var b strings.Builder
	writeLocations(&b, s.WS, locs, limit)
	return b.String(), nil
}

// indexFallback answers definition and references from the tree-sitter
// index, by the name at the position, when no editor server covers the file.
func indexFallback(ctx context.Context, s *workspace.Session, action, abs string, at workspace.Pos, limit int) (string, error) {
	rel := s.WS.Rel(abs)
	if action != "definition" && action != "references" {
		return "", fmt.Errorf("no language server in the editor handles %s; only definition and references can be answered from the code index", rel)
	}
	line, _ := lineText(s.WS, abs, at.Line)
	name := wordAt(line, at.Col)
	if name == "" {
		return "", fmt.Errorf("no language server in the editor handles %s, and there is no name at line %d column %d to look up in the code index", rel, at.Line, at.Col)
	}
	q, _ := json.Marshal(map[string]any{"action": action, "query": name, "path": rel, "limit": limit})
	out, err := codeIndex{}.Execute(ctx, q)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("(no language server in the editor handles %s: answered by name from the tree-sitter index)\n%s", rel, out), nil
}

// wordAt is the identifier at the 1-based character column col of line.
func wordAt(line string, col int) string {
	rs := []rune(line)
	i := col - 1
	if i < 0 || i >= len(rs) || !isWordRune(rs[i]) {
		return ""
	}
	start, end := i, i
	for start > 0 && isWordRune(rs[start-1]) {
		start--
	}
	for end < len(rs) && isWordRune(rs[end]) {
		end++
	}
	return string(rs[start:end])
}
