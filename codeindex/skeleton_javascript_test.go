package codeindex

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// jsSkeletons returns JavaScript's skeleton maker with jsSkip and one
// without (block reads every brace).
func jsSkeletons() (with, without func(*skelOut, []byte) bool) {
	LanguageByName("javascript") // the syntax records' tables
	plain := *jsSyntax
	plain.jsBodies = false
	return bracketSkeleton(jsSyntax), bracketSkeleton(&plain)
}

// sameSkeleton reports whether two skeleton makers make the same
// skeleton of src, and what each made.
func sameSkeleton(a, b func(*skelOut, []byte) bool, src []byte) (bool, string, string) {
	var ka, kb skelOut
	oka, okb := a(&ka, src), b(&kb, src)
	sa := fmt.Sprint(oka, string(ka.buf), ka.segs, ka.fixes, ka.starts)
	sb := fmt.Sprint(okb, string(kb.buf), kb.segs, kb.fixes, kb.starts)
	return sa == sb, sa, sb
}

// TestJSSkipCorpus checks that jsSkip leaves the skeletons of the
// JavaScript corpus as they are without it, byte for byte and piece for
// piece.
func TestJSSkipCorpus(t *testing.T) {
	root := os.Getenv("AGENTLS_CORPUS")
	if root == "" || testing.Short() {
		t.Skip("AGENTLS_CORPUS not set (bench/index/corpora.sh installs the corpora), or -short")
	}
	with, without := jsSkeletons()
	files, diffs := 0, 0
	filepath.WalkDir(filepath.Join(root, "javascript"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || LanguageFor(p) == nil || LanguageFor(p).Name != "javascript" {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > maxFileSize || skip(src) {
			return nil
		}
		files++
		if same, _, _ := sameSkeleton(with, without, src); !same {
			diffs++
			t.Errorf("%s: the skeleton differs with jsSkip", p)
		}
		return nil
	})
	t.Logf("%d files, %d differ", files, diffs)
}

// TestJSSkip: jsSkip leaves out whole the braces that define nothing, and
// leaves to block those that may.
func TestJSSkip(t *testing.T) {
	with, without := jsSkeletons()
	for _, src := range []string{
		"function f(a) { if (a) { return a / 2; } return /x{/.test(a) ? `}` : '}'; }\n",
		"function f() { const g = () => {}; }\nfunction h() { const o = { m() {} }; }\n",
		"function f() { x = y ? g(a) : { b: 1 }; return <div>{a}</div>; }\nclass A { m() { for (;;) { break; } } }\n",
		"function f() { while (x) { y(); } switch (x) { case 1: { z(); } } }\n",
		"function f() { return function () {}; }\nfunction g() { class B {} }\n",
	} {
		if same, a, b := sameSkeleton(with, without, []byte(src)); !same {
			t.Errorf("%q:\nwith jsSkip    %s\nwithout jsSkip %s", src, a, b)
		}
	}
	var k skelOut
	bskelOf := func(src string) *bskel {
		k.reset()
		return &bskel{skeleton: skeleton{src: []byte(src), out: &k}, lx: lexer{sx: jsSyntax, src: []byte(src)}, sx: jsSyntax}
	}
	for src, want := range map[string]int{
		"{ a(b); if (c) { d / e; } }": 26,
		"{ x = /}/; }":                11,
		"{ a = () => 1; }":            -1,
		"{ o = { m() {} }; }":         -1,
		"{ a = function () {}; }":     -1,
		"{ c ? f(x) : { b: 1 }; }":    -1,
		"{ a(b) }":                    7,
		"{ a(b]; }":                   -1,
	} {
		if got := bskelOf(src).jsSkip(1); got != want {
			t.Errorf("jsSkip(%q) = %d, want %d", src, got, want)
		}
	}
}

// FuzzJSSkip: whatever the text, jsSkip leaves the skeleton as it is
// without it.
func FuzzJSSkip(f *testing.F) {
	f.Add([]byte("function f(a) { if (a) { return a / 2; } return /x{/.test(a) ? `${b}}` : '}'; }\nconst o = { m() { return (x) => x; } };\n"))
	f.Add([]byte("class A { m() { const x = y ? g(a) : { b: 1 }; return <p>{x}</p>; } }\nexports.f = function () { while (a < b) { a++; } };\n"))
	with, without := jsSkeletons()
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<15 {
			return
		}
		if same, a, b := sameSkeleton(with, without, src); !same {
			t.Errorf("with jsSkip    %s\nwithout jsSkip %s", a, b)
		}
	})
}

// TestSkeletonJSXDefinitions: a definition in an expression of JSX (a
// render prop's local functions) or a TypeScript alias in a function's
// body stays in the skeleton, which finds the definitions of a full parse;
// a callback that defines nothing is still one literal to the skeleton.
func TestSkeletonJSXDefinitions(t *testing.T) {
	x := newExtractor()
	defer x.Close()
	for _, c := range []struct {
		lang, src string
		skeleton  bool // the skeleton has the file (not parsed whole)
	}{
		{"tsx", "export const C = () => {\n  return (\n    <X>\n      {({ a }) => {\n        const f = (e: E) => { g(e); };\n        return <Y onClick={f} />;\n      }}\n    </X>\n  );\n};\n", false},
		{"tsx", "function T() {\n  return <X>{() => { const o = { m() { return 1; } }; return o; }}</X>;\n}\n", false},
		{"tsx", "function T() {\n  return <X onClick={() => { if (a) { b(); } }} data={x.type} />;\n}\n", true},
		{"tsx", "describe('x', () => {\n  type W = 10 | 15;\n  it('y', () => { run(); });\n});\nfunction g() { return 1; }\n", true},
		{"typescript", "function f() {\n  type T = string;\n  return 1 as T;\n}\nfunction g() { return 1; }\n", true},
		{"javascript", "function C() {\n  return <X render={() => { a.b = () => 1; }} />;\n}\n", false},
		{"javascript", "function C() {\n  return <X render={(v) => v / 2} />;\n}\n", true},
	} {
		l := LanguageByName(c.lang)
		if err := l.load(); err != nil {
			t.Fatal(err)
		}
		src := []byte(c.src)
		tree, err := x.parse(context.Background(), l, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tree.RootNode().HasError() {
			t.Fatalf("%q does not parse", c.src)
		}
		want := fmt.Sprint(x.definitions(l, tree, src, "a"))
		tree.Close()
		sd, err := x.parseDefs(l, src)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(symbols(sd, "a")); got != want {
			t.Errorf("%s %q:\nskeleton %s\nfull     %s", c.lang, c.src, got, want)
		}
		if sk := l.skeleton(&x.sk, src); sk != c.skeleton {
			t.Errorf("%s %q: skeleton %v, want %v", c.lang, c.src, sk, c.skeleton)
		}
	}
}
