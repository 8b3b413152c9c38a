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
