package builtin

import (
	"strings"
	"testing"
)

func TestApplyEdit(t *testing.T) {
	const goSrc = "func f() {\n\tif x {\n\t\treturn 1\n\t}\n\treturn 2\n}\n"
	tests := []struct {
		name     string
		text     string
		old, new string
		all      bool
		want     string
		kind     matchKind
		count    int
		err      string // substring of the error, when one is expected
	}{
		{name: "exact", text: "a\nb\nc\n", old: "b", new: "B", want: "a\nB\nc\n", count: 1},
		{name: "exact multi-line", text: goSrc, old: "\t\treturn 1\n\t}", new: "\t\treturn 3\n\t}", want: strings.Replace(goSrc, "return 1", "return 3", 1), count: 1},
		{name: "ambiguous", text: "x\ny\nx\nz\nx\n", old: "x", new: "X", err: "matches 3 places in f.go, at lines 1, 3 and 5"},
		{name: "ambiguous names lines", text: "x\ny\nx\n", old: "x", new: "X", err: "at lines 1 and 3: add surrounding lines to make it unique, or pass replace_all"},
		{name: "replace all", text: "x\ny\nx\n", old: "x", new: "X", all: true, want: "X\ny\nX\n", count: 2},
		{name: "identical", text: "a", old: "a", new: "a", err: "identical"},
		{name: "identical after CRLF", text: "a\nb", old: "a\r\nb", new: "a\nb", err: "identical"},
		{name: "not found", text: "a\nb\n", old: "c", new: "d", err: "was not found in f.go"},
		{name: "not found, first line found", text: "a\nb\nc\nd\n", old: "\n  b\nX", new: "d", err: "Its first line matches line 2, but what follows differs; the file has there:\n2→b\n3→c\nCopy the lines exactly"},
		{name: "empty old on empty file", text: "", old: "", new: "hello\n", want: "hello\n", count: 1},
		{name: "empty old on non-empty file", text: "a", old: "", new: "b", err: "old_string is empty"},
		{name: "CRLF old matches LF text", text: "a\nb\nc\n", old: "a\r\nb\r\n", new: "x\r\n", want: "x\nc\n", count: 1},
		{name: "line-number prefixes", text: goSrc, old: "     3→\t\treturn 1\n     4→\t}", new: "     3→\t\treturn 7\n     4→\t}", want: strings.Replace(goSrc, "return 1", "return 7", 1), kind: matchStripped, count: 1},
		{name: "line-number prefixes, plain new", text: goSrc, old: "3→\t\treturn 1", new: "\t\treturn 7", want: strings.Replace(goSrc, "return 1", "return 7", 1), kind: matchStripped, count: 1},
		{name: "trailing spaces in file", text: "a  \nb\t\nc\n", old: "a\nb\n", new: "A\nB\n", want: "A\nB\nc\n", kind: matchLoose, count: 1},
		{name: "trailing spaces in old", text: "a\nb\nc\n", old: "a \nb  ", new: "A\nB", want: "A\nB\nc\n", kind: matchLoose, count: 1},
		{name: "spaces for tabs", text: goSrc, old: "    if x {\n        return 1\n    }", new: "    if y {\n        return 1\n    }", want: strings.Replace(goSrc, "if x", "if y", 1), kind: matchLoose, count: 1},
		{name: "spaces for tabs, deeper new line", text: goSrc, old: "    if x {\n        return 1\n    }", new: "    if x {\n        if z {\n            return 0\n        }\n        return 1\n    }",
			want: "func f() {\n\tif x {\n\t\tif z {\n\t\t\treturn 0\n\t\t}\n\t\treturn 1\n\t}\n\treturn 2\n}\n", kind: matchLoose, count: 1},
		{name: "tabs for spaces", text: "def f():\n    if x:\n        return 1\n", old: "\tif x:\n\t\treturn 1", new: "\tif x:\n\t\treturn 2", want: "def f():\n    if x:\n        return 2\n", kind: matchLoose, count: 1},
		{name: "loose ambiguous", text: "\tx()\n\ty()\n  x()  \n", old: "x()", new: "z()", err: "matches 2 places"},
		{name: "loose replace all", text: "\tx()\n\ty()\n  x()  \n", old: "   x()", new: "   z()", all: true, want: "\tz()\n\ty()\n  z()\n", kind: matchLoose, count: 2},
		{name: "prefixes and spaces", text: goSrc, old: "     5→    return 2", new: "     5→    return 5", want: strings.Replace(goSrc, "return 2", "return 5", 1), kind: matchLoose, count: 1},
		{name: "blank old never matches loosely", text: "a\n\n  \nb\n", old: "   \n", new: "x", err: "not found"},
		{name: "whole lines deleted", text: "a\n  b  \nc\n", old: "b\n", new: "", want: "a\nc\n", kind: matchLoose, count: 1},
		{name: "last line without newline", text: "a\n  b", old: "b\n", new: "c\n", want: "a\n  c\n", kind: matchLoose, count: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := applyEdit("f.go", tt.text, tt.old, tt.new, tt.all)
			if tt.err != "" {
				if err == nil {
					t.Fatalf("no error; got %q", out.Text)
				}
				if !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %q, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Text != tt.want {
				t.Errorf("text\n got %q\nwant %q", out.Text, tt.want)
			}
			if out.Kind != tt.kind || out.Count != tt.count {
				t.Errorf("kind, count = %v, %d; want %v, %d", out.Kind, out.Count, tt.kind, tt.count)
			}
		})
	}
}

func TestLineList(t *testing.T) {
	text := strings.Repeat("x\n", 20)
	hits := exactHits(text, "x", "y")
	if got := lineList(text, hits); got != "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and more" {
		t.Errorf("lineList = %q", got)
	}
	if got := lineList(text, hits[4:5]); got != "line 5" {
		t.Errorf("lineList = %q", got)
	}
}
