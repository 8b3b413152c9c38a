package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/registry"
)

const toolsSynopsis = "[-C DIR] [--json] [--editor]"

const toolsHelp = `Lists the built-in tools: name, read-only flag, description and arguments.
With --json it prints exactly the result of the LSP command agentls.listTools:
{"workspace","revision","digest","tools":[{"name","description","readOnly","inputSchema"}]},
tools sorted by name, each inputSchema in its canonical form, on one line.
With --editor it lists what an editor session sees whose client answers every
agentls request, the tools backed by the editor's language servers included
(diagnostics, code_nav, rename_symbol, code_action, editor_state).`

func runTools(e *env, args []string) int {
	fs := newFlags(e, "tools", toolsSynopsis, toolsHelp)
	asJSON := fs.Bool("json", false, "print the agentls.listTools result as JSON")
	dir := fs.String("C", ".", "the workspace `folder` named in the JSON result")
	editor := fs.Bool("editor", false, "list the tools of an editor session that offers its language servers")
	pos, code := parseArgs(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(e, "tools", toolsSynopsis, "unexpected argument %q", pos[0])
	}
	var features []string
	if *editor {
		features = registry.Features
	}
	reg, err := registry.NewBuiltinFor(features)
	if err != nil {
		fmt.Fprintf(e.stderr, "agentls tools: %v\n", err)
	}
	if *asJSON {
		abs, err := filepath.Abs(*dir)
		if err != nil {
			return usageError(e, "tools", toolsSynopsis, "%v", err)
		}
		out := reg.ListToolsJSON(fileURI(abs))
		if _, err := e.stdout.Write(append(out, '\n')); err != nil {
			return exitError
		}
		return exitOK
	}
	if err := writeToolList(e.stdout, reg.Schemas()); err != nil {
		return exitError
	}
	return exitOK
}

// fileURI is the file:// URI of an absolute path, as LSP names folders.
func fileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// writeToolList prints the tools for a person: name and flag, the
// description, and one line per argument.
func writeToolList(w io.Writer, tools []registry.Schema) error {
	var b strings.Builder
	for i, t := range tools {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t.Name)
		if t.ReadOnly {
			b.WriteString("  (read-only)")
		}
		b.WriteByte('\n')
		for line := range strings.SplitSeq(t.Description, "\n") {
			fmt.Fprintf(&b, "    %s\n", line)
		}
		for _, a := range arguments(t.InputSchema) {
			fmt.Fprintf(&b, "    - %s\n", a)
		}
	}
	if len(tools) == 0 {
		b.WriteString("no built-in tools are registered\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// arguments describes each top-level property of a canonical schema as
// "name (type, required): description", required ones first.
func arguments(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Enum        []any  `json:"enum"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.SortStableFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(s.Required, a), slices.Contains(s.Required, b)
		if ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	out := make([]string, len(names))
	for i, name := range names {
		p := s.Properties[name]
		var kind []string
		switch t := p.Type.(type) {
		case string:
			kind = append(kind, t)
		case []any:
			for _, x := range t {
				kind = append(kind, fmt.Sprint(x))
			}
		}
		desc := strings.Join(kind, "|")
		if len(p.Enum) > 0 {
			vals := make([]string, len(p.Enum))
			for j, v := range p.Enum {
				vals[j] = fmt.Sprint(v)
			}
			desc = "one of " + strings.Join(vals, ", ")
		}
		if slices.Contains(s.Required, name) {
			desc = strings.TrimPrefix(desc+", required", ", ")
		}
		line := name
		if desc != "" {
			line += " (" + desc + ")"
		}
		if p.Description != "" {
			line += ": " + p.Description
		}
		out[i] = line
	}
	return out
}
