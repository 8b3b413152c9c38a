package codeindex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// bodySnippets are inserted inside bodies: harmless statements and
// comments (the fast path takes them), and brackets, quotes, comment
// openers and nested definitions (it must refuse them, or find them
// harmless).
var bodySnippets = []string{
	"x", " ", "\n", "x = 1;", "// note\n", "/* c */", "f(a, b);", "1",
	"{", "}", "(", ")", "\"", "'", "`", "/*", "*/", "//", "#", "$",
	"class Added {}", "function added() {}", "fn added() {}", "struct Added {}",
	"void added() {}", "int added() { return 1; }", "{ x = 1; }", "({ m() {} })",
	"\nclass Added { void m() {} }\n", "=> {}", "new T() { void m() {} };",
	// Ruby and Python
	"end", "\nend\n", " do", "\n    x = 1", "\n  # c\n", "\nx\n", "\n\n", ":", `"""`, "'''", "\\\n", "if x", " if x",
	"\ndef added():\n    pass\n", "\n    def added(self):\n        pass\n", "\n  def added\n  end\n", "class X", "X = 1",
	"@d\n", "<<~EOS\n", "=begin\n", "%w(", "[1, 2]", "{a: 1}", "|x|", "\t", "lambda: 0", "async ", "de", "f",
}

// TestBodyFast edits open buffers inside their bodies (and elsewhere, at
// random), and checks that the fast path is taken and refused, that the
// definitions it gives (those before the edit, moved) are the definitions
// of the parse made when the tree is next needed (logged when they are
// not: code that the skeleton misreads, as the cold build does), and that
// a query then reads exactly the definitions of a fresh parse. With AGENTLS_CORPUS set it does the same to large files of
// each language's corpus.
func TestBodyFast(t *testing.T) {
	files, _ := filepath.Glob("testdata/lang/*.txtar")
	edits := 120
	if testing.Short() {
		edits = 40
	}
	ix := emptyIndex(t)
	x := newExtractor()
	defer x.Close()
	taken, refused := 0, 0
	for fi, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f := ar.Files[0]
		tk, rf := checkBodyFast(t, ix, x, f.Name, string(f.Data), rand.New(rand.NewPCG(uint64(fi), 23)), edits)
		taken, refused = taken+tk, refused+rf
	}
	t.Logf("fast path: %d taken, %d refused", taken, refused)
	if taken == 0 || refused == 0 {
		t.Errorf("fast path taken %d times, refused %d times: both must happen", taken, refused)
	}
	root := os.Getenv("AGENTLS_CORPUS")
	if root == "" || testing.Short() {
		return
	}
	for li, l := range Languages() {
		big := corpusSamples(root, l)
		taken, refused := 0, 0
		for _, p := range big {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			tk, rf := checkBodyFast(t, ix, x, l.Name+"/"+filepath.Base(p), string(src), rand.New(rand.NewPCG(uint64(li), 23)), 30)
			taken, refused = taken+tk, refused+rf
		}
		t.Logf("%s: fast path %d taken, %d refused, %d files", l.Name, taken, refused, len(big))
	}
}

