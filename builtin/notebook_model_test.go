package builtin

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/tools/txtar"
)

func notebookFile(t *testing.T, name string) string {
	t.Helper()
	for _, f := range txtar.Parse([]byte(testdataArchive(t, "notebook.txtar"))).Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	t.Fatalf("no %s in notebook.txtar", name)
	return ""
}

func intp(n int) *int       { return &n }
func strp(s string) *string { return &s }

// cells decodes a notebook's cells for checking.
func cells(t *testing.T, text string) []map[string]any {
	t.Helper()
	var nb struct {
		Cells []map[string]any `json:"cells"`
	}
	if err := json.Unmarshal([]byte(text), &nb); err != nil {
		t.Fatalf("result is not valid JSON: %v\n%s", err, text)
	}
	return nb.Cells
}

func TestEditNotebookReplaceCode(t *testing.T) {
	src := notebookFile(t, "nb.ipynb")
	r, err := editNotebook(src, nbEdit{mode: "replace", cellID: "calc", source: strp("y = 2\nprint(y)\n")})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(src, `   "execution_count": 3,`, `   "execution_count": null,`, 1)
	start := strings.Index(want, `   "outputs": [`)
	end := strings.Index(want, `   "source": [`+"\n"+`    "x = 1`)
	want = want[:start] + "   \"outputs\": [],\n" + want[end:]
	want = strings.Replace(want, `    "x = 1\n",`+"\n"+`    "print(x + 1)"`, `    "y = 2\n",`+"\n"+`    "print(y)\n"`, 1)
	if r.Text != want {
		t.Errorf("got\n%s\nwant\n%s", r.Text, want)
	}
	if !r.Cleared || r.Index != 1 || r.ID != "calc" || r.OldSource != "x = 1\nprint(x + 1)" {
		t.Errorf("result = %+v", r)
	}
}

func TestEditNotebookReplaceMarkdown(t *testing.T) {
	src := notebookFile(t, "nb.ipynb")
	r, err := editNotebook(src, nbEdit{mode: "replace", number: intp(0), source: strp("# New title")})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(src, "    \"# Title\\n\",\n    \"Some text\"\n", "    \"# New title\"\n", 1)
	if r.Text != want {
		t.Errorf("got\n%s", r.Text)
	}
	if r.Cleared {
		t.Error("a markdown cell has no outputs to clear")
	}
}

