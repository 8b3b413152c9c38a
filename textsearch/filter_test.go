package textsearch

import (
	"testing"
)

func TestFilter(t *testing.T) {
	cases := []struct {
		glob, typ string
		yes, no   []string
	}{
		{"*.go", "", []string{"a.go", "x/y/b.go"}, []string{"a.gox", "go"}},
		{"*.{ts,tsx}", "", []string{"a.ts", "d/a.tsx"}, []string{"a.js"}},
		{"!**/vendor/**", "", []string{"a.go", "vendorx/a.go"}, []string{"vendor/a.go", "x/vendor/y/z.go"}},
		{"src/**/*.py", "", []string{"src/a.py", "src/x/y.py"}, []string{"lib/src/a.py", "a.py"}},
		{"", "go", []string{"a.go"}, []string{"a.c"}},
		{"", "c", []string{"a.c", "b.h", "c.H"}, []string{"a.cc"}},
		{"", "make", []string{"Makefile", "x/GNUmakefile", "a.mk"}, []string{"make.go"}},
		{"", "rb", []string{"Gemfile", "a.rb"}, []string{"a.py"}},
		{"*_test.go", "go", []string{"a_test.go"}, []string{"a.go", "a_test.c"}},
		// A trailing slash names directories (rg -g '!sub/'): what is under them.
		{"!sub/", "", []string{"a.go", "subx/a.go", "sub", "x/subx/a"}, []string{"sub/a.go", "x/sub/b/c.go"}},
		{"sub/", "", []string{"sub/a.go", "x/sub/b.go"}, []string{"sub", "a.go"}},
		// An excluded directory excludes its files, walked or listed.
		{"!vendor", "", []string{"a.go", "vendorx/a.go"}, []string{"vendor", "vendor/a.go", "x/vendor/b/c.go"}},
	}
	for _, c := range cases {
		f, err := NewFilter(c.glob, c.typ)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.yes {
			if !f.Match(p) {
				t.Errorf("%q/%q should select %s", c.glob, c.typ, p)
			}
		}
		for _, p := range c.no {
			if f.Match(p) {
				t.Errorf("%q/%q should not select %s", c.glob, c.typ, p)
			}
		}
	}
	f, _ := NewFilter("!**/vendor/**", "")
	if !f.SkipDir("x/vendor") || f.SkipDir("x/src") {
		t.Error("SkipDir")
	}
	if f, _ := NewFilter("!sub/", ""); !f.SkipDir("x/sub") || f.SkipDir("subx") {
		t.Error("SkipDir of a directory glob")
	}
	// An unknown type names the three closest, not the whole list.
	_, err := NewFilter("", "typescirpt")
	if err == nil || err.Error() != `unknown file type "typescirpt"; the closest known types are typescript, typoscript, javascript` {
		t.Errorf("unknown type: %v", err)
	}
}
