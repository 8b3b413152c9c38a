package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentls/agentls/registry"
)

const contractHelp = `Prints the tool contract, docs/TOOL_CONTRACT.md, generated from the
registered built-in tools. A test fails when the document and the tools
disagree; "go test ./cmd/agentls -run Contract -update" rewrites it and the
golden schemas in docs/schemas/.`

func runContract(e *env, args []string) int {
	fs := newFlags(e, "contract", "", contractHelp)
	pos, code := parseArgs(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(e, "contract", "", "unexpected argument %q", pos[0])
	}
	reg, err := registry.NewBuiltinFor(registry.Features)
	if err != nil {
		fmt.Fprintf(e.stderr, "agentls contract: %v\n", err)
		return exitError
	}
	if _, err := io.WriteString(e.stdout, contractMarkdown(reg.Schemas())); err != nil {
		return exitError
	}
	return exitOK
}

// contractIntro is the prose of the contract, before the tools table.
//
//go:embed contract_intro.md
var contractIntro string

// contractMarkdown renders docs/TOOL_CONTRACT.md for the given tools.
func contractMarkdown(tools []registry.Schema) string {
	var b strings.Builder
	b.WriteString(contractIntro)
	b.WriteString("| tool | read-only | description |\n| --- | --- | --- |\n")
	for _, t := range tools {
		flag := ""
		if t.ReadOnly {
			flag = "✓"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", t.Name, flag, escapeCell(t.Description))
	}
	if len(tools) == 0 {
		b.WriteString("\nNo built-in tools are registered.\n")
	}
	byFeature := map[string][]string{}
	var features []string
	for _, t := range tools {
		tool, ok := registry.LookupBuiltin(t.Name)
		if !ok {
			continue
		}
		if f := registry.Requires(tool); f != "" {
			if byFeature[f] == nil {
				features = append(features, f)
			}
			byFeature[f] = append(byFeature[f], "`"+t.Name+"`")
		}
	}
	if len(features) > 0 {
		slices.Sort(features)
		b.WriteString("\nSome tools exist only in sessions whose editor answers a client request (`docs/PROTOCOL.md`):\n")
		for _, f := range features {
			fmt.Fprintf(&b, "%s needs `%s`.", strings.Join(byFeature[f], ", "), f)
			b.WriteString("\n")
		}
		b.WriteString("The command line and MCP without an editor do not list them.\n")
	}
	b.WriteString("\n## Arguments\n\nArgument names are part of the contract; `?` marks an optional one.\n\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "- `%s`: %s\n", t.Name, argumentNames(t.InputSchema))
	}
	b.WriteString("\nThe input schema of each tool is `docs/schemas/<name>.json`; `agentls tools` prints the list for\npeople, `agentls tools --json` exactly as `agentls.listTools` returns it.\n")
	return b.String()
}

// argumentNames lists the top-level properties of a canonical schema,
// required ones first, optional ones marked with "?".
func argumentNames(schema []byte) string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return "none"
	}
	var req, opt []string
	for name := range s.Properties {
		if slices.Contains(s.Required, name) {
			req = append(req, "`"+name+"`")
		} else {
			opt = append(opt, "`"+name+"?`")
		}
	}
	slices.Sort(req)
	slices.Sort(opt)
	return strings.Join(append(req, opt...), ", ")
}

// escapeCell makes text safe in a markdown table cell; unescapeCell undoes
// it.
func escapeCell(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", "<br>")
}

func unescapeCell(s string) string {
	var b strings.Builder
	s = strings.ReplaceAll(s, "<br>", "\n")
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '|') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
