package nav_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/agentls/agentls/builtin"
	"github.com/agentls/agentls/codeindex"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/lsp/nav"
)

const libGo = `package lib

// Greeter says hello.
type Greeter struct {
	Name string
}

// Greet returns a greeting.
func (g Greeter) Greet() string {
	return "héllo, 世界 " + g.Name
}

func Use() string {
	return Greeter{Name: "x"}.Greet()
}
`

func start(t *testing.T) (*lsptest.Editor, string) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "lib.go"), []byte(libGo), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package lib\n\nfunc main() { _ = Use() }\n"), 0o644)
	x := &nav.Extension{Options: codeindex.Options{CacheDir: t.TempDir()}}
	e := lsptest.New(t, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
		return lsp.New(lsp.Options{Extensions: []lsp.Extension{x}}).Run(ctx, r, w, c)
	})
	init := e.Initialize(lsptest.VSCodeCapabilities(), nil, root)
	for _, p := range []string{"documentSymbolProvider", "workspaceSymbolProvider", "definitionProvider", "referencesProvider", "agentls.indexStatus"} {
		if !strings.Contains(string(init), p) {
			t.Fatalf("initialize result lacks %s: %s", p, init)
		}
	}
	// Wait for the build.
	e.WaitFor("the index", func() bool {
		var st codeindex.Status
		if err := e.ExecuteCommand(nav.CmdIndexStatus, map[string]any{}, &st); err != nil {
			t.Fatal(err)
		}
		return st.State == codeindex.StateReady && st.Symbols > 0
	})
	return e, root
}

type loc struct {
	URI   string `json:"uri"`
	Range struct {
		Start lsptest.Position `json:"start"`
	} `json:"range"`
}

func TestNavigation(t *testing.T) {
	e, root := start(t)
	lib := filepath.Join(root, "lib.go")
	// An unsaved buffer with a new function: the index follows it.
	e.Open(lib, libGo+"\nfunc Fresh() {}\n")
	e.Sync()

	var syms []struct {
		Name     string `json:"name"`
		Kind     int    `json:"kind"`
		Children []struct {
			Name string `json:"name"`
		} `json:"children"`
	}
	e.WaitFor("the buffer's symbols", func() bool {
		if err := e.Call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": lsptest.URI(lib)}}, &syms); err != nil {
			t.Fatal(err)
		}
		for _, s := range syms {
			if s.Name == "Fresh" {
				return true
			}
		}
		return false
	})
	names := map[string]int{}
	for _, s := range syms {
		names[s.Name] = s.Kind
	}
	if names["Greeter"] != 23 || names["Use"] != 12 {
		t.Errorf("document symbols: %+v", syms)
	}

	var ws []struct {
		Name     string `json:"name"`
		Location loc    `json:"location"`
	}
	if err := e.Call("workspace/symbol", map[string]string{"query": "Greet"}, &ws); err != nil {
		t.Fatal(err)
	}
	if len(ws) == 0 || ws[0].Name != "Greet" || ws[0].Location.URI != lsptest.URI(lib) || ws[0].Location.Range.Start.Line != 8 {
		t.Errorf("workspace/symbol Greet: %+v", ws)
	}

	// Definition of Greet from its use on line 13 (0-based), UTF-16 column.
	var defs []loc
	pos := map[string]any{"textDocument": map[string]string{"uri": lsptest.URI(lib)}, "position": map[string]int{"line": 13, "character": 28}}
	if err := e.Call("textDocument/definition", pos, &defs); err != nil {
		t.Fatal(err)
	}
	if len(defs) != 1 || defs[0].Range.Start.Line != 8 || defs[0].Range.Start.Character != 17 {
		t.Errorf("definition of Greet: %+v", defs)
	}
	var refs []loc
	if err := e.Call("textDocument/references", pos, &refs); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range refs {
		if r.Range.Start.Line == 13 {
			found = true
		}
	}
	if !found {
		t.Errorf("references of Greet lack the use on line 14: %+v", refs)
	}
	// Malformed params are a protocol error, not a crash.
	var raw json.RawMessage
	if err := e.Call("textDocument/definition", []int{1}, &raw); err == nil {
		t.Error("definition with bad params succeeded")
	}
}
