package builtin

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// kv is one member of an object written in a chosen order.
type kv struct {
	k string
	v any
}

// writeJSON writes v with the given layout: indent "" is one line, with
// comma and colon as separators.
func writeJSON(b *strings.Builder, v any, indent, comma, colon string, level int) {
	nl := func(l int) {
		if indent != "" {
			b.WriteString("\n" + strings.Repeat(indent, l))
		}
	}
	switch v := v.(type) {
	case []kv:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			nl(level + 1)
			k, _ := json.Marshal(m.k)
			b.Write(k)
			b.WriteString(colon)
			writeJSON(b, m.v, indent, comma, colon, level+1)
		}
		nl(level)
		b.WriteByte('}')
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			nl(level + 1)
			writeJSON(b, e, indent, comma, colon, level+1)
		}
		nl(level)
		b.WriteByte(']')
	default:
		j, _ := json.Marshal(v)
		b.Write(j)
	}
}

var awkward = []string{"", "x", "a\n", "]}\",\\", "日本\n語", "<&>", "tab\there", "\n\n", "line one\nline two"}

func randomSource(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(4) {
		b.WriteString(awkward[r.IntN(len(awkward))])
	}
	return b.String()
}

func randomNotebook(r *rand.Rand) string {
	var cells []any
	for i := range r.IntN(5) {
		typ := []string{"code", "markdown", "raw"}[r.IntN(3)]
		src := randomSource(r)
		var source any = src
		if r.IntN(2) == 0 {
			var parts []any
			for _, l := range strings.SplitAfter(src, "\n") {
				if l != "" {
					parts = append(parts, l)
				}
			}
			source = parts
			if parts == nil {
				source = []any{}
			}
		}
		c := []kv{{"cell_type", typ}, {"metadata", []kv{{"tags", []any{"t" + awkward[r.IntN(len(awkward))]}}}}, {"source", source}}
		if r.IntN(2) == 0 {
			c = append(c, kv{"id", string(rune('a'+i)) + "id"})
		}
		if typ == "code" {
			c = append(c, kv{"outputs", []any{[]kv{{"output_type", "stream"}, {"text", []any{"]}", "\"{"}}}}}, kv{"execution_count", r.IntN(9)})
		}
		r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
		cells = append(cells, c)
	}
	if cells == nil {
		cells = []any{}
	}
	root := []kv{{"cells", cells}, {"metadata", []kv{}}, {"nbformat", 4}, {"nbformat_minor", r.IntN(6)}}
	r.Shuffle(len(root), func(i, j int) { root[i], root[j] = root[j], root[i] })
	indent := []string{"", " ", "  ", "\t", "    "}[r.IntN(5)]
	comma, colon := ",", ": "
	if indent == "" && r.IntN(2) == 0 {
		comma, colon = ", ", ":"
	}
	var b strings.Builder
	writeJSON(&b, root, indent, comma, colon, 0)
	b.WriteString("\n")
	return b.String()
}

// TestEditNotebookRandom edits many generated notebooks, in every layout,
// and checks that each result is valid JSON in which the edited cell is as
// asked and every other cell is exactly as it was.
func TestEditNotebookRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		text := randomNotebook(r)
		var before struct{ Cells []any }
		if err := json.Unmarshal([]byte(text), &before); err != nil {
			t.Fatalf("generated bad JSON: %v\n%s", err, text)
		}
		n := len(before.Cells)
		mode := []string{"replace", "insert", "delete"}[r.IntN(3)]
		number := r.IntN(n+2) - 1
		src := randomSource(r)
		typ := []string{"", "code", "markdown", "raw"}[r.IntN(4)]
		res, err := editNotebook(text, nbEdit{mode: mode, number: &number, source: &src, cellType: typ})
		limit := n - 1
		if mode == "insert" {
			limit = n
		}
		if number < 0 || number > limit {
			if err == nil {
				t.Fatalf("%s of cell %d of %d succeeded", mode, number, n)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s cell %d: %v\n%s", mode, number, err, text)
		}
		var after struct{ Cells []map[string]any }
		if err := json.Unmarshal([]byte(res.Text), &after); err != nil {
			t.Fatalf("%s cell %d: invalid JSON: %v\nbefore:\n%s\nafter:\n%s", mode, number, err, text, res.Text)
		}
		// The other cells, in order, are untouched.
		var others []any
		for i, c := range after.Cells {
			if mode == "delete" || i != res.Index {
				others = append(others, any(c))
			}
		}
		var want []any
		for i, c := range before.Cells {
			if mode == "insert" || i != number {
				want = append(want, c)
			}
		}
		if !reflect.DeepEqual(jsonRound(t, others), jsonRound(t, want)) {
			t.Fatalf("%s cell %d changed other cells\nbefore:\n%s\nafter:\n%s", mode, number, text, res.Text)
		}
		if mode == "delete" {
			continue
		}
		c := after.Cells[res.Index]
		b, _ := json.Marshal(c["source"])
		if got := decodeSource(string(b)); got != src {
			t.Fatalf("%s cell %d: source %q, want %q\n%s", mode, number, got, src, res.Text)
		}
		_, outputs := c["outputs"]
		_, count := c["execution_count"]
		if isCode := c["cell_type"] == "code"; outputs != isCode || count != isCode || isCode && (c["execution_count"] != nil || len(c["outputs"].([]any)) != 0) {
			t.Fatalf("%s cell %d: %v", mode, number, c)
		}
	}
}

func jsonRound(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}