func TestEditNotebookChangeType(t *testing.T) {
	src := notebookFile(t, "nb.ipynb")
	r, err := editNotebook(src, nbEdit{mode: "replace", cellID: "calc", cellType: "markdown"})
	if err != nil {
		t.Fatal(err)
	}
	c := cells(t, r.Text)[1]
	if c["cell_type"] != "markdown" || c["source"] != nil && decodeSourceAny(c["source"]) != "x = 1\nprint(x + 1)" {
		t.Errorf("cell = %v", c)
	}
	if _, ok := c["outputs"]; ok {
		t.Error("a markdown cell kept outputs")
	}
	if _, ok := c["execution_count"]; ok {
		t.Error("a markdown cell kept execution_count")
	}
	if r.TypeChange != "code" {
		t.Errorf("TypeChange = %q", r.TypeChange)
	}
	// And back: a code cell gets outputs and an execution count again, in
	// Jupyter's key order.
	r, err = editNotebook(r.Text, nbEdit{mode: "replace", cellID: "calc", cellType: "code", source: strp("z")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, "   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"calc\",\n   \"metadata\": {\n    \"tags\": [\n     \"keep\"\n    ]\n   },\n   \"outputs\": [],\n   \"source\": [\n    \"z\"\n   ]\n") {
		t.Errorf("got\n%s", r.Text)
	}
}

func decodeSourceAny(v any) string {
	b, _ := json.Marshal(v)
	return decodeSource(string(b))
}

func TestEditNotebookInsert(t *testing.T) {
	src := notebookFile(t, "nb.ipynb")
	r, err := editNotebook(src, nbEdit{mode: "insert", cellID: "intro", source: strp("a = 1\nb = 2"), cellType: "code"})
	if err != nil {
		t.Fatal(err)
	}
	cs := cells(t, r.Text)
	if len(cs) != 4 || r.Index != 1 || cs[1]["id"] != r.ID || len(r.ID) != 8 {
		t.Fatalf("cells = %v, result %+v", cs, r)
	}
	if cs[1]["cell_type"] != "code" || cs[1]["execution_count"] != nil || decodeSourceAny(cs[1]["source"]) != "a = 1\nb = 2" {
		t.Errorf("new cell = %v", cs[1])
	}
	newCell := "  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"" + r.ID + "\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"a = 1\\n\",\n    \"b = 2\"\n   ]\n  },\n"
	at := strings.Index(src, "  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 3")
	if want := src[:at] + newCell + src[at:]; r.Text != want {
		t.Errorf("got\n%s\nwant\n%s", r.Text, want)
	}

	// At the end (no cell named), and at a number.
	r, err = editNotebook(src, nbEdit{mode: "insert", source: strp("last"), cellType: "markdown"})
	if err != nil {
		t.Fatal(err)
	}
	if cs := cells(t, r.Text); len(cs) != 4 || decodeSourceAny(cs[3]["source"]) != "last" || r.Index != 3 {
		t.Errorf("cells = %v", cs)
	}
	r, err = editNotebook(src, nbEdit{mode: "insert", number: intp(0), source: strp("first")})
	if err != nil {
		t.Fatal(err)
	}
	if cs := cells(t, r.Text); len(cs) != 4 || decodeSourceAny(cs[0]["source"]) != "first" || cs[0]["cell_type"] != "code" {
		t.Errorf("cells = %v", cs)
	}
}

func TestEditNotebookDelete(t *testing.T) {
	src := notebookFile(t, "nb.ipynb")
	for _, n := range []int{0, 1, 2} {
		r, err := editNotebook(src, nbEdit{mode: "delete", number: intp(n)})
		if err != nil {
			t.Fatal(err)
		}
		cs := cells(t, r.Text)
		if len(cs) != 2 {
			t.Fatalf("delete %d: %d cells left", n, len(cs))
		}
		for _, c := range cs {
			if c["id"] == []string{"intro", "calc", "empty"}[n] {
				t.Errorf("delete %d: the cell is still there", n)
			}
		}
		// Deleting and re-inserting the same bytes leaves the rest alone.
		if !strings.HasSuffix(r.Text, src[strings.Index(src, "\n ],"):]) {
			t.Errorf("delete %d changed the notebook's tail:\n%s", n, r.Text)
		}
	}
	// Down to no cells, then insert into the empty array.
	text := src
	for range 3 {
		r, err := editNotebook(text, nbEdit{mode: "delete", number: intp(0)})
		if err != nil {
			t.Fatal(err)
		}
		text = r.Text
	}
	if !strings.HasPrefix(text, "{\n \"cells\": [],\n \"metadata\"") {
		t.Errorf("empty notebook:\n%s", text)
	}
	r, err := editNotebook(text, nbEdit{mode: "insert", source: strp("x")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Text, "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \""+r.ID+"\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"x\"\n   ]\n  }\n ],\n \"metadata\"") {
		t.Errorf("insert into empty notebook:\n%s", r.Text)
	}
}

func TestEditNotebookOtherLayout(t *testing.T) {
	src := notebookFile(t, "old.ipynb")
	r, err := editNotebook(src, nbEdit{mode: "replace", number: intp(0), source: strp("print('ünïcode <i>')\n")})
	if err != nil {
		t.Fatal(err)
	}
	// Unsorted keys stay in their order, a string source stays a string,
	// non-ASCII and HTML characters are kept as they are.
	want := `{
    "nbformat_minor": 2,
    "nbformat": 4,
    "metadata": {},
    "cells": [
        {
            "source": "print('ünïcode <i>')\n",
            "outputs": [],
            "metadata": {},
            "execution_count": null,
            "cell_type": "code"
        }
    ]
}
`
	if r.Text != want {
		t.Errorf("got\n%s\nwant\n%s", r.Text, want)
	}
	// No ids in nbformat 4.2: an inserted cell gets none.
	r, err = editNotebook(src, nbEdit{mode: "insert", source: strp("")})
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != "" || strings.Contains(r.Text, `"id"`) {
		t.Errorf("inserted cell has an id:\n%s", r.Text)
	}
	if !strings.Contains(r.Text, "        },\n        {\n            \"cell_type\": \"code\",\n            \"execution_count\": null,\n            \"metadata\": {},\n            \"outputs\": [],\n            \"source\": []\n        }\n    ]") {
		t.Errorf("got\n%s", r.Text)
	}
}

func TestEditNotebookCompact(t *testing.T) {
	src := `{"cells": [{"cell_type": "code", "execution_count": 5, "metadata": {}, "outputs": [{"output_type": "stream"}], "source": ["a\n", "b"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 4}`
	r, err := editNotebook(src, nbEdit{mode: "replace", number: intp(0), source: strp("c\nd")})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["c\n", "d"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 4}`
	if r.Text != want {
		t.Errorf("got\n%s\nwant\n%s", r.Text, want)
	}
	r, err = editNotebook(src, nbEdit{mode: "insert", source: strp("e"), cellType: "raw"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, `"b"]}, {"cell_type": "raw", "metadata": {}, "source": ["e"]}], "metadata"`) {
		t.Errorf("got\n%s", r.Text)
	}
}

func TestEditNotebookErrors(t *testing.T) {
	src := notebookFile(t, "nb.ipynb")
	tests := []struct {
		name string
		text string
		e    nbEdit
		err  string
	}{
		{"nbformat 3", `{"nbformat": 3, "worksheets": []}`, nbEdit{mode: "replace", number: intp(0)}, "nbformat is 3"},
		{"no nbformat", `{"cells": []}`, nbEdit{mode: "replace", number: intp(0)}, "nbformat is none"},
		{"not JSON", `{"cells": [`, nbEdit{mode: "replace", number: intp(0)}, "not valid notebook JSON"},
		{"unknown id", src, nbEdit{mode: "replace", cellID: "nope", source: strp("")}, `no cell has id "nope"; the cells' ids are intro, calc, empty`},
		{"number out of range", src, nbEdit{mode: "delete", number: intp(3)}, "cell_number 3 is out of range: the notebook has 3 cells"},
		{"no cell named", src, nbEdit{mode: "replace", source: strp("")}, "pass cell_id or cell_number"},
		{"id and number disagree", src, nbEdit{mode: "replace", cellID: "calc", number: intp(0), source: strp("")}, `cell_id "calc" is cell 1, not cell_number 0`},
		{"replace without source", src, nbEdit{mode: "replace", cellID: "calc"}, "new_source is required"},
		{"insert without source", src, nbEdit{mode: "insert"}, "new_source is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := editNotebook(tt.text, tt.e)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want %q", err, tt.err)
			}
		})
	}
}

