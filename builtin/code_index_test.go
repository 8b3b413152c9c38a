package builtin

import (
	"strings"
	"testing"
)

const codeIndexArchive = `
-- cart/cart.go --
package cart

// Cart holds items.
type Cart struct {
	Items []Item
}

// Add appends an item.
func (c *Cart) Add(it Item) {
	c.Items = append(c.Items, it)
}
-- cart/item.go --
package cart

type Item struct {
	Name  string
	Price int
}
-- main.go --
package main

import "example.com/shop/cart"

func main() {
	c := &cart.Cart{}
	c.Add(cart.Item{Name: "pen"})
}
-- notes.txt --
not code
`

func TestCodeIndex(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	ctx, _ := newTestSession(t, codeIndexArchive)
	cases := []struct {
		args    string
		want    []string // substrings of the result, in order
		wantErr string
	}{
		{`{"action":"status"}`, []string{"ready: 3 files", "(go 3)"}, ""},
		{`{"action":"search","query":"item"}`, []string{"cart/item.go:3: struct Item — type Item struct {", "cart/cart.go:5: field Cart.Items"}, ""},
		{`{"action":"search","query":"add","kind":"method"}`, []string{"cart/cart.go:9: method Cart.Add"}, ""},
		{`{"action":"definition","query":"Cart.Add"}`, []string{"cart/cart.go:9: method Cart.Add — func (c *Cart) Add(it Item) {", "    Add appends an item."}, ""},
		{`{"action":"definition","query":"Nope"}`, []string{`no definition of "Nope" (3 files indexed: go)`}, ""},
		{`{"action":"references","query":"Add"}`, []string{"main.go:7: call c.Add(cart.Item{Name: \"pen\"})"}, ""},
		{`{"action":"outline","path":"cart/cart.go"}`, []string{"cart/cart.go\n", "  4-6 struct Cart\n", "    5 field Items\n", "  9-11 method Add\n"}, ""},
		{`{"action":"outline","path":"notes.txt"}`, []string{"notes.txt: language not indexed"}, ""},
		{`{"action":"map","limit":5}`, []string{"cart/"}, ""},
		{`{"action":"search"}`, nil, "action search needs a query"},
		{`{"action":"outline"}`, nil, "outline needs a path"},
		{`{"action":"search","query":"x","kind":"widget"}`, nil, `unknown kind "widget"`},
		{`{"action":"outline","path":"../x.go"}`, nil, "outside"},
	}
	for _, c := range cases {
		got, err := execTool(t, ctx, "code_index", c.args)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: error %v, want %q", c.args, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.args, err)
			continue
		}
		rest := got
		for _, w := range c.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: missing %q in\n%s", c.args, w, got)
				break
			}
			rest = rest[i+len(w):]
		}
	}
}

const codeIndexRankArchive = `
-- src/searcher.rs --
pub struct Searcher {}

impl Searcher {
    pub fn search_path(&self) {}
}

pub struct SearchWorker {
    searcher: Searcher,
}

impl SearchWorker {
    pub fn search_path(&self) {
        self.searcher.search_path();
    }
}

impl Default for SearchWorker {
    fn default() -> Self { SearchWorker { searcher: Searcher {} } }
}

fn search_path() {}

fn run(w: SearchWorker, s: Searcher) {
    w.search_path();
    s.search_path();
    SearchWorker::search_path(&w);
    Searcher::search_path(&s);
    search_path();
}
-- test/base_test.rb --
class Base
end
-- lib/active_record/base.rb --
module ActiveRecord
  class Base
  end
  module Associations
    module ClassMethods
      def has_many(name)
      end
    end
  end
end
`

func TestCodeIndexRanking(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	ctx, _ := newTestSession(t, codeIndexRankArchive)
	// definition: the code's own Base before the test's stub.
	out := mustExec(t, ctx, "code_index", `{"action":"definition","query":"Base"}`)
	if !strings.HasPrefix(out, "lib/active_record/base.rb:") {
		t.Errorf("definition Base:\n%s", out)
	}
	// Nested qualifiers resolve.
	for _, q := range []string{"Associations::ClassMethods.has_many", "ActiveRecord::Associations::ClassMethods#has_many", "ClassMethods.has_many"} {
		out := mustExec(t, ctx, "code_index", map[string]any{"action": "definition", "query": q})
		if !strings.HasPrefix(out, "lib/active_record/base.rb:6:") {
			t.Errorf("definition %s:\n%s", q, out)
		}
	}
	// references with a qualifier: through that receiver first, other
	// types' and the free function's uses left out; said to be by name.
	out = mustExec(t, ctx, "code_index", `{"action":"references","query":"Searcher.search_path"}`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "(found by name") {
		t.Errorf("no note on how references are found:\n%s", out)
	}
	for _, bad := range []string{"SearchWorker::search_path", "    search_path();", "call search_path()"} {
		if strings.Contains(out, bad) {
			t.Errorf("references keep %q:\n%s", bad, out)
		}
	}
	if len(lines) < 3 || !strings.Contains(lines[1], "searcher.search_path()") && !strings.Contains(lines[1], "Searcher::search_path") {
		t.Errorf("uses through Searcher do not come first:\n%s", out)
	}
	// outline: methods under their type, impl blocks included.
	out = mustExec(t, ctx, "code_index", `{"action":"outline","path":"src/searcher.rs"}`)
	for _, want := range []string{"\n    4 method search_path\n", "\n    12-14 method search_path\n", "\n    18 method default\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("outline lacks %q:\n%s", want, out)
		}
	}
	wantErr(t, ctx, "code_index", `{"action":"outline","path":"src"}`, "src is a directory", "map")
	wantErr(t, ctx, "code_index", `{"action":"outline","path":"src/missing.rs"}`, "src/missing.rs does not exist")
}
