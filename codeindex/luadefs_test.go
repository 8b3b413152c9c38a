package codeindex

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// TestLuaDefsCorpus checks that luaDefs finds exactly the definitions of
// a full parse (with the walk) in every file of the Lua corpus that
// tree-sitter-lua parses without errors; the reference is the parse of
// the file with the text of its comments blanked, as for the skeleton
// (the grammar reads annotations in comments). Files it cannot read are
// left to the parser (counted, and what the build then finds compared);
// files with syntax errors are counted, and those where it finds other
// definitions than the (error-recovering) parse too.
func TestLuaDefsCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("parses the Lua corpus")
	}
	root := os.Getenv("AGENTLS_CORPUS")
	if root == "" {
		t.Skip("AGENTLS_CORPUS not set (bench/index/corpora.sh installs the corpora)")
	}
	dir := filepath.Join(root, "lua")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpus: %v", err)
	}
	l := LanguageByName("lua")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	x := newExtractor()
	defer x.Close()
	var full, fast time.Duration
	files, withErrors, unread, unreadBroken, diffs, brokenDiffs := 0, 0, 0, 0, 0, 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || LanguageFor(p) != l {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > maxFileSize || skip(src) {
			return nil
		}
		files++
		ref := blankComments(l, src)
		t0 := time.Now()
		ft, err := x.parse(context.Background(), l, ref, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := x.definitions(l, ft, ref, p)
		broken := ft.RootNode().HasError()
		ft.Close()
		t1 := time.Now()
		ok := luaDefs(x, l, src)
		var b []Symbol
		if ok {
			b = symbols(x.collect(l, src, nil), p)
		} else {
			// Left to the parser: what the build finds (skeletonDefs) is
			// compared.
			sd, err := x.skeletonDefs(l, src)
			if err != nil {
				t.Fatal(err)
			}
			b = symbols(sd, p)
		}
		fast += time.Since(t1)
		full += t1.Sub(t0)
		if broken {
			withErrors++
		}
		if !ok {
			if broken {
				unreadBroken++
			} else {
				unread++
			}
		}
		switch {
		case fmt.Sprint(a) == fmt.Sprint(b):
		case broken:
			brokenDiffs++
			if os.Getenv("LUADEFS_BROKEN") != "" {
				sd, _ := x.parseDefs(l, src)
				if s := symbols(sd, p); fmt.Sprint(s) != fmt.Sprint(b) {
					t.Logf("%s (syntax errors): full %d definitions, luaDefs %d, skeleton parse %d; first difference from the skeleton parse: %s", p, len(a), len(b), len(sd), firstDiff(s, b))
				}
			}
		default:
			diffs++
			if diffs <= 12 {
				t.Logf("%s: full %d definitions, luaDefs %d; first difference: %s", p, len(a), len(b), firstDiff(a, b))
			}
		}
		return nil
	})
	t.Logf("%d files: %d with syntax errors (luaDefs read %d of them; %d with other definitions than the parse); of the others luaDefs read all but %d (left to the parser), %d differ; full parse+walk %v, luaDefs %v",
		files, withErrors, withErrors-unreadBroken, brokenDiffs, unread, diffs, full, fast)
	if diffs > 0 {
		t.Errorf("%d files differ from the full parse", diffs)
	}
	if unread > (files-withErrors)/100 {
		t.Errorf("luaDefs left %d files without syntax errors to the parser", unread)
	}
}

// TestLuaDefsSnippets checks luaDefs against a full parse on the corners
// of the grammar that the patterns see (see luaDefs): which identifiers of
// a target count as its last named child, the names and values of a
// declaration with several, tables of functions, nesting.
func TestLuaDefsSnippets(t *testing.T) {
	for i, src := range luaSnippets {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			l := LanguageByName("lua")
			if err := l.load(); err != nil {
				t.Fatal(err)
			}
			x := newExtractor()
			defer x.Close()
			b := []byte(src)
			tree, err := x.parse(context.Background(), l, blankComments(l, b), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			if tree.RootNode().HasError() {
				t.Fatalf("the sample has syntax errors: %s", tree.RootNode())
			}
			full := x.definitions(l, tree, b, "a.lua")
			if !luaDefs(x, l, b) {
				t.Fatalf("luaDefs cannot read it (offset %d)", x.lua.ts)
			}
			if got := symbols(x.collect(l, b, nil), "a.lua"); fmt.Sprint(got) != fmt.Sprint(full) {
				t.Errorf("luaDefs\n%v\nfull parse\n%v\ntree %s", got, full, tree.RootNode())
			}
		})
	}
}