// FuzzEditNotebook checks, for any notebook text and edit, that an edit
// which succeeds leaves valid JSON with the cell changed as asked and the
// other cells as they were.
func FuzzEditNotebook(f *testing.F) {
	f.Add(`{"cells":[{"cell_type":"code","source":"a","outputs":[1],"execution_count":2}],"nbformat":4}`, "replace", 0, "b\nc", "")
	f.Add(`{"nbformat":4,"cells":[ ]}`, "insert", 0, "x", "markdown")
	f.Add("{\n \"cells\": [\n  {\"cell_type\": \"raw\", \"source\": [\"}\\\"]\"]},\n  {\"cell_type\": \"markdown\", \"source\": []}\n ],\n \"nbformat\": 4, \"nbformat_minor\": 5\n}", "delete", 1, "", "")
	f.Add("{\n \"cells\": [\n  {\"cell_type\": \"raw\", \"id\": \"a\", \"source\": \"q\"}\n ], \"nbformat\": 4}", "replace", 0, "é\r\n<b>", "code")
	f.Fuzz(func(t *testing.T, text, mode string, number int, source, cellType string) {
		if mode != "replace" && mode != "insert" && mode != "delete" {
			mode = "replace"
		}
		if cellType != "" && cellType != "code" && cellType != "markdown" && cellType != "raw" {
			cellType = ""
		}
		if !utf8.ValidString(source) {
			return // arguments arrive as JSON strings: always valid UTF-8
		}
		var before struct {
			Cells []json.RawMessage `json:"cells"`
		}
		if json.Unmarshal([]byte(text), &before) != nil {
			return
		}
		r, err := editNotebook(text, nbEdit{mode: mode, number: &number, source: &source, cellType: cellType})
		if err != nil {
			return
		}
		var after struct {
			Cells []map[string]json.RawMessage `json:"cells"`
		}
		if err := json.Unmarshal([]byte(r.Text), &after); err != nil {
			t.Fatalf("result is not valid JSON: %v\n%s", err, r.Text)
		}
		want := len(before.Cells)
		switch mode {
		case "insert":
			want++
		case "delete":
			want--
		}
		if len(after.Cells) != want {
			t.Fatalf("%d cells, want %d\n%s", len(after.Cells), want, r.Text)
		}
		if mode == "delete" {
			return
		}
		c := after.Cells[r.Index]
		if got := decodeSource(string(c["source"])); got != toLF(source) {
			t.Errorf("source %q, want %q", got, toLF(source))
		}
		var typ string
		json.Unmarshal(c["cell_type"], &typ)
		if typ != r.Type {
			t.Errorf("cell_type %q, want %q", typ, r.Type)
		}
		_, outputs := c["outputs"]
		if (typ == "code") != outputs {
			t.Errorf("a %s cell with outputs=%v", typ, outputs)
		}
	})
}
