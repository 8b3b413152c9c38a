package lsp_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestProtocolDocument locks docs/PROTOCOL.md to the code in both
// directions, as the tool contract test does for the tools: the commands
// it lists are the commands the server and its extensions define, the
// requests the server sends are those the code sends, and the settings
// keys are those the code reads. A change to any of them is a change of
// the document too.
func TestProtocolDocument(t *testing.T) {
	doc, err := os.ReadFile("../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := docSections(string(doc))
	code := scanCode(t, "..")

	commands := matches(sections["Commands (`workspace/executeCommand`)"], `(?m)^### `+"`"+`([^`+"`"+`]+)`+"`")
	same(t, "commands (## Commands vs agentls.* command names in lsp/)", commands, code.commands)

	requests := matches(sections["Requests the server sends"], `(?m)^\| `+"`"+`([^`+"`"+`]+)`+"`"+` \|`)
	same(t, "client requests (## Requests the server sends vs Call/callClient in lsp/)", requests, code.requests)

	var keys []string
	for _, cell := range matches(sections["Configuration (`agentls` section)"], `(?m)^\| (`+"`"+`[^|]+)\|`) {
		for _, k := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cell, -1) {
			keys = append(keys, k[1])
		}
	}
	same(t, "settings keys (## Configuration vs the keys the code reads)", keys, code.settings)
}

// docSections splits a Markdown document by its "## " headings.
func docSections(doc string) map[string]string {
	out := map[string]string{}
	var name string
	for line := range strings.SplitAfterSeq(doc, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			name = strings.TrimSpace(h)
			continue
		}
		out[name] += line
	}
	return out
}

func matches(text, re string) []string {
	var out []string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(text, -1) {
		if m[1] != "method" && m[1] != "key" { // table headers
			out = append(out, strings.TrimSpace(m[1]))
		}
	}
	return out
}

func same(t *testing.T, what string, doc, code []string) {
	t.Helper()
	sort.Strings(doc)
	doc = slices.Compact(doc)
	sort.Strings(code)
	code = slices.Compact(code)
	for _, d := range doc {
		if !slices.Contains(code, d) {
			t.Errorf("%s: %s is documented but not in the code", what, d)
		}
	}
	for _, c := range code {
		if !slices.Contains(doc, c) {
			t.Errorf("%s: %s is in the code but not documented", what, c)
		}
	}
	if len(doc) == 0 {
		t.Errorf("%s: nothing found in the document", what)
	}
}

type codeFacts struct {
	commands, requests, settings []string
}

// scanCode reads the module's Go source (tests left out) for what the
// document lists: command names (string constants "agentls.x" in lsp/),
// the method of every request the LSP server sends (conn.Call, callClient,
// callClientWithin), the keys read with Setting and lookupSetting
// (a key built as "prefix." + name counts as "prefix"), the keys
// parseSettings switches on and those an extension's SettingsChanged
// decodes.
func scanCode(t *testing.T, root string) codeFacts {
	var facts codeFacts
	command := regexp.MustCompile(`^agentls\.[a-zA-Z]+$`)
	byDir := map[string][]*ast.File{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.Contains(p, "lsptest") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		byDir[filepath.Dir(p)] = append(byDir[filepath.Dir(p)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, files := range byDir {
		// The package's string constants, to resolve names.
		consts := map[string]string{}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				if vs, ok := n.(*ast.ValueSpec); ok {
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							if s, ok := stringOf(vs.Values[i], nil); ok {
								consts[name.Name] = s
							}
						}
					}
				}
				return true
			})
		}
		inLSP := filepath.Base(dir) == "lsp" || filepath.Base(filepath.Dir(dir)) == "lsp"
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.BasicLit:
					if s, ok := stringOf(n, nil); ok && inLSP && command.MatchString(s) {
						facts.commands = append(facts.commands, s)
					}
				case *ast.CallExpr:
					name := ""
					switch fn := n.Fun.(type) {
					case *ast.SelectorExpr:
						name = fn.Sel.Name
					case *ast.Ident:
						name = fn.Name
					}
					arg := -1
					switch {
					case inLSP && (name == "Call" || name == "callClient") && len(n.Args) > 1:
						arg = 1
					case inLSP && name == "callClientWithin" && len(n.Args) > 2:
						arg = 2
					case name == "Setting" && len(n.Args) == 2, name == "lookupSetting" && len(n.Args) == 2:
						key := n.Args[0]
						if name == "lookupSetting" {
							key = n.Args[1]
						}
						if s, ok := stringOf(key, consts); ok {
							facts.settings = append(facts.settings, strings.TrimSuffix(s, "."))
						}
					}
					if arg >= 0 {
						if s, ok := stringOf(n.Args[arg], consts); ok {
							facts.requests = append(facts.requests, s)
						}
					}
				case *ast.FuncDecl:
					if n.Name.Name == "parseSettings" && inLSP {
						facts.settings = append(facts.settings, parseSettingsKeys(n)...)
					}
					if n.Name.Name == "SettingsChanged" && n.Body != nil {
						facts.settings = append(facts.settings, jsonTags(n.Body)...)
					}
				}
				return true
			})
		}
	}
	return facts
}

// jsonTags lists the JSON names of the struct fields declared in n (an
// extension's SettingsChanged decodes its keys so).
func jsonTags(n ast.Node) []string {
	var out []string
	ast.Inspect(n, func(n ast.Node) bool {
		if f, ok := n.(*ast.Field); ok && f.Tag != nil {
			tag, _ := strconv.Unquote(f.Tag.Value)
			if name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ","); name != "" && name != "-" {
				out = append(out, name)
			}
		}
		return true
	})
	return out
}

// parseSettingsKeys lists the keys of parseSettings' switch; "tools" is
// read for tools.disabled only.
func parseSettingsKeys(fn *ast.FuncDecl) []string {
	var keys []string
	ast.Inspect(fn, func(n ast.Node) bool {
		sw, ok := n.(*ast.SwitchStmt)
		if !ok {
			return true
		}
		if id, ok := sw.Tag.(*ast.Ident); !ok || id.Name != "key" {
			return true
		}
		for _, st := range sw.Body.List {
			for _, e := range st.(*ast.CaseClause).List {
				if s, ok := stringOf(e, nil); ok {
					if s == "tools" {
						s = "tools.disabled"
					}
					keys = append(keys, s)
				}
			}
		}
		return false
	})
	return keys
}

// stringOf is the value of a string literal, a constant of consts, or the
// literal left operand of a concatenation ("approval." + name).
func stringOf(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.Ident:
		s, ok := consts[e.Name]
		return s, ok
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			return stringOf(e.X, consts)
		}
	}
	return "", false
}
