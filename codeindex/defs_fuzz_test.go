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

// The readers that stand in for a parse (luaDefs, rustDefs) read every
// file of a workspace: whatever the text, they must not panic (a panic in
// a build ends the server), and what they read must be what the parse they
// replace finds. `go test` runs the seeds; `go test -fuzz FuzzRustDefs
// ./codeindex/` searches.

// FuzzRustDefs: when rustDefs reads a text that parses without errors, it
// finds the definitions of the skeleton's parse (parseDefs, what the build
// does without it).
func FuzzRustDefs(f *testing.F) {
	fuzzBuildPass(f, "rust", rustDefs,
		`pub struct A { pub a: u8, b: Vec<T> } impl A { pub fn new() -> Self { A { a: 1, b: vec![] } } }`,
		`enum E { B, C(u8), D { x: u8 }, F = 1 << 3 } trait T: Sized { type X; fn f(&self) -> u8; }`,
		`mod m { pub const X: u8 = 1; static Y: &str = "y"; pub type Z<T> = Vec<T>; } macro_rules! g { () => {} }`,
		`extern "C" { fn a(x: u8) -> u8; } fn a() { let x = 1; fn b() {} struct C; impl C { fn d(&self) {} } }`,
		`impl<'a, T: Copy> Q<'a> for R<T> where T: Send { fn f<U>(u: U) -> impl Iterator<Item = U> { std::iter::once(u) } }`,
		`#[derive(Debug)] pub(crate) struct S(pub u8, String); union U { x: u32, y: f32 } async fn h() {}`,
	)
}

// FuzzCSDefs: as FuzzRustDefs, for csDefs.
func FuzzCSDefs(f *testing.F) {
	fuzzBuildPass(f, "csharp", csDefs,
		"using System;\nnamespace N { public class A<T> : B where T : new() { private int x = 1; public int P { get; set; } = 2; public void F(int a, string b = \"x\") { } } }",
		"namespace N.M;\n[Serializable] internal sealed partial class C { public C() : base() { } ~C() { } public static C operator +(C a, C b) => a; }",
		"interface I { void F(); event EventHandler E; int this[int i] { get; } } enum E : byte { A = 1, B } struct S { } delegate void D(int x);",
		"class A { #if X\n void F() { }\n #else\n void G() { }\n #endif\n record R(int X); int I.J() => 1; }",
	)
}

// FuzzJavaDefs: as FuzzRustDefs, for javaDefs.
func FuzzJavaDefs(f *testing.F) {
	fuzzBuildPass(f, "java", javaDefs,
		"package a.b;\nimport java.util.*;\nimport static a.B.c;\n@Deprecated()\npublic class A<T extends B & C<T>> extends D<? super T> implements E, F.G<int[]> {\n    @java.io.Serial\n    private static final long x = 1L, y = -2, z;\n    Object[] o = {}; int p = q.r, s = t(), u = new V();\n    public A() {}\n    A(E e, final int[] f) throws X, Y {}\n    static {}\n    {}\n    public <U> List<U>[] m() throws Z {}\n    abstract void n();\n    class I {}\n}\n",
		"interface I<T> extends J, K<T> { int A = 1, B; default void m() {} static int n() {} void o(); enum E { X, Y(), Z; int f; E() {} } }\nenum F implements G { A, B, }\n",
		"class A { void f() throws E { int x = 1; try {} catch (E e) {} } record R(int x) {} @interface N {} sealed interface S permits A {} int x = a - 1; }",
	)
}

// FuzzJSDefs: as FuzzRustDefs, for jsDefs.
func FuzzJSDefs(f *testing.F) {
	fuzzBuildPass(f, "javascript", jsDefs,
		"\"use strict\";\nconst a = require(\"a\"), b = () => { return 1; };\nlet c;\nvar d = function () { return c; };\nmodule.exports = class C extends a.B { m() { const f = () => {}; } static s = 1; #p; get g() { return 2; } };\n",
		"function f(x) { if (x) { function g() {} } else { return x ? y : z; } }\nexports.h = function (a) { return a / 2; };\nX.Y = class {};\n",
		"const o = { m() {}, p: function () {}, q: async () => {}, 'r': 1, [s]: function* () {}, ...t };\nexport const e = `a${b}c`, ef = /re/g;\n",
		"for (const [k, v] of m) { let f = (a, b = {}) => a + b; } switch (x) { case 1: break; default: y(); }\ntry { a(); } catch (e) { b(); } finally { c(); }\n",
		"#!/usr/bin/env node\nconst a = require('a')\nconst b = () => {\n  return a\n}\nmodule.exports = { b, c () { return\n(1) } }\nlet d = e\n(f)\n[g] = h\n++i\nclass C { x = 1\n y }\n",
		"import x, { a as b } from \"m\";\nexport default function App() { return 1; }\nexport { x, b as c };\nexport const d = () => {}, e = `t${x}`;\nexport default class extends B { m() {} }\n",
	)
}

