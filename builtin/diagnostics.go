package builtin

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const diagnosticsDescription = "Errors and warnings the editor's language servers and linters report now, unsaved buffers included. Returns `path:line:col: severity [source code] message` lines, errors first."

const diagnosticsSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "a file or directory (default: everything the editor reports)"},
		"severity": {"type": "string", "enum": ["error", "warning", "info", "hint"], "description": "the lowest severity shown (default warning)"}
	},
	"additionalProperties": false
}`

// maxDiagnostics is how many lines the tool prints.
const maxDiagnostics = 200

type diagnosticsTool struct{}

func init() { registry.RegisterBuiltin(diagnosticsTool{}) }

func (diagnosticsTool) Name() string            { return "diagnostics" }
func (diagnosticsTool) Description() string     { return diagnosticsDescription }
func (diagnosticsTool) Schema() json.RawMessage { return json.RawMessage(diagnosticsSchema) }
func (diagnosticsTool) ReadOnly() bool          { return true }
func (diagnosticsTool) Requires() string        { return registry.FeatureDiagnostics }

func (diagnosticsTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Path     string `json:"path"`
		Severity string `json:"severity"`
	}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	l, err := languages(s)
	if err != nil {
		return "", err
	}
	min := workspace.SeverityWarning
	if a.Severity != "" {
		min, _ = workspace.ParseSeverity(a.Severity)
	}
	abs, rel := "", "."
	if a.Path != "" {
		if abs, rel, err = s.WS.Resolve(a.Path); err != nil {
			return "", err
		}
	}
	file := abs != "" && !isDir(s.WS, abs)
	ask := ""
	if file {
		ask = abs
	}
	ds, err := l.Diagnostics(ctx, ask)
	if err != nil {
		return "", err
	}
	var keep []workspace.Diagnostic
	for _, d := range ds {
		if abs == "" || d.Abs == abs || strings.HasPrefix(d.Abs, abs+"/") {
			if d.Abs == "" || s.WS.Contains(d.Abs) && s.WS.Denied(s.WS.Rel(d.Abs)) {
				continue
			}
			keep = append(keep, d)
		}
	}
	out := workspace.FormatDiagnostics(keep, min, func(p string) string { return showPath(s.WS, p) }, maxDiagnostics)
	if out == "" {
		where := "the workspace"
		if rel != "." {
			where = rel
		}
		return "No " + severityWords(min) + " reported for " + where + ".", nil
	}
	return out, nil
}

func severityWords(min workspace.Severity) string {
	switch min {
	case workspace.SeverityError:
		return "errors"
	case workspace.SeverityWarning:
		return "errors or warnings"
	}
	return "diagnostics"
}

// isDir reports whether abs is a directory (a buffer never is).
func isDir(ws *workspace.Workspace, abs string) bool {
	if _, ok := ws.Buffer(abs); ok {
		return false
	}
	fi, err := os.Stat(abs)
	return err == nil && fi.IsDir()
}
