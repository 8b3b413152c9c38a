package codeindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/agentls/agentls/workspace"
)

// newTestIndex writes a txtar workspace to a temporary directory and
// builds its index without the disk cache.
func newTestIndex(t *testing.T, archive string) (*Index, string) {
	t.Helper()
	dir := t.TempDir()
	ar, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := New(ws, Options{NoCache: true, Workers: 2})
	t.Cleanup(func() { ix.Close() })
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ix, ws.Root()
}

func symLines(syms []Symbol) string {
	var b strings.Builder
	for _, s := range syms {
		fmt.Fprintf(&b, "%s:%d %s %s.%s\n", s.Path, s.NameRange.Start.Line+1, s.Kind, s.Container, s.Name)
	}
	return b.String()
}

func TestIndexQueries(t *testing.T) {
	ix, _ := newTestIndex(t, "testdata/ws/small.txtar")
	st := ix.Status()
	if st.State != StateReady || st.Files != 4 || st.Languages["go"] != 3 || st.Languages["python"] != 1 {
		t.Errorf("status %+v", st)
	}
	if got := symLines(ix.Definition("Add", "")); got != "cart/cart.go:9 method Cart.Add\n" {
		t.Errorf("definition Add:\n%s", got)
	}
	if got := symLines(ix.Definition("Cart.Add", "")); got != "cart/cart.go:9 method Cart.Add\n" {
		t.Errorf("definition Cart.Add:\n%s", got)
	}
	if got := ix.Definition("Generated", ""); len(got) != 0 {
		t.Errorf("ignored file indexed: %v", got)
	}
	var names []string
	for _, m := range ix.Search(SearchQuery{Query: "cart"}) {
		names = append(names, fmt.Sprintf("%s/%d", m.Name, m.Tier))
	}
	if got := strings.Join(names, " "); got != "Cart/1 NewCart/3" {
		t.Errorf("search cart: %s", got)
	}
	if got := ix.Search(SearchQuery{Query: "nc"}); len(got) != 1 || got[0].Name != "NewCart" || got[0].Tier != TierFuzzy {
		t.Errorf("fuzzy search nc: %v", got)
	}
	if got := ix.Search(SearchQuery{Query: "add", Kind: KindFunction}); len(got) != 1 || got[0].Name != "add_header" {
		t.Errorf("search add function: %v", got)
	}
	refs, err := ix.References(context.Background(), RefQuery{Name: "Add", From: "main.go"})
	if err != nil {
		t.Fatal(err)
	}
	var rl []string
	for _, r := range refs {
		rl = append(rl, fmt.Sprintf("%s:%d:%s", r.Path, r.Range.Start.Line+1, r.Kind))
	}
	if got := strings.Join(rl, " "); got != "main.go:7:call cart/item.go:9:call" {
		t.Errorf("references Add: %s", got)
	}
	syms, ok := ix.Outline("cart/item.go")
	if !ok {
		t.Fatal("no outline")
	}
	tree := Nest(syms)
	if len(tree) != 2 || tree[0].Name != "Item" || len(tree[0].Children) != 2 {
		t.Errorf("outline: %s", symLines(syms))
	}
}

func TestBufferUpdates(t *testing.T) {
	ix, root := newTestIndex(t, "testdata/ws/small.txtar")
	abs := filepath.Join(root, "cart", "item.go")
	src, _ := os.ReadFile(abs)
	text := string(src) + "\nfunc Discount(c *Cart) int { return 0 }\n"
	if err := ix.UpdateBuffer(abs, 1, text); err != nil {
		t.Fatal(err)
	}
	if got := ix.Definition("Discount", ""); len(got) != 1 {
		t.Fatalf("after edit: %v", got)
	}
	text = strings.Replace(text, "Discount", "Rebate", 1)
	ix.UpdateBuffer(abs, 2, text)
	if len(ix.Definition("Discount", "")) != 0 || len(ix.Definition("Rebate", "")) != 1 {
		t.Errorf("rename not seen")
	}
	ix.CloseBuffer(abs)
	if ix.OpenBuffers() != 0 || len(ix.Definition("Rebate", "")) != 0 || len(ix.Definition("total", "")) != 1 {
		t.Errorf("close did not go back to disk")
	}
}

func TestMap(t *testing.T) {
	ix, _ := newTestIndex(t, "testdata/ws/small.txtar")
	m, err := ix.Map(context.Background(), "", 10)
	if err != nil {
		t.Fatal(err)
	}
	// Cart and Item are used from other files; main is used by no one.
	if !strings.HasPrefix(m, "cart/") || !strings.Contains(m, "type Cart struct") || strings.Contains(m, "func main") {
		t.Errorf("map:\n%s", m)
	}
}

func TestPathsOutside(t *testing.T) {
	ix, root := newTestIndex(t, "testdata/ws/small.txtar")
	outside := filepath.Join(filepath.Dir(root), "x.go")
	for _, p := range []string{"../x.go", outside, "cart/../../x.go"} {
		if err := ix.UpdateBuffer(p, 1, "package x\nfunc Outside() {}\n"); err != nil {
			t.Fatal(err)
		}
		ix.FileChanged(p)
	}
	if got := ix.Definition("Outside", ""); len(got) != 0 || ix.OpenBuffers() != 0 {
		t.Errorf("a path outside the root was indexed: %v", got)
	}
}

func TestOffset(t *testing.T) {
	text := "ab\ncdé\n\nx"
	for _, c := range []struct {
		p    Pos
		want int
	}{{Pos{0, 0}, 0}, {Pos{0, 2}, 2}, {Pos{1, 2}, 5}, {Pos{1, 99}, 7}, {Pos{2, 0}, 8}, {Pos{3, 1}, 10}, {Pos{4, 0}, -1}} {
		if got := Offset(text, c.p); got != c.want {
			t.Errorf("Offset(%v) = %d, want %d", c.p, got, c.want)
		}
	}
	if got := IdentAt("x := foo.Bar(1)", 10); got != "Bar" {
		t.Errorf("IdentAt = %q", got)
	}
}