// FuzzPyDefs: as FuzzRustDefs, for pyDefs.
func FuzzPyDefs(f *testing.F) {
	fuzzBuildPass(f, "python", pyDefs,
		"import os\n\nX = 1\ny: int = 2\n\n\nclass A(B):\n    \"\"\"Doc.\"\"\"\n    z = [1, 2]\n\n    @property\n    def f(self):\n        return self.z  # c\n    # trailing\n\n\ndef g(*a, **k) -> int:\n    def h(): pass\n    return h\n",
		"try:\n    import a\nexcept ImportError:\n    def a(): return 1\nelse:\n    a = None\n\nif __name__ == '__main__':\n    class C: pass\n    C.x = lambda: 0\n",
		"async def f(x):\n    async with x as y:\n        def g(): ...\n      # in between\n    return [i for i in y if i]\n\nclass D:\n    a, b = 1, 2\n    c = d = 3\n    e == 4\n    def m(self): x = 1; return x\n",
		"for i in range(3):\n    def f(i=i):\n        while True:\n            break\n\n        # after\n# out\nwhile x:\n    pass\nelse:\n    Z = 'z'\n",
	)
}

// fuzzBuildPass: when pass reads a text that parses without errors, it
// finds the definitions of the skeleton's parse.
func fuzzBuildPass(f *testing.F, lang string, pass func(*extractor, *Language, []byte) bool, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	l := LanguageByName(lang)
	if err := l.load(); err != nil {
		f.Fatal(err)
	}
	x := newExtractor()
	f.Cleanup(x.Close)
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<15 {
			return
		}
		if !pass(x, l, src) {
			return
		}
		got := symbols(x.collect(l, src, &x.sk), "a")
		if !parsesClean(t, x, l, src) {
			return
		}
		sd, err := x.parseDefs(l, src)
		if err != nil {
			t.Fatal(err)
		}
		if want := symbols(sd, "a"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s reader\n%v\nskeleton parse\n%v", lang, got, want)
		}
	})
}

// FuzzLuaDefs: when luaDefs reads a text that parses without errors, it
// finds the definitions of the full parse.
func FuzzLuaDefs(f *testing.F) {
	for _, s := range luaSnippets {
		f.Add([]byte(s))
	}
	l := LanguageByName("lua")
	if err := l.load(); err != nil {
		f.Fatal(err)
	}
	x := newExtractor()
	f.Cleanup(x.Close)
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<15 {
			return
		}
		if !luaDefs(x, l, src) {
			return
		}
		got := symbols(x.collect(l, src, nil), "a.lua")
		ref := blankComments(l, src)
		tree, err := x.parse(context.Background(), l, ref, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tree.Close()
		if tree.RootNode().HasError() {
			return
		}
		if want := x.definitions(l, tree, ref, "a.lua"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("luaDefs\n%v\nfull parse\n%v", got, want)
		}
	})
}

// parsesClean reports whether a full parse of src has no syntax error.
func parsesClean(t *testing.T, x *extractor, l *Language, src []byte) bool {
	tree, err := x.parse(context.Background(), l, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	return !tree.RootNode().HasError()
}

// FuzzSkeletonDefs: for every language, what the build finds in a text
// (skeletonDefs: the defsPass, the buildPass or the skeleton's parse) is
// found without a panic. The first byte picks the language. That it is
// what a full parse finds is checked on real code (TestSkeletonCorpora),
// not here: the grammars read some nonsense without an error node (C++:
// `A A{A0 A0{A()const{ r; }} }` holds a function), which no skeleton needs
// to follow.
func FuzzSkeletonDefs(f *testing.F) {
	langs := Languages()
	seeds := map[string]string{
		"go":         "package p\n\nfunc F(x int) int { return x }\n\ntype T struct{ a int }\n",
		"python":     "class A:\n    def f(self):\n        return [x for x in y]\n\ndef g(): pass\n",
		"ruby":       "class A\n  def f(x)\n    x.each { |y| y }\n  end\nend\n",
		"c":          "struct s { int a; };\nstatic int f(int x) { return x * 2; }\n",
		"cpp":        "namespace n { class A { public: int f() const { return 1; } }; }\n",
		"java":       "class A { int f() { return 1; } interface B {} }\n",
		"csharp":     "namespace N { public class A { [X] public int P { get; set; } void F() { } } }\n",
		"javascript": "class A { f() { return () => 1 } }\nconst g = function () {}\n",
		"typescript": "interface I { f(): void }\nexport class A implements I { f() {} }\n",
		"php":        "<?php\nclass A { public function f() { return [1, 2]; } }\nfunction g() {}\n",
		"rust":       "pub struct A { a: u8 }\nimpl A { fn f(&self) -> u8 { self.a } }\n",
		"lua":        "local M = {}\nfunction M.f(x) return x end\nM.g = function() end\nreturn M\n",
	}
	for i, l := range langs {
		if s, ok := seeds[l.Name]; ok {
			f.Add(append([]byte{byte(i)}, s...))
		}
	}
	x := newExtractor()
	f.Cleanup(x.Close)
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 || len(in) > 1<<15 {
			return
		}
		l, src := langs[int(in[0])%len(langs)], in[1:]
		if err := l.load(); err != nil {
			t.Fatal(err)
		}
		sd, err := x.skeletonDefs(l, src)
		if err != nil {
			t.Fatal(err)
		}
		_ = symbols(sd, "a")
	})
}