// luaSnippets are the corners of TestLuaDefsSnippets.
var luaSnippets = []string{
	"function f() end\nlocal function g(a, ...) return a end\nfunction a.b.c(x) end\nfunction a.b:c() end\nfunction a:b() end\n",
	"local a = function() end\nb = function() end\na.b = function() end\na.b.c = function() end\n",
	"t[k] = function() end\nt[a.b] = function() end\nt[a.b].c = function() end\npage_funcs[page].reset_mode = function (view) end\n",
	"a.b[c] = function() end\na[b[c]] = function() end\nt[f(x)] = function() end\nt[i+1].x = function() end\n(a).b = function() end\n",
	"f().x = function() end\na.b(c).d = function() end\na:b().c = function() end\nt[\"s\"].x = function() end\n",
	"local a, b = function() end\nlocal c, d = 1, function() end\ne, f = function() end, 2\ng.h, i = function() end\nj, k.l = 1, function() end\n",
	"local x\nlocal y = 1\nz = 2\nX, Y = 1, 2\nlocal M = {}\nif a then w = 1 end\ndo v = function() end end\n",
	"local M = { setup = function() end, x = 1, ['y'] = function() end, nested = { deep = function() end } }\nreturn M\n",
	"call({ cb = function() end }, function() end)\nlocal t = { a = function() end; b = (function() end), c = function() end or nil }\n",
	"function M.new()\n  local self = { get = function() end }\n  function self.put() end\n  local function helper() end\n  return self\nend\n",
	"local s = [==[ ]] ]==] .. \"a\\\"b\" .. 'c' --[[ x = function() end ]]\n-- y = function() end\nlocal n = 0x1F + 1e-3 + 3.5 // 2\n",
	"for i = 1, 10 do f = function() end end\nfor k, v in pairs(t) do end\nwhile x do break end\nrepeat local q = function() end until q\n",
	"local a = -x ^ 2 .. y\nb = not c == d\nlocal e = #t > 0 and t or {}\nf = (g)\nh = g.i\n",
	"a.b, c.d = function() end, function() end\nlocal f = x, function() end\n",
	"x.y.z, w = function() end, 1\nM.a, M.b = function() end\n",
}

// TestLuaDefsEdits reads every prefix of Lua samples (lua.txtar's and
// each snippet), and each with one byte left out: luaDefs must come back
// (no panic, a bounded depth), and where it reads the text and a full
// parse finds no syntax error, find what the parse finds.
func TestLuaDefsEdits(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/lang/lua.txtar")
	if err != nil {
		t.Fatal(err)
	}
	l := LanguageByName("lua")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	x := newExtractor()
	defer x.Close()
	var texts []string
	for _, sample := range append([]string{string(ar.Files[0].Data)}, luaSnippets...) {
		for i := range len(sample) {
			texts = append(texts, sample[:i], sample[:i]+sample[i+1:])
		}
	}
	deep := strings.Repeat("(", 300) + "x" + strings.Repeat(")", 300)
	texts = append(texts, "x = "+deep+"\n", "f = function() "+strings.Repeat("do ", 300)+strings.Repeat("end ", 300)+"end\n")
	read, compared := 0, 0
	for _, text := range texts {
		src := []byte(text)
		if !luaDefs(x, l, src) {
			continue
		}
		read++
		got := symbols(x.collect(l, src, nil), "a.lua")
		tree, err := x.parse(context.Background(), l, blankComments(l, src), nil)
		if err != nil {
			t.Fatal(err)
		}
		broken := tree.RootNode().HasError()
		want := x.definitions(l, tree, src, "a.lua")
		tree.Close()
		if broken {
			continue
		}
		compared++
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("luaDefs\n%v\nfull parse\n%v\ntext:\n%s", got, want, text)
		}
	}
	t.Logf("%d texts, %d read by luaDefs, %d of those compared with a full parse", len(texts), read, compared)
	for _, deep := range texts[len(texts)-2:] {
		if luaDefs(x, l, []byte(deep)) {
			t.Errorf("luaDefs read %d levels of nesting (the limit is %d)", 300, luaMaxDepth)
		}
	}
}

// TestLuaDefsPatterns: luaDefs implements the definitions patterns of
// queries/lua.scm as they are (their order, captures and shapes: see the
// luaPat constants); a change to them must change luaDefs too, and this
// test with it.
func TestLuaDefsPatterns(t *testing.T) {
	l := LanguageByName("lua")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(l.defSrc), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, ";") {
			kept = append(kept, line)
		}
	}
	got := strings.Join(kept, " ")
	want := `(function_statement name: (function_name . (identifier) @name .)) @definition.function ` +
		`(function_statement name: (identifier) @name) @definition.function ` +
		`(function_statement name: (function_name (identifier) @container . (table_dot) . (identifier) @name .)) @definition.function ` +
		`(function_statement name: (function_name (identifier) @container . (table_colon) . (identifier) @name .)) @definition.method ` +
		`(variable_declaration name: (variable_declarator . (identifier) @name .) value: (function)) @definition.function ` +
		`(variable_declaration name: (variable_declarator (identifier) @container . (identifier) @name .) value: (function)) @definition.function ` +
		`(program (variable_declaration name: (variable_declarator . (identifier) @name .)) @definition.variable) ` +
		`(field name: (identifier) @name value: (function)) @definition.function`
	if got != want {
		t.Errorf("the definitions patterns of queries/lua.scm changed: luaDefs implements\n%s\nthey are\n%s", want, got)
	}
	if _, ok := luaCapIDs(l); !ok {
		t.Errorf("luaCapIDs does not know the captures %v", l.defNames)
	}
}
