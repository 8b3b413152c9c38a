package codeindex

import (
	"bytes"
	"maps"
	"testing"
)

// TestDocAbove reads the doc comment above a definition (the line holding
// "DEF") by each language's comment forms and lexer.
func TestDocAbove(t *testing.T) {
	for _, c := range []struct{ file, src, want string }{
		{"a.go", "// F adds.\n// More.\nfunc DEF() {}\n", "F adds."},
		{"a.go", "// Unrelated.\n\nfunc DEF() {}\n", ""},
		{"a.go", "/*\n * F adds.\n */\nfunc DEF() {}\n", "F adds."},
		{"a.go", "x := \"// not a comment\"\nfunc DEF() {}\n", ""},
		{"a.rs", "/// Adds.\n//! inner\nfn DEF() {}\n", "Adds."},
		{"a.c", "#define X 1\n/** Adds. */\nint DEF(void) {}\n", "Adds."},
		{"a.c", "/* Old. */\n#define X 1\nint DEF(void) {}\n", ""},
		{"a.py", "#!/usr/bin/env python\ndef DEF(): pass\n", ""},
		{"a.py", "# Adds.\n#\ndef DEF(): pass\n", "Adds."},
		{"a.lua", "--[[ Adds\n  things. ]]\nfunction DEF() end\n", "Adds"},
		{"a.lua", "--[==[\nAdds.\n]==]\nfunction DEF() end\n", "Adds."},
		{"a.lua", "--- Adds.\n-- @param x\nfunction DEF(x) end\n", "Adds."},
		{"a.rb", "# Adds.\ndef DEF; end\n", "Adds."},
		{"a.php", "<?php\n#[Attr]\nfunction DEF() {}\n", ""},
		{"a.php", "<?php\n# Adds.\nfunction DEF() {}\n", "Adds."},
	} {
		src := []byte(c.src)
		off := bytes.Index(src, []byte("DEF"))
		ls := bytes.LastIndexByte(src[:off], '\n') + 1
		l := LanguageFor(c.file)
		if got := docAbove(l, src, uint32(ls), 0); got != c.want {
			t.Errorf("%s %q: doc %q, want %q", c.file, c.src, got, c.want)
		}
	}
}

// TestGoImports reads a Go file's imports by Go's lexer: aliases, groups,
// comments (block ones too) and /vN paths; it stops at the first
// declaration.
func TestGoImports(t *testing.T) {
	src := []byte(`// Package p.
package p /* p */

import "fmt"
import (
	"net/http" // the client
	/* "os" is not imported */
	str "strings"
	_ "embed"
	. "math"
	"example.com/mod/v2"
	"example.com/v2x"
)

import "io"; import "bytes"

func f() {}

import "late"
`)
	got := goImports(goSyntax, src)
	want := map[string]string{"fmt": "fmt", "http": "net/http", "str": "strings", "mod": "example.com/mod/v2", "v2x": "example.com/v2x", "io": "io", "bytes": "bytes"}
	if !maps.Equal(got, want) {
		t.Errorf("imports\n%v\nwant\n%v", got, want)
	}
}