// TestReaderPanicLeavesTheFileOut: a panic in a language's reader (a bug:
// FuzzSkeletonDefs found one, a Python file ending in `"\`) leaves that
// file out of a build, and an open buffer of it keeps the server going; it
// does not end the process.
func TestReaderPanicLeavesTheFileOut(t *testing.T) {
	l := LanguageByName("python")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	saved := l.skeleton
	l.skeleton = func(*skelOut, []byte) bool { panic("reader bug") }
	defer func() { l.skeleton = saved }()

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.py"), []byte("def on_disk():\n    pass\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.go"), []byte("package p\n\nfunc Other() {}\n"), 0o644)
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := New(ws, Options{NoCache: true})
	defer ix.Close()
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(ix.Definition("Other", "")) != 1 || len(ix.Definition("on_disk", "")) != 0 {
		t.Errorf("after the panic: Other %v, on_disk %v", ix.Definition("Other", ""), ix.Definition("on_disk", ""))
	}
	// A buffer: every path of an update that reaches the reader.
	text := "def f():\n    return 1\n\ndef g():\n    pass\n"
	for v := range int32(3) {
		err := ix.UpdateBuffer(filepath.Join(dir, "a.py"), v+1, text+strings.Repeat("#\n", int(v)))
		if err == nil || !strings.Contains(err.Error(), "indexing a.py: reader bug") {
			t.Errorf("update %d: %v, want the reader's panic as an error", v, err)
		}
	}
	l.skeleton = saved
	if err := ix.UpdateBuffer(filepath.Join(dir, "a.py"), 9, text+"def h():\n    pass\n"); err != nil {
		t.Fatal(err)
	}
	if len(ix.Definition("h", "")) != 1 {
		t.Errorf("after the reader works again: h %v", ix.Definition("h", ""))
	}
}

// FuzzBufferEdits types into an open buffer of each language's sample
// (testdata/lang): two edits, each deleting up to 15 bytes at a place and
// inserting the fuzzer's bytes there. No update may panic, and after each
// the buffer's definitions (what a query reads) are those of a fresh parse
// of its text. The first byte picks the sample.
func FuzzBufferEdits(f *testing.F) {
	files, _ := filepath.Glob("testdata/lang/*.txtar")
	var samples []*txtar.File
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		samples = append(samples, &ar.Files[0])
	}
	for i := range samples {
		f.Add(uint8(i), uint16(40*i), uint8(0), "\"\\", uint16(7), uint8(3), "{(")
		f.Add(uint8(i), uint16(300), uint8(2), "x", uint16(301), uint8(0), "\n")
	}
	ix := emptyIndex(f)
	x := newExtractor()
	f.Cleanup(x.Close)
	f.Fuzz(func(t *testing.T, pick uint8, at1 uint16, del1 uint8, ins1 string, at2 uint16, del2 uint8, ins2 string) {
		if len(ins1)+len(ins2) > 4096 {
			return
		}
		s := samples[int(pick)%len(samples)]
		l := LanguageFor(s.Name)
		text := string(s.Data)
		if err := ix.UpdateBuffer(s.Name, 1, text); err != nil {
			t.Fatal(err)
		}
		defer ix.CloseBuffer(s.Name)
		for i, e := range []struct {
			at, del int
			ins     string
		}{{int(at1), int(del1 % 16), ins1}, {int(at2), int(del2 % 16), ins2}} {
			p := e.at % (len(text) + 1)
			text = text[:p] + e.ins + text[min(len(text), p+e.del):]
			if err := ix.UpdateBuffer(s.Name, int32(i+2), text); err != nil {
				t.Fatal(err)
			}
			got, _ := ix.Outline(s.Name)
			tree, err := x.parse(context.Background(), l, []byte(text), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := x.definitions(l, tree, []byte(text), s.Name)
			describe(l, []byte(text), want)
			tree.Close()
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s, edit %d: the buffer's\n%s\nfresh parse\n%s\ntext:\n%s", s.Name, i, symLines(got), symLines(want), text)
			}
		}
	})
}