func checkBodyFast(t *testing.T, ix *Index, x *extractor, name, text string, rng *rand.Rand, edits int) (taken, refused int) {
	t.Helper()
	if err := ix.UpdateBuffer(name, 1, text); err != nil {
		t.Fatal(err)
	}
	defer ix.CloseBuffer(name)
	rel, _ := ix.paths(name)
	good, undo := text, false
	for i := range edits {
		next := text
		ix.bufMu.Lock()
		b := ix.buffers[rel]
		if !b.spansOK && !b.stale {
			b.spans, b.spansOK = bodySpans(b.lang, new(skelOut), b.src), true
		}
		spans := b.spans
		ix.bufMu.Unlock()
		switch {
		case undo:
			next, undo = good, false
		case len(spans) > 0 && rng.IntN(4) != 0: // inside a body
			s := spans[rng.IntN(len(spans))]
			at := s.a + rng.IntN(s.c-s.a+1)
			if rng.IntN(4) == 0 && at < s.c { // a deletion
				end := min(s.c, at+1+rng.IntN(8))
				next = text[:at] + text[end:]
			} else {
				next = text[:at] + bodySnippets[rng.IntN(len(bodySnippets))] + text[at:]
			}
		case rng.IntN(4) != 0:
			next = validEdit(rng, text)
		default:
			next = randomEdit(rng, text)
		}
		if err := ix.UpdateBuffer(name, int32(i+2), next); err != nil {
			t.Fatal(err)
		}
		text = next
		ix.bufMu.Lock()
		b = ix.buffers[rel]
		if !b.pending {
			if b.stale {
				undo = true // back to a text without errors next
			} else {
				good = text
			}
			ix.bufMu.Unlock()
			refused++
			ix.settle() // a stale buffer (syntax errors) takes no fast path
			continue
		}
		taken++
		if rng.IntN(3) == 0 {
			ix.bufMu.Unlock()
			continue // let the edits pile up
		}
		guess, guessN := fmt.Sprint(b.syms), len(b.syms)
		ix.catchUpLocked(rel, b)
		b = ix.buffers[rel]
		got, gotN, stale := fmt.Sprint(b.syms), len(b.syms), b.stale
		ix.bufMu.Unlock()
		if !stale && got != guess {
			// Code the skeleton misreads as the cold build does (C and
			// C++ parse `int f() {}` in a body as a definition) adds or
			// drops definitions; the parse corrects it before any query
			// reads the buffer (checked below). The same definitions,
			// moved otherwise, are a bug of the fast path's shift.
			if guessN == gotN {
				t.Fatalf("%s, edit %d: the fast path's definitions\n%s\nthe parse's\n%s", name, i, guess, got)
			}
			t.Logf("%s, edit %d: the fast path's definitions differ from the parse's", name, i)
		}
		// What a query reads: a fresh parse's definitions.
		ix.settle()
		ix.bufMu.Lock()
		got = fmt.Sprint(ix.buffers[rel].syms)
		ix.bufMu.Unlock()
		tree, err := x.parseTree(LanguageFor(name), []byte(text), ctree{})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprint(x.treeDefs(LanguageFor(name), tree.root(), []byte(text)))
		tree.close()
		if got != want {
			t.Fatalf("%s, edit %d: after the parse\n%s\nfresh parse\n%s", name, i, got, want)
		}
	}
	return taken, refused
}

