package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/registry"
)

var update = flag.Bool("update", false, "rewrite docs/TOOL_CONTRACT.md and docs/schemas/*.json from the registered built-ins")

var (
	contractPath = filepath.Join("..", "..", "docs", "TOOL_CONTRACT.md")
	schemasDir   = filepath.Join("..", "..", "docs", "schemas")
)

func builtinSchemas(t *testing.T) []registry.Schema {
	t.Helper()
	reg, err := registry.NewBuiltinFor(registry.Features)
	if err != nil {
		t.Fatalf("registry.NewBuiltinFor: %v", err)
	}
	return reg.Schemas()
}

// TestToolContract locks the tool surface: docs/TOOL_CONTRACT.md and the
// golden schemas must match the registered built-ins in both directions.
func TestToolContract(t *testing.T) {
	tools := builtinSchemas(t)
	if *update {
		writeContract(t, tools)
	}

	doc, err := os.ReadFile(contractPath)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/agentls -run Contract -update)", err)
	}
	for _, p := range checkContract(string(doc), tools) {
		t.Error(p)
	}
	if want := contractMarkdown(tools); string(doc) != want {
		t.Errorf("%s differs from the output of agentls contract; run go test ./cmd/agentls -run Contract -update", contractPath)
	}

	// Golden schemas, byte for byte, and no file for a tool that is gone.
	for _, tool := range tools {
		path := filepath.Join(schemasDir, tool.Name+".json")
		golden, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("tool %s has no golden schema: %v", tool.Name, err)
			continue
		}
		if !bytes.Equal(golden, tool.InputSchema) {
			t.Errorf("tool %s: schema differs from %s\n got  %s\n want %s", tool.Name, path, tool.InputSchema, golden)
		}
	}
	files, _ := filepath.Glob(filepath.Join(schemasDir, "*.json"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if !slices.ContainsFunc(tools, func(s registry.Schema) bool { return s.Name == name }) {
			t.Errorf("%s has no registered built-in %q", f, name)
		}
	}
}

// TestBuiltinSchemasAreCanonical: canonicalizing a built-in's canonical
// bytes changes nothing, and every raw schema canonicalizes without error.
func TestBuiltinSchemasAreCanonical(t *testing.T) {
	for _, tool := range registry.Builtins() {
		canon, err := registry.Canonicalize(tool.Schema())
		if err != nil {
			t.Errorf("%s: %v", tool.Name(), err)
			continue
		}
		again, err := registry.Canonicalize(canon)
		if err != nil || !bytes.Equal(again, canon) {
			t.Errorf("%s: canonical form is not a fixed point:\n%s\n%s (%v)", tool.Name(), canon, again, err)
		}
	}
}

func writeContract(t *testing.T, tools []registry.Schema) {
	t.Helper()
	if err := os.MkdirAll(schemasDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(contractPath, []byte(contractMarkdown(tools)), 0o644); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(schemasDir, "*.json"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range tools {
		if err := os.WriteFile(filepath.Join(schemasDir, tool.Name+".json"), tool.InputSchema, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("rewrote %s and %d schemas", contractPath, len(tools))
}

// contractRow is one row of the tools table.
type contractRow struct {
	readOnly    bool
	description string
}

// checkContract compares the tools table of doc with tools and returns one
// message per disagreement.
func checkContract(doc string, tools []registry.Schema) []string {
	rows := map[string]contractRow{}
	var problems []string
	for i, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := splitRow(line)
		if len(cells) != 3 {
			problems = append(problems, fmt.Sprintf("line %d: want 3 cells (tool, read-only, description), got %d", i+1, len(cells)))
			continue
		}
		name := strings.Trim(cells[0], "`")
		if _, dup := rows[name]; dup {
			problems = append(problems, fmt.Sprintf("line %d: tool %s listed twice", i+1, name))
		}
		rows[name] = contractRow{readOnly: cells[1] == "✓", description: unescapeCell(cells[2])}
	}
	registered := map[string]bool{}
	for _, tool := range tools {
		registered[tool.Name] = true
		row, ok := rows[tool.Name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("built-in %s is missing from the contract", tool.Name))
		case row.readOnly != tool.ReadOnly:
			problems = append(problems, fmt.Sprintf("%s: the contract says read-only=%v, the tool says %v", tool.Name, row.readOnly, tool.ReadOnly))
		}
		if tool.Description == "" {
			problems = append(problems, fmt.Sprintf("%s has no description", tool.Name))
		}
		if ok && row.description != tool.Description {
			problems = append(problems, fmt.Sprintf("%s: description differs\n contract: %q\n tool:     %q", tool.Name, row.description, tool.Description))
		}
	}
	for name := range rows {
		if !registered[name] {
			problems = append(problems, fmt.Sprintf("the contract lists %s, which is not a registered built-in", name))
		}
	}
	slices.Sort(problems)
	return problems
}

// splitRow splits "| a | b \| c |" into trimmed cells, honouring \| escapes.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line):
			cur.WriteByte(line[i])
			cur.WriteByte(line[i+1])
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		cells = append(cells, rest)
	}
	return cells
}

