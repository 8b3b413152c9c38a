package codeindex

import (
	"fmt"
	"testing"
)

// TestJSDefsCorpus checks that jsDefs finds exactly the definitions of
// the skeleton's parse (which TestSkeletonCorpora checks against the full
// parse) in every file of the JavaScript corpus it reads; the files it
// leaves to the parse are counted, and where it stopped logged.
func TestJSDefsCorpus(t *testing.T) {
	checkBuildPassCorpus(t, "javascript", jsDefs, func(x *extractor) []byte {
		if at := x.js.failAt; at >= 0 && at < len(x.sk.buf) {
			return x.sk.buf[at:min(len(x.sk.buf), at+12)]
		}
		return nil
	})
}

// TestJSDefsSnippets checks jsDefs against the skeleton's parse on the
// corners of what it reads, and that it leaves to the parse what it must
// not read.
func TestJSDefsSnippets(t *testing.T) {
	l := LanguageByName("javascript")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	x := newExtractor()
	defer x.Close()
	read := []string{
		"const a = require(\"a\"), b = () => {}; let c; var d = function () { return 1; };\n",
		"function f(a, b) { const g = () => { return a; }; if (a) { function h() {} } return g; }\n",
		"class A extends B { constructor(x) { super(x); this.y = x; } static s = 1; #p = 2; get z() { return 1; } static async *w() {} #q() {} m() {} }\n",
		"module.exports = class C {}; X.Template = class extends Y {}; exports.f = function () {}; a.b.c = () => {};\n",
		"const o = { m() {}, p: function () {}, q: () => {}, 'r': function () {}, [s]: function () {}, get t() { return 1; }, async u() {}, ...v };\n",
		"export const e = 1; export function ef() {} export class EC {} export var ev = () => {};\n",
		"x = cond ? () => a : b; y = a ?? b; z = a?.b?.(c)?.[d]; w = /re\\/x/g.test(s) ? 1 : 2 / 3; const t = `a${b + 1}c`;\n",
		"for (const [k, v] of m) { const f = () => {}; } while (x) { x--; } do { y++; } while (y < 3); try { a(); } catch (e) { b(); } finally { c(); }\n",
		"switch (x) { case 1: { const f = function () {}; break; } default: g(); }\n",
		"const C = class D { m() {} }; let q = new (class E {})(); (function () { var iife = () => {}; })();\n",
		"const a = `${(() => { const f = () => {}; })()}`, b = `x${`y${c}`}z`; a: for (;;) { const g = () => {}; break a; }\n",
		"const get = 1, set = () => {}, async = 2, of = 3, static = 4;\n",
		"#!/usr/bin/env node\nconst a = require('a'), b = () => {};\n",
		// The grammar's automatic semicolons.
		"function f() { throw\nfunction g() {} }\nfunction h() { return\nfunction i() {} }\n",
		"const a = 1\nconst b = () => {}\nlet c = d\n(e)\nf = g\n[0]\nh()\n++i\nj\n.k()\nconst l = function () {}\n`x`\n",
		"function f() { return\nfunction g() {} }\nfunction h() { if (a) b()\nelse c()\nreturn }\nclass C { x = 1\ny = () => {}\nm() {} }\nexport { a }\nimport d from 'e'\n",
		"import x from \"m\";\nimport { a, b as c } from 'm';\nimport * as ns from \"m\";\nimport \"m\";\nimport d, { e } from \"m\";\nexport { a, c as f };\nexport * from \"m\";\nexport * as g from \"m\";\nexport { h } from \"m\";\n",
		"export default function App() { const f = () => {}; }\nexport async function af() {}\nexport default class C extends B { m() {} }\nexport default { m() {} };\nexport default x => x;\n",
		"export default function () { const f = () => {}; }\nexport const a = 1;\nexport default class extends B {}\n",
		"const a = /** @type {A} */ (b), c = x\n+ y, d = e\n(f);\n",
	}
	for _, src := range read {
		src += "function body() { return 1; }\n" // a cut: a skeleton
		if !jsDefs(x, l, []byte(src)) {
			at := x.js.failAt
			if at < 0 {
				t.Errorf("jsDefs left %q to the parse (no skeleton)", src)
				continue
			}
			t.Errorf("jsDefs left %q to the parse (stopped at %d: %q)", src, at, x.sk.buf[min(at, len(x.sk.buf)):])
			continue
		}
		got := symbols(x.collect(l, []byte(src), &x.sk), "a")
		sd, err := x.parseDefs(l, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if want := symbols(sd, "a"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q:\njsDefs %v\nparse  %v", src, got, want)
		}
	}
	refused := []string{
		"const a = <div>{() => {}}</div>;\n",    // JSX
		"@dec class A { m() {} }\n",             // decorators
		"import(\"m\").then(() => {});\n",       // dynamic import
		"export default function () {}\n(1);\n", // whether the grammar calls it
		"export default async function () {}\n",
		"import type { T } from \"m\";\n",      // Flow
		"const f = (a: T, b) => {};\n",         // Flow's and TypeScript's types
		"x + a.b = function () {};\n",          // an assignment inside an expression
		"const f = () => {}\n-1;\n",            // an automatic semicolon after an arrow function
		"x = a\ninstanceof B;\n",               // and before a word
		"const f = function () {} <!-- x\n;\n", // an HTML comment
	}
	for _, src := range refused {
		src += "function body() { return 1; }\n"
		if jsDefs(x, l, []byte(src)) {
			t.Errorf("jsDefs read %q", src)
		}
	}
}