// TestBodyFastDefersParse: edits inside a function body leave the parse
// for later; references on the buffer then parse it, and find what a
// buffer parsed on every edit finds.
func TestBodyFastDefersParse(t *testing.T) {
	const src = "class A {\n  int f(int a) {\n    int b = a;\n    return b;\n  }\n  int g() { return f(1); }\n}\n"
	steps := []string{
		"class A {\n  int f(int a) {\n    int b = a;\n    f(b);\n    return b;\n  }\n  int g() { return f(1); }\n}\n",
		"class A {\n  int f(int a) {\n    int b = a;\n    f(b); f(2);\n    return b;\n  }\n  int g() { return f(1); }\n}\n",
	}
	fast, slow := emptyIndex(t), emptyIndex(t)
	if err := fast.UpdateBuffer("A.java", 1, src); err != nil {
		t.Fatal(err)
	}
	for i, s := range steps {
		if err := fast.UpdateBuffer("A.java", int32(i+2), s); err != nil {
			t.Fatal(err)
		}
		fast.bufMu.Lock()
		pending := fast.buffers["A.java"].pending
		fast.bufMu.Unlock()
		if !pending {
			t.Fatalf("edit %d inside a body: the parse was not deferred", i)
		}
	}
	if err := slow.UpdateBuffer("A.java", 1, steps[len(steps)-1]); err != nil {
		t.Fatal(err)
	}
	got, _, ok := fast.bufferRefs("A.java", "f")
	want, _, ok2 := slow.bufferRefs("A.java", "f")
	if !ok || !ok2 {
		t.Fatal("no buffer")
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(want) < 3 {
		t.Errorf("references after deferred edits\n%v\nafter a full parse\n%v", got, want)
	}
	fast.bufMu.Lock()
	b := fast.buffers["A.java"]
	pending, gs := b.pending, fmt.Sprint(b.syms)
	fast.bufMu.Unlock()
	slow.bufMu.Lock()
	ws := fmt.Sprint(slow.buffers["A.java"].syms)
	slow.bufMu.Unlock()
	if pending {
		t.Error("references left the parse pending")
	}
	if gs != ws {
		t.Errorf("definitions\n%s\nwant\n%s", gs, ws)
	}
}

// fastStep is a text a buffer takes and whether the fast path takes it.
type fastStep struct {
	text    string
	pending bool
}

// checkFastSteps gives the buffer name the texts of steps in turn and
// checks that each takes the fast path or not as it says, and that the
// buffer's definitions then are those of a fresh parse of its text.
func checkFastSteps(t *testing.T, name string, steps []fastStep) {
	t.Helper()
	ix := emptyIndex(t)
	x := newExtractor()
	defer x.Close()
	l := LanguageFor(name)
	for i, c := range steps {
		if err := ix.UpdateBuffer(name, int32(i+1), c.text); err != nil {
			t.Fatal(err)
		}
		ix.bufMu.Lock()
		b := ix.buffers[name]
		pending, syms := b.pending, fmt.Sprint(b.syms)
		ix.bufMu.Unlock()
		if pending != c.pending {
			t.Errorf("%s, edit %d: pending %v, want %v", name, i, pending, c.pending)
		}
		tree, err := x.parseTree(l, []byte(c.text), ctree{})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprint(x.treeDefs(l, tree.root(), []byte(c.text)))
		tree.close()
		if syms != want {
			t.Errorf("%s, edit %d: definitions\n%s\nwant\n%s", name, i, syms, want)
		}
	}
}

// TestBodyFastComments: typing inside a comment between definitions
// defers the parse and moves the definitions after it; closing the
// comment early or opening a definition in it does not.
func TestBodyFastComments(t *testing.T) {
	const head = "class A {\n  int f() { return 1; }\n  /* notes"
	const tail = " */\n  int g() { return 2; }\n}\n"
	checkFastSteps(t, "A.java", []fastStep{
		{head + tail, false},
		{head + " more" + tail, true},
		{head + " more\n and more" + tail, true},
		{head + " */ int h() { return 3; } /*" + tail, false},
	})
}

// TestBodyFastLiteral: typing inside a large array literal that the
// skeleton leaves out (PHP's constant tables) defers the parse and moves
// the definitions after it; closing the literal early, opening a
// function in it or shrinking it below minLiteral does not.
func TestBodyFastLiteral(t *testing.T) {
	const head = "<?php\nclass A {\n  private const MAP = [\n    'a' => ['x', 'y'],\n    'bb' => ['z'],\n"
	const tail = "    'ccc' => ['w', 'v', 'u'],\n    'dddd' => ['t'],\n  ];\n  public function f() { return 1; }\n}\n"
	checkFastSteps(t, "A.php", []fastStep{
		{head + tail, false},
		{head + "    // edit 1\n" + tail, true},
		{head + "    // edit 2\n    'dd' => [],\n" + tail, true},
		{head + "    // edit 2\n    'dd' => [function () { return 1; }],\n" + tail, true},
		{head + "    // edit 3\n  ];\n  function g() {}\n  const B = [\n" + tail, false},
		{head + tail, false},
		{"<?php\nclass A {\n  private const MAP = [\n    'a' => 1,\n" + tail, true},
		{"<?php\nclass A {\n  private const MAP = [\n    'a' => 1,\n  ];\n  public function f() { return 1; }\n}\n", false},
	})
}

// TestBodyFastRuby: typing inside a method's body defers the parse; an
// `end` that closes the method, a definition, a constant assigned or a
// string left open does not.
func TestBodyFastRuby(t *testing.T) {
	const head = "class A\n  def f(x)\n    y = x\n"
	const tail = "    y\n  end\n\n  def g\n    1\n  end\nend\n"
	checkFastSteps(t, "a.rb", []fastStep{
		{head + tail, false},
		{head + "    z = 2\n" + tail, true},
		{head + "    z = 2\n    if z\n      w(z) do |v|\n        v\n      end\n    end\n" + tail, true},
		// A loop whose condition runs on to the next line: its do is the loop's.
		{head + "    z = 2\n    while z &&\n        y do\n      z = nil\n    end\n" + tail, true},
		// …and an end typed after it closes the method: not a body any more.
		{head + "    z = 2\n    while z &&\n        y do\n      z = nil\n    end\n  end\n" + tail, false},
		{head + "    z = 2\n  end\n  def h\n" + tail, false},
		{head + tail, false},
		{head + "    X = 1\n" + tail, false},
		{head + tail, false},
		{head + "    s = \"abc\n" + tail, false},
		{head + tail, false},
		// (not on the line of the last edit, that took the slow path)
		{head + "    y\n    w = [1,\n      2]\n" + tail[6:], true},
		{head + "    y\n    w = [1,\n      2]\n    x.end\n" + tail[6:], true},
		{head + "    y\n    w = [1,\n      2]\n    x.end\n    xend\n" + tail[6:], true},
		{head + "    y\n    w = [1,\n      2]\n    x.end\n    xend\n    def k; end\n" + tail[6:], false},
	})
	// A comment between statements that the skeleton leaves out with it.
	const calls = "class A\n  include B\n  # a note\n  attr_reader :x\n  def f\n    1\n  end\nend\n"
	checkFastSteps(t, "c.rb", []fastStep{
		{calls, false},
		{strings.Replace(calls, "a note", "a longer note", 1), true},
		{strings.Replace(calls, "a note", "a longer note\n  def g; end", 1), false},
	})
	// Comments outside bodies: their text changes, not their lines.
	const doc = "class A\n  # Notes on f.\n  #\n  def f(x) # the f\n    x\n  end\nend\n"
	checkFastSteps(t, "b.rb", []fastStep{
		{doc, false},
		{strings.Replace(doc, "Notes", "More notes", 1), true},
		{strings.Replace(strings.Replace(doc, "Notes", "More notes", 1), "  #\n", "  # end\n", 1), true},
		{strings.Replace(doc, "the f", "the f(x)", 1), false}, // three edits at once: the slow path
		// (the next edit on another line: see buffer.skip)
		{strings.Replace(strings.Replace(doc, "the f", "the f(x)", 1), "Notes", "Notes!", 1), true},
		{strings.Replace(strings.Replace(doc, "the f", "the f(x) def", 1), "Notes", "Notes!", 1), true},
		{strings.Replace(strings.Replace(doc, "the f", "the f(x)\n def g; end", 1), "Notes", "Notes!", 1), false},
	})
}

// TestBodyFastPython: typing inside a function's body (past its first
// line), inside brackets or inside a long string defers the parse and
// moves the definitions after it (and the end of those whose last line
// it is); a line that leaves the body, a nested def or a string left
// open does not.
func TestBodyFastPython(t *testing.T) {
	const head = "class A:\n    def f(self, x):\n        y = x\n"
	const tail = "        return y\n\n    def g(self):\n        z = 2\n        return 1\n"
	const doc = "\nT = {\n    'a': 1,\n    'b': 2,\n    'c': 3,\n}\nD = '''A long string, long enough to be left out of the skeleton's text.'''\n"
	moreDoc := strings.Replace(doc, "'b': 2,", "'b': [2, 3],  # two\n", 1)
	aa := strings.Replace(moreDoc, "'a'", "'aa'", 1)
	checkFastSteps(t, "a.py", []fastStep{
		{head + tail + doc, false},
		{head + "        z = 2\n" + tail + doc, true},
		{head + "        z = 2\n" + tail[:len(tail)-1] + "2\n" + doc, true},
		{head + "        z = 2\n" + tail[:len(tail)-1] + "2 + (3 *\n            4)  # four\n" + doc, true},
		{head + "        z = 2\n" + tail + doc, true},
		{head + "        z = 2\n    def h(self):\n        pass\n" + tail + doc, false},
		{head + tail + doc, false},
		{head + "z = 1\n" + tail + doc, false},
		{head + tail + doc, false},
		{head + "        s = '''abc\n" + tail + doc, false},
		{head + tail + doc, false},
		{head + tail + moreDoc, true},
		{head + tail + aa, true},
		{head + tail + strings.Replace(aa, "long enough", "long (enough", 1), true},
		{head + tail + strings.Replace(aa, "long enough", "long ''' enough", 1), false},
	})
	// A body the parser had to recover from (`n False`): its function's
	// end is the recovery's, no fast path until a parse without errors
	// there.
	const good = "class A:\n    def f(self):\n        \"\"\"Doc.\"\"\"\n        x = 1\n        return False\n\n    def g(self):\n        pass\n"
	broken := strings.Replace(good, "        return False", "      n False", 1)
	checkFastSteps(t, "c.py", []fastStep{
		{broken, false},
		{good, false},
		{strings.Replace(good, "x = 1", "x = 2", 1), true},
	})
	// Brackets larger than maxFastBody (pydoc's topics: a dict of 700 KB)
	// are read around the edit only (bigbody.go).
	var tb strings.Builder
	tb.WriteString("T = {\n")
	for i := 0; tb.Len() < maxFastBody+(16<<10); i++ {
		fmt.Fprintf(&tb, "    'key%d': ('a value, long enough to fill a line of the table', %d),\n", i, i)
	}
	table := tb.String()
	mid := strings.Index(table, "'key1000'")
	edited := table[:mid] + "# edit 1\n    " + table[mid:]
	tail2 := "}\n\ndef f(x):\n    return T[x]\n"
	checkFastSteps(t, "d.py", []fastStep{
		{table + tail2, false},
		{edited + tail2, true},
		{strings.Replace(edited, "# edit 1", "# edit 2", 1) + tail2, true},
		{strings.Replace(edited, "# edit 1", "'k': [1, (2, 3)],", 1) + tail2, true},
		{strings.Replace(edited, "# edit 1", "'k': [1, (2, 3)],\n}\ndef g(): pass\nU = {", 1) + tail2, false},
	})
	// Comments outside bodies: their text changes, not their lines.
	const notes = "class A:\n    # Notes on f.\n    #\n    def f(self):  # the f\n        pass\n"
	checkFastSteps(t, "b.py", []fastStep{
		{notes, false},
		{strings.Replace(notes, "Notes", "More notes", 1), true},
		{strings.Replace(strings.Replace(notes, "Notes", "More notes", 1), "    #\n", "    # x = 1\n", 1), true},
		{strings.Replace(notes, "the f", "the f(x)", 1), false}, // three edits at once: the slow path
		// (the next edit on another line: see buffer.skip)
		{strings.Replace(strings.Replace(notes, "the f", "the f(x)", 1), "Notes", "Notes!", 1), true},
		{strings.Replace(strings.Replace(notes, "the f", "the f(x) def", 1), "Notes", "Notes!", 1), true},
		{strings.Replace(strings.Replace(notes, "the f", "the f(x)\n    def g(self): pass", 1), "Notes", "Notes!", 1), false},
	})
}

// TestBodyFastOpenBrackets: a call typed in a Ruby, Python, Java or
// JavaScript body,
// letter by letter, defers the parse at every keystroke, its brackets
// left open too (the text then parses with errors: what a query reads
// is a fresh parse's, settle's); a closing bracket that matches none
// opened in the body, or a Ruby block left open, does not.
func TestBodyFastOpenBrackets(t *testing.T) {
	for _, c := range []struct{ name, head, tail, call string }{
		{"a.rb", "class A\n  def f(x)\n    y = x", "\n    y\n  end\n\n  def g\n    1\n  end\nend\n", "\n    z = foo(x, [1, 2])"},
		{"a.py", "class A:\n    def f(self, x):\n        y = x", "\n        return y\n\n    def g(self):\n        return 1\n", "\n        z = foo(x, [1, 2])"},
		{"A.java", "class A {\n  int f(int x) {\n    int y = x;", "\n    return y;\n  }\n  int g() { return 1; }\n}\n", "\n    int z = foo(x, new int[] {1, 2});"},
		{"a.js", "function f(x) {\n  let y = x;", "\n  return y;\n}\nfunction g() { return 1; }\n", "\n  let z = foo(x, [1, 2], { a: 1 });"},
	} {
		l := LanguageFor(c.name)
		// Typed up to the brackets left open, and to the end; then a
		// query.
		for _, upTo := range []int{strings.Index(c.call, "["), len(c.call)} {
			ix := emptyIndex(t)
			x := newExtractor()
			if err := ix.UpdateBuffer(c.name, 1, c.head+c.tail); err != nil {
				t.Fatal(err)
			}
			text := ""
			for i := 1; i <= upTo; i++ {
				text = c.head + c.call[:i] + c.tail
				if err := ix.UpdateBuffer(c.name, int32(i+1), text); err != nil {
					t.Fatal(err)
				}
				ix.bufMu.Lock()
				pending := ix.buffers[c.name].pending
				ix.bufMu.Unlock()
				if !pending {
					t.Errorf("%s: %q typed: the parse was not deferred", c.name, c.call[:i])
				}
			}
			tree, err := x.parseTree(l, []byte(text), ctree{})
			if err != nil {
				t.Fatal(err)
			}
			if broken := tree.hasError(); broken != (upTo < len(c.call)) {
				t.Errorf("%s: %q typed: syntax errors %v", c.name, c.call[:upTo], broken)
			}
			want := fmt.Sprint(x.treeDefs(l, tree.root(), []byte(text)))
			tree.close()
			ix.settle()
			ix.bufMu.Lock()
			got := fmt.Sprint(ix.buffers[c.name].syms)
			ix.bufMu.Unlock()
			if got != want {
				t.Errorf("%s: %q typed: definitions after settle\n%s\nfresh parse\n%s", c.name, c.call[:upTo], got, want)
			}
			x.Close()
		}
	}
	ruby := "class A\n  def f(x)\n    y = x\n    y\n  end\n\n  def g\n    1\n  end\nend\n"
	checkFastSteps(t, "b.rb", []fastStep{
		{ruby, false},
		{strings.Replace(ruby, "    y\n  end", "    y)\n  end", 1), false}, // a closer that matches nothing
		{ruby, false}, // (back)
		{strings.Replace(ruby, "y = x\n", "y = x\n  if y\n", 1) + "\n", false}, // a block left open
	})
}