// TestCheckContractFindsDrift checks the checker itself, in both
// directions.
func TestCheckContractFindsDrift(t *testing.T) {
	tools := []registry.Schema{
		{Name: "alpha", Description: "reads | pipes\nand lines \\ too", ReadOnly: true},
		{Name: "beta", Description: "writes"},
	}
	good := contractMarkdown(tools)
	if p := checkContract(good, tools); len(p) != 0 {
		t.Fatalf("generated contract disagrees with its tools: %v", p)
	}
	for _, tc := range []struct {
		name, doc string
		tools     []registry.Schema
		want      string
	}{
		{"missing row", good, append(tools, registry.Schema{Name: "gamma"}), "built-in gamma is missing"},
		{"extra row", good, tools[:1], "lists beta, which is not a registered built-in"},
		{"flag", strings.Replace(good, "| `beta` |  |", "| `beta` | ✓ |", 1), tools, "beta: the contract says read-only=true"},
		{"description", strings.Replace(good, "writes", "writes files", 1), tools, "beta: description differs"},
		{"duplicate", good + "| `beta` |  | writes |\n", tools, "tool beta listed twice"},
		{"no description", good, append(tools, registry.Schema{Name: "gamma"}), "gamma has no description"},
	} {
		p := strings.Join(checkContract(tc.doc, tc.tools), "\n")
		if !strings.Contains(p, tc.want) {
			t.Errorf("%s: problems %q, want one containing %q", tc.name, p, tc.want)
		}
	}
}

// TestToolsJSONSize keeps the whole tool list, which sits in every prompt,
// under 12 KB.
func TestToolsJSONSize(t *testing.T) {
	out, errOut, code := runCLI(t, "", "tools", "--json")
	if code != 0 {
		t.Fatalf("agentls tools --json: exit %d: %s", code, errOut)
	}
	const limit = 12 << 10
	if len(out) >= limit {
		t.Errorf("agentls tools --json prints %d bytes, want under %d: shorten descriptions", len(out), limit)
	}
	var v struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tools, %d bytes", len(v.Tools), len(out))
}

// TestEverySchemaPropertyDescribed: a model reads the descriptions; a
// property without one (nested ones included) is a guess.
func TestEverySchemaPropertyDescribed(t *testing.T) {
	var walk func(tool, at string, schema map[string]any)
	walk = func(tool, at string, schema map[string]any) {
		props, _ := schema["properties"].(map[string]any)
		for name, v := range props {
			p, _ := v.(map[string]any)
			if d, _ := p["description"].(string); d == "" {
				t.Errorf("%s: property %s%s has no description", tool, at, name)
			}
			if items, ok := p["items"].(map[string]any); ok {
				walk(tool, at+name+"[].", items)
			}
			walk(tool, at+name+".", p)
		}
	}
	for _, tool := range builtinSchemas(t) {
		var schema map[string]any
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		walk(tool.Name, "", schema)
	}
}
