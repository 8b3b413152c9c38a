package codeindex

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/agentls/agentls/workspace"
)

// snippets are inserted by the random edits: whole declarations, broken
// halves of them, braces and newlines.
var snippets = []string{
	"\n", "{", "}", "(", ")", " ", "x", "\"", "//", "/*", "*/",
	"\nfunc Added(a int) int { return a }\n",
	"\nclass Added:\n    def m(self):\n        pass\n",
	"\nfunction added() { return 1 }\n",
	"\ntype Added struct { F int }\n",
	"def ", "func ", "class ", "struct ", "end\n",
}

// emptyIndex returns the built index of an empty folder, for buffers.
func emptyIndex(t testing.TB) *Index {
	t.Helper()
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ix := New(ws, Options{NoCache: true, Workers: 1})
	t.Cleanup(func() { ix.Close() })
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestIncrementalMatchesFresh edits the source of every language archive
// at random, feeding each version to UpdateBuffer (which edits the old
// tree and reparses incrementally), and checks after each edit that the
// index holds exactly the definitions of a fresh parse of the same text.
func TestIncrementalMatchesFresh(t *testing.T) {
	files, _ := filepath.Glob("testdata/lang/*.txtar")
	edits := 80
	if testing.Short() {
		edits = 20
	}
	ix := emptyIndex(t)
	x := newExtractor()
	defer x.Close()
	for fi, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src := ar.Files[0]
		l := LanguageFor(src.Name)
		rng := rand.New(rand.NewPCG(uint64(fi), 42))
		text := string(src.Data)
		for i := range edits {
			text = randomEdit(rng, text)
			if err := ix.UpdateBuffer(src.Name, int32(i+1), text); err != nil {
				t.Fatal(err)
			}
			got, _ := ix.Outline(src.Name)
			checkNames(t, ix)
			tree, err := x.parse(context.Background(), l, []byte(text), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := x.definitions(l, tree, []byte(text), src.Name)
			describe(l, []byte(text), want)
			tree.Close()
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s, edit %d: incremental\n%s\nfresh\n%s\ntext:\n%s", src.Name, i, symLines(got), symLines(want), text)
			}
		}
		ix.CloseBuffer(src.Name)
	}
	if n := ix.OpenBuffers(); n != 0 {
		t.Errorf("%d buffers left open", n)
	}
}

func randomEdit(rng *rand.Rand, text string) string {
	pos := 0
	if len(text) > 0 {
		pos = rng.IntN(len(text) + 1)
	}
	switch rng.IntN(3) {
	case 0: // insert
		return text[:pos] + snippets[rng.IntN(len(snippets))] + text[pos:]
	case 1: // delete a short span
		end := min(len(text), pos+rng.IntN(12))
		return text[:pos] + text[end:]
	default: // replace a span by a snippet
		end := min(len(text), pos+rng.IntN(6))
		return text[:pos] + snippets[rng.IntN(len(snippets))] + text[end:]
	}
}

// TestBufferMemory opens, edits and closes a file 1,000 times: no tree may
// stay behind (the C heap, which the Go GC does not see, must not grow).
func TestBufferMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/statm")
	}
	ix := emptyIndex(t)
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "// F%d does things.\nfunc F%d(a, b int) int {\n\tif a > b {\n\t\treturn a - b\n\t}\n\treturn b + %d\n}\n\n", i, i, i)
	}
	text := "package p\n\n" + b.String() // about 8 KB, 100 functions
	cycle := func(i int) {
		ix.UpdateBuffer("p.go", 1, text)
		ix.UpdateBuffer("p.go", 2, strings.Replace(text, "F7(", "G"+strconv.Itoa(i)+"(", 1))
		ix.CloseBuffer("p.go")
	}
	for i := range 100 { // warm up allocators
		cycle(i)
	}
	runtime.GC()
	before := rss(t)
	for i := range 1000 {
		cycle(i)
	}
	runtime.GC()
	after := rss(t)
	t.Logf("RSS before %d KB, after 1,000 cycles %d KB", before>>10, after>>10)
	// A leaked tree of this file is tens of KB: 1,000 of them would be tens of MB.
	if after > before+8<<20 {
		t.Errorf("RSS grew by %d KB over 1,000 open/edit/close cycles", (after-before)>>10)
	}
	if ix.OpenBuffers() != 0 || ix.Status().Files != 0 {
		t.Errorf("after close: %d buffers, status %+v", ix.OpenBuffers(), ix.Status())
	}
}

func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip(err)
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// TestCancel: closing an index in the middle of its build stops it, and a
// build whose context ends returns the context's error.
func TestCancel(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(fmt.Sprintf("package p\nfunc F%d() {}\n", i)), 0o644)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := New(ws, Options{NoCache: true, Workers: 2})
	ix.Start()
	ix.Close() // must not hang
	if err := ix.Wait(context.Background()); err != nil && err != context.Canceled {
		t.Errorf("closed build: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ix2 := New(ws, Options{NoCache: true, Workers: 2})
	defer ix2.Close()
	if err := ix2.Build(ctx); err != context.Canceled {
		t.Errorf("Build with a cancelled context: %v", err)
	}
	if _, err := ix2.References(ctx, RefQuery{Name: "F1"}); err != context.Canceled {
		t.Errorf("References with a cancelled context: %v", err)
	}
}

// TestIncrementalValidEdits is TestIncrementalMatchesFresh with edits that
// keep the file free of syntax errors (an edit that would not is left
// out), so that the definitions come from an incremental parse and a query
// of the changed span only (changedDefs), not a fresh parse.
func TestIncrementalValidEdits(t *testing.T) {
	files, _ := filepath.Glob("testdata/lang/*.txtar")
	if len(files) == 0 {
		t.Fatal("no language archives")
	}
	edits := 300
	if testing.Short() {
		edits = 60
	}
	ix := emptyIndex(t)
	x := newExtractor()
	defer x.Close()
	// cx checks on the side that the edits are of the kind the index
	// handles by querying the changed span only (changedDefs succeeds).
	cx := newExtractor()
	defer cx.Close()
	runs := 0
	for fi, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src := ar.Files[0]
		l := LanguageFor(src.Name)
		rng := rand.New(rand.NewPCG(uint64(fi), 7))
		text := string(src.Data)
		if err := ix.UpdateBuffer(src.Name, 0, text); err != nil {
			t.Fatal(err)
		}
		for i := range edits {
			next := validEdit(rng, text)
			tree, err := x.parse(context.Background(), l, []byte(next), nil)
			if err != nil {
				t.Fatal(err)
			}
			if tree.RootNode().HasError() {
				tree.Close()
				continue
			}
			if spanOnly(cx, l, text, next) {
				runs++
			}
			text = next
			want := x.definitions(l, tree, []byte(text), src.Name)
			describe(l, []byte(text), want)
			tree.Close()
			if err := ix.UpdateBuffer(src.Name, int32(i+1), text); err != nil {
				t.Fatal(err)
			}
			got, _ := ix.Outline(src.Name)
			checkNames(t, ix)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s, edit %d: incremental\n%s\nfresh\n%s\ntext:\n%s", src.Name, i, symLines(got), symLines(want), text)
			}
		}
		ix.CloseBuffer(src.Name)
	}
	t.Logf("%d updates could query the changed span", runs)
	if runs < len(files)*edits/4 {
		t.Errorf("only %d updates could query the changed span", runs)
	}
}

// spanOnly reports whether the change from old to new is one that
// changedDefs handles (the update then queries the changed span only).
func spanOnly(x *extractor, l *Language, old, new string) bool {
	oldSrc, newSrc := []byte(old), []byte(new)
	oldTree, err := x.parseTree(l, oldSrc, ctree{})
	if err != nil {
		return false
	}
	defer oldTree.close()
	prev := x.treeDefs(l, oldTree.root(), oldSrc)
	e := diffEdit(oldSrc, newSrc)
	oldTree.edit(e)
	tree, err := x.parseTree(l, newSrc, oldTree)
	if err != nil {
		return false
	}
	defer tree.close()
	_, ok := x.changedDefs(l, oldTree, tree, newSrc, e, prev)
	return ok
}

// validEdit changes text in ways that usually keep it well formed: a line
// inserted or removed (blank or a comment), a letter of an identifier
// changed, a declaration inserted at a line start.
func validEdit(rng *rand.Rand, text string) string {
	lines := strings.SplitAfter(text, "\n")
	n := rng.IntN(len(lines))
	switch rng.IntN(5) {
	case 0:
		lines[n] = "\n" + lines[n]
	case 1:
		if strings.TrimSpace(lines[n]) == "" {
			lines[n] = ""
		}
	case 2: // an identifier letter
		if len(text) == 0 {
			return text
		}
		pos := rng.IntN(len(text))
		if c := text[pos]; c >= 'a' && c <= 'y' {
			return text[:pos] + string(c+1) + text[pos+1:]
		}
		return text
	case 3:
		lines[n] = snippets[11+rng.IntN(4)][1:] + lines[n]
	default:
		lines[n] = "// note\n" + lines[n]
		if n > 0 && strings.HasSuffix(lines[n-1], "\\\n") {
			return text
		}
	}
	return strings.Join(lines, "")
}

// TestWatchOffTheChanger: a workspace change returns at once while the
// index is busy with its buffers (bufMu held here, as a long parse holds
// it): Watch only queues the path. A query after the change waits for it
// and sees it.
func TestWatchOffTheChanger(t *testing.T) {
	ix := emptyIndex(t)
	ix.Watch()
	abs := filepath.Join(ix.ws.Root(), "a.go")
	ix.ws.Open(abs, 1, "package a\nfunc One() {}\n")
	if got := ix.Definition("One", ""); len(got) != 1 {
		t.Fatalf("after open: %v", got)
	}
	ix.bufMu.Lock()
	done := make(chan struct{})
	go func() {
		ix.ws.ChangeEdits(abs, 2, "package a\nfunc Two() {}\n", []workspace.Edit{{Start: 15, End: 18, New: "Two"}})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		ix.bufMu.Unlock()
		t.Fatal("the workspace change waited for the index")
	}
	ix.bufMu.Unlock()
	if got := ix.Definition("Two", ""); len(got) != 1 || len(ix.Definition("One", "")) != 0 {
		t.Fatalf("a query after the change does not see it: Two %v", got)
	}
}

// TestWatchSyntaxErrors: keystrokes that leave syntax errors reach the
// index through the workspace as edits; the index keeps the incremental
// tree (no fresh parse per keystroke, the buffer is stale) and a query
// parses it afresh once, so what it reads is always a fresh parse's.
func TestWatchSyntaxErrors(t *testing.T) {
	files, _ := filepath.Glob("testdata/lang/*.txtar")
	edits := 40
	if testing.Short() {
		edits = 10
	}
	ix := emptyIndex(t)
	x := newExtractor()
	defer x.Close()
	stale := 0
	for fi, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src := ar.Files[0]
		l := LanguageFor(src.Name)
		abs := filepath.Join(ix.ws.Root(), src.Name)
		rng := rand.New(rand.NewPCG(uint64(fi), 7))
		text := string(src.Data)
		ix.ws.Open(abs, 0, text)
		ix.follow(abs)
		for i := range edits {
			// One didChange of one to three edits; the index sees one
			// change in three, as when it is busy while the user types.
			var es []workspace.Edit
			for range 1 + rng.IntN(3) {
				next := randomEdit(rng, text)
				es = append(es, oneEdit(text, next))
				text = next
			}
			ix.ws.ChangeEdits(abs, int32(i+1), text, es)
			if i%3 != 2 && i != edits-1 {
				continue
			}
			ix.follow(abs) // what Watch's goroutine does
			ix.bufMu.Lock()
			b := ix.buffers[src.Name]
			if b.stale {
				stale++
				if b.tree.hasError() == false {
					t.Errorf("%s: a buffer without errors marked stale", src.Name)
				}
			}
			ix.bufMu.Unlock()
			got, _ := ix.Outline(src.Name)
			checkNames(t, ix)
			tree, err := x.parse(context.Background(), l, []byte(text), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := x.definitions(l, tree, []byte(text), src.Name)
			describe(l, []byte(text), want)
			tree.Close()
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s, edit %d: incremental\n%s\nfresh\n%s\ntext:\n%s", src.Name, i, symLines(got), symLines(want), text)
			}
		}
		ix.ws.Close(abs)
		ix.follow(abs)
	}
	if stale == 0 {
		t.Error("no keystroke left a stale buffer: the test does not test the lazy reparse")
	}
	if n := ix.OpenBuffers(); n != 0 {
		t.Errorf("%d buffers left open", n)
	}
}

// oneEdit is the change from a to b as one edit.
func oneEdit(a, b string) workspace.Edit {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return workspace.Edit{Start: p, End: len(a) - s, New: b[p : len(b)-s]}
}

// TestChangedDefsMatchTree checks changedDefs against a query of the whole
// tree it works on (an incremental parse, syntax errors and all), over
// random edits of every language archive: broken ones and ones that keep
// the file well formed, most of them inside bodies, where the spans lie
// below the root's children. With AGENTLS_CORPUS set it does the same to
// the largest files of each language's corpus.
func TestChangedDefsMatchTree(t *testing.T) {
	files, _ := filepath.Glob("testdata/lang/*.txtar")
	if len(files) == 0 {
		t.Fatal("no language archives")
	}
	edits := 100
	if testing.Short() {
		edits = 40
	}
	x := newExtractor()
	defer x.Close()
	total, ok := 0, 0
	for fi, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f := ar.Files[0]
		n, k := checkChangedDefs(t, x, f.Name, f.Data, rand.New(rand.NewPCG(uint64(fi), 19)), edits)
		total, ok = total+n, ok+k
	}
	t.Logf("%d of %d updates queried the changed spans only", ok, total)
	if ok < total/2 {
		t.Errorf("only %d of %d updates queried the changed spans only", ok, total)
	}
	root := os.Getenv("AGENTLS_CORPUS")
	if root == "" || testing.Short() {
		return
	}
	for li, l := range Languages() {
		big := corpusSamples(root, l)
		total, ok := 0, 0
		for _, p := range big {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			n, k := checkChangedDefs(t, x, p, src, rand.New(rand.NewPCG(uint64(li), 19)), 30)
			total, ok = total+n, ok+k
		}
		t.Logf("%s: %d of %d updates of %d files queried the changed spans only", l.Name, ok, total, len(big))
	}
}

// checkChangedDefs makes edits random edits of src (named name) and checks
// each update's changedDefs, when it succeeds, against a query of the
// whole tree; it returns the number of updates and of successes.
func checkChangedDefs(t *testing.T, x *extractor, name string, src []byte, rng *rand.Rand, edits int) (total, ok int) {
	t.Helper()
	l := LanguageFor(name)
	tree, err := x.parseTree(l, src, ctree{})
	if err != nil {
		t.Fatal(err)
	}
	prev := x.treeDefs(l, tree.root(), src)
	for i := range edits {
		var next []byte
		switch {
		case rng.IntN(4) == 0 && len(prev) > 0:
			next = []byte(renameEdit(rng, string(src), prev))
		case rng.IntN(3) == 0:
			next = []byte(randomEdit(rng, string(src)))
		default:
			next = []byte(validEdit(rng, string(src)))
		}
		e := diffEdit(src, next)
		tree.edit(e)
		nt, err := x.parseTree(l, next, tree)
		if err != nil {
			t.Fatal(err)
		}
		got, done := x.changedDefs(l, tree, nt, next, e, prev)
		want := x.treeDefs(l, nt.root(), next)
		total++
		if done {
			ok++
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s, edit %d (%q → %q at %d): changedDefs\n%v\nwhole tree\n%v", name, i,
					src[e.StartIndex:e.OldEndIndex], next[e.StartIndex:e.NewEndIndex], e.StartIndex, got, want)
			}
		}
		tree.close()
		tree, src, prev = nt, next, want
	}
	tree.close()
	return total, ok
}

// TestChangedDefsRename: typing in a definition's name (a letter added at
// its end, or deleted) changes only that definition's name, and the
// containers of those in it: changedDefs queries the definition's part of
// the tree (widenEdit), not the whole tree, and finds what a query of
// the whole tree finds.
func TestChangedDefsRename(t *testing.T) {
	files, _ := filepath.Glob("testdata/lang/*.txtar")
	if len(files) == 0 {
		t.Fatal("no language archives")
	}
	x := newExtractor()
	defer x.Close()
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f := ar.Files[0]
		l := LanguageFor(f.Name)
		src := f.Data
		tree, err := x.parseTree(l, src, ctree{})
		if err != nil {
			t.Fatal(err)
		}
		prev := x.treeDefs(l, tree.root(), src)
		total, ok := 0, 0
		for i := 0; i < len(prev); i++ {
			text := string(src)
			d := prev[i]
			lines := lineOffsets(text)
			c := lines[d.NameRange.End.Line] + int(d.NameRange.End.Col)
			next := []byte(text[:c] + "z" + text[c:])
			if i%2 == 1 && d.NameRange.End.Col > d.NameRange.Start.Col+1 {
				next = []byte(text[:c-1] + text[c:]) // a letter deleted
			}
			e := diffEdit(src, next)
			tree.edit(e)
			nt, err := x.parseTree(l, next, tree)
			if err != nil {
				t.Fatal(err)
			}
			want := x.treeDefs(l, nt.root(), next)
			got, done := x.changedDefs(l, tree, nt, next, e, prev)
			if !nt.hasError() {
				total++
				if done {
					ok++
				}
			}
			if done && fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: %s renamed: changedDefs\n%v\nwhole tree\n%v", f.Name, d.Name, got, want)
			}
			tree.close()
			tree, src, prev = nt, next, want
		}
		tree.close()
		if ok < total*9/10 {
			t.Errorf("%s: %d of %d renames queried the definition only", f.Name, ok, total)
		}
	}
}

// lineOffsets returns the offsets of the starts of the lines of text.
func lineOffsets(text string) []int {
	ls := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			ls = append(ls, i+1)
		}
	}
	return ls
}

// renameEdit changes the name of one of defs, the definitions of text: a
// keystroke at its end or start (a letter typed or deleted), the whole
// name replaced, or a space or keyword typed into it.
func renameEdit(rng *rand.Rand, text string, defs []def) string {
	d := defs[rng.IntN(len(defs))]
	off := func(p Pos) int {
		o := 0
		for range p.Line {
			k := strings.IndexByte(text[o:], '\n')
			if k < 0 {
				return -1
			}
			o += k + 1
		}
		return o + int(p.Col)
	}
	a, c := off(d.NameRange.Start), off(d.NameRange.End)
	if a < 0 || c < a || c > len(text) {
		return text
	}
	switch rng.IntN(6) {
	case 0:
		return text[:c] + "x" + text[c:]
	case 1:
		if c-a > 1 {
			return text[:c-1] + text[c:]
		}
		return text[:c] + "_" + text[c:]
	case 2:
		return text[:a] + "q" + text[a:]
	case 3:
		return text[:a] + "renamedName" + text[c:]
	case 4:
		return text[:c] + " " + text[c:]
	default:
		return text[:c] + snippets[15+rng.IntN(5)] + text[c:]
	}
}

// checkNames checks the name table against the files: every symbol of
// every file has one reference, in the entry of its name, and every
// reference is to a symbol of that name of a file of the index.
func checkNames(t *testing.T, ix *Index) {
	t.Helper()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	refs := 0
	for name, ne := range ix.names {
		if ne.name != name {
			t.Fatalf("entry %q under %q", ne.name, name)
		}
		for _, r := range ne.syms {
			if ix.files[r.f.rel] != r.f || int(r.i) >= r.f.ndefs() || r.f.defs()[r.i].Name != name {
				t.Fatalf("entry %q: a reference to %s#%d, not a symbol of that name of the index", name, r.f.rel, r.i)
			}
			refs++
		}
	}
	n := 0
	for _, f := range ix.files {
		n += f.ndefs()
		if f.ents != nil && len(f.ents) != len(f.syms) {
			t.Fatalf("%s: %d entries for %d symbols", f.rel, len(f.ents), len(f.syms))
		}
		for i, ne := range f.ents {
			if ix.names[f.syms[i].Name] != ne {
				t.Fatalf("%s: symbol %d (%s) points to the entry of %q", f.rel, i, f.syms[i].Name, ne.name)
			}
		}
	}
	if refs != n || n != ix.nsyms {
		t.Fatalf("%d references, %d symbols in files, nsyms %d", refs, n, ix.nsyms)
	}
}

// TestMergeDefs: changedDefs merges the definitions its spans give into
// those it kept as a stable sort of both by name start would order them
// (kept ones first among equal starts).
func TestMergeDefs(t *testing.T) {
	at := func(line, col uint32, name string) def {
		return def{Name: name, NameRange: Range{Start: Pos{line, col}, End: Pos{line, col + 1}}}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		var kept, added []def
		for i := range rng.IntN(8) {
			kept = append(kept, at(uint32(rng.IntN(5)), uint32(rng.IntN(3)), fmt.Sprint("k", i)))
		}
		for i := range rng.IntN(5) {
			added = append(added, at(uint32(rng.IntN(5)), uint32(rng.IntN(3)), fmt.Sprint("a", i)))
		}
		slices.SortStableFunc(kept, cmpNameStart)
		slices.SortStableFunc(added, cmpNameStart)
		want := slices.Concat(kept, added)
		slices.SortStableFunc(want, cmpNameStart)
		got := mergeDefs(slices.Clip(slices.Clone(kept)), added)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("merge of %v and %v:\n%v\nwant\n%v", kept, added, got, want)
		}
	}
}

// BenchmarkIncrementalPhases splits a keystroke's update of the largest
// file of each language under $AGENTLS_CORPUS (one per language
// directory, as bench/index -incremental picks and edits it: a line
// comment inserted in the middle) into its parts, per update: parse-µs
// (the incremental parse), spans-µs (changedSpans, mostly
// ts_tree_get_changed_ranges), defs-µs (the rest of changedDefs: the
// queries and the Go side), close-µs (freeing the old tree).
//
//	AGENTLS_CORPUS=/work/scratch/index/corpus go test -run '^$' -bench IncrementalPhases ./codeindex/
func BenchmarkIncrementalPhases(b *testing.B) {
	root := os.Getenv("AGENTLS_CORPUS")
	if root == "" {
		b.Skip("AGENTLS_CORPUS not set (bench/index/corpora.sh installs the corpora)")
	}
	for _, l := range Languages() {
		path, src := largestOf(filepath.Join(root, l.Name), l)
		if path == "" {
			continue
		}
		b.Run(l.Name, func(b *testing.B) {
			x := newExtractor()
			defer x.Close()
			tree, err := x.parseTree(l, src, ctree{})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { tree.close() }()
			prev := x.treeDefs(l, tree.root(), src)
			if _, err := l.defsQuery(); err != nil { // compiled on first use
				b.Fatal(err)
			}
			rootQueryOf(l)
			lines := strings.SplitAfter(string(src), "\n")
			descend := uint32(maxDescend)
			if l.maxDepth > 0 {
				descend = 0
			}
			var parse, spans, defs, closing time.Duration
			i := 0
			for b.Loop() {
				edited := slices.Clone(lines)
				edited[len(lines)/2] = fmt.Sprintf("%s edit %d\n", l.syn.lineComments[0], i) + edited[len(lines)/2]
				i++
				next := []byte(strings.Join(edited, ""))
				e := diffEdit(src, next)
				tree.edit(e)
				t0 := time.Now()
				nt, err := x.parseTree(l, next, tree)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				syms, ok := x.changedDefs(l, tree, nt, next, e, prev)
				t2 := time.Now()
				changedSpans(tree, nt, e, descend) // again: its share of changedDefs
				t3 := time.Now()
				tree.close()
				t4 := time.Now()
				if !ok {
					syms = x.treeDefs(l, nt.root(), next)
				}
				parse += t1.Sub(t0)
				spans += t3.Sub(t2)
				defs += t2.Sub(t1) - t3.Sub(t2)
				closing += t4.Sub(t3)
				tree, src, prev = nt, next, syms
			}
			us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(i) }
			b.ReportMetric(us(parse), "parse-µs")
			b.ReportMetric(us(spans), "spans-µs")
			b.ReportMetric(us(defs), "defs-µs")
			b.ReportMetric(us(closing), "close-µs")
		})
	}
}

// largestOf returns the largest file of l under dir (at most 1 MiB and
// 20,000 lines, not under testdata: bench/index's choice) and its text.
func largestOf(dir string, l *Language) (string, []byte) {
	var best string
	var text []byte
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || LanguageFor(p) != l || strings.Contains(p, "testdata") {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > 1<<20 || !fi.Mode().IsRegular() {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		if k := strings.Count(string(src), "\n"); k > n && k <= 20000 {
			best, text, n = p, src, k
		}
		return nil
	})
	return best, text
}

// TestRunDefsRange: the definitions query over a range run from the
// root's children (runDefsRange, with the patterns rooted at the root
// unwrapped) finds the matches a query from the root finds (pattern and
// capture numbers too), in every language
// archive, over random ranges: all of them with within; without it, all
// but matches of root patterns that lie wholly outside the range.
func TestRunDefsRange(t *testing.T) {
	files, _ := filepath.Glob("testdata/lang/*.txtar")
	if len(files) == 0 {
		t.Fatal("no language archives")
	}
	x := newExtractor()
	defer x.Close()
	type capt struct {
		index      uint16
		start, end uint32
	}
	matches := func(caps []capture) map[string][]capt {
		out := map[string][]capt{}
		for i := 0; i < len(caps); {
			m := caps[i].match
			var cs []capt
			p := caps[i].pattern
			for ; i < len(caps) && caps[i].match == m; i++ {
				cs = append(cs, capt{caps[i].index, caps[i].rng.StartByte, caps[i].rng.EndByte})
			}
			k := fmt.Sprint(p, cs)
			out[k] = cs
		}
		return out
	}
	unwrapped := 0
	for fi, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f := ar.Files[0]
		l := LanguageFor(f.Name)
		tree, err := x.parseTree(l, f.Data, ctree{})
		if err != nil {
			t.Fatal(err)
		}
		q, err := l.defsQuery()
		if err != nil {
			t.Fatal(err)
		}
		if rq := rootQueryOf(l); rq.walk.c != nil || rq.q != nil {
			unwrapped++
		}
		rng := rand.New(rand.NewPCG(uint64(fi), 3))
		n := uint32(len(f.Data))
		for range 200 {
			lo := rng.Uint32N(n + 1)
			hi := min(n, lo+rng.Uint32N(400))
			for _, within := range []bool{true, false} {
				x.caps = runQueryRange(x.qc, q, tree.root(), l.defDepth(), lo, hi, within, x.caps)
				want := matches(x.caps)
				if !x.runDefsRange(l, tree.root(), lo, hi, within) {
					t.Fatalf("%s [%d, %d): runDefsRange failed", f.Name, lo, hi)
				}
				got := matches(x.caps)
				for k, cs := range want {
					if _, ok := got[k]; ok {
						continue
					}
					outside := true
					for _, c := range cs {
						outside = outside && (c.end <= lo || c.start >= hi)
					}
					if within || !outside {
						t.Fatalf("%s [%d, %d) within %v: the query from the root's children misses %s", f.Name, lo, hi, within, k)
					}
				}
				for k := range got {
					if _, ok := want[k]; !ok {
						t.Fatalf("%s [%d, %d) within %v: the query from the root's children finds %s, the root's does not", f.Name, lo, hi, within, k)
					}
				}
			}
		}
		tree.close()
	}
	if unwrapped < 5 {
		t.Errorf("only %d languages have root patterns unwrapped", unwrapped)
	}
}

// TestSexpForms: rootQuery reads the top-level forms of a query's text
// (strings and comments may hold brackets) and refuses what is not a node
// pattern there.
func TestSexpForms(t *testing.T) {
	for _, c := range []struct {
		src   string
		forms []string // with their captures
		ok    bool
	}{
		{"(a (b) @x)\n; c ( [\n(d \"(\" ; )\n) @y @z", []string{"(a (b) @x)", "(d \"(\" ; )\n) @y @z"}, true},
		{"  (a)*\n(b)?", []string{"(a)*", "(b)?"}, true},
		{"(a [(b) (c)] @x) @d.e-f", []string{"(a [(b) (c)] @x) @d.e-f"}, true},
		{"\"str\"", nil, false},
		{"name: (a)", nil, false},
		{"(a) . (b)", nil, false},
		{"(#eq? @x \"y\")", nil, false},
		{"(a (b)", nil, false},
	} {
		forms, ok := sexpForms([]byte(c.src), 0, len(c.src))
		var got []string
		for _, f := range forms {
			got = append(got, c.src[f.start:f.suffix])
		}
		if ok != c.ok || ok && !slices.Equal(got, c.forms) {
			t.Errorf("sexpForms(%q) = %q, %v; want %q, %v", c.src, got, ok, c.forms, c.ok)
		}
	}
}

// corpusSamples returns up to three files of language l between 40 and
// 600 KB under root/LANG (a corpus of bench/index/corpora.sh).
func corpusSamples(root string, l *Language) []string {
	var big []string
	filepath.WalkDir(filepath.Join(root, l.Name), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && LanguageFor(p) == l {
			if fi, err := d.Info(); err == nil && fi.Size() > 40<<10 && fi.Size() < 600<<10 && len(big) < 3 {
				big = append(big, p)
			}
		}
		return nil
	})
	return big
}

// TestChangedDefsCodeIntoComment: an edit that makes code away from it a
// comment again drops the definitions of that code. Here a doc comment
// broken open (`/` and `**`) leaves backquotes in code that pair up
// with those of a later comment, whose text is then code (a const); the
// comment closed again, that text is a comment's again, a part of the
// new tree that is a comment, not the edit's, and not old's: a span too.
func TestChangedDefsCodeIntoComment(t *testing.T) {
	const nu = "export interface O {\n  /**\n   */\n  /**\n   * The hook `h` runs when\n   */\n}\nexport function h(): void;\n" +
		"/**\n * ```\n * import { a } from 'b';\n * const source = a(1, 2);\n */\nexport function h(): void {\n  return x ? f((s) => { s.g(); }) : y;\n}\n"
	old := strings.Replace(nu, "  /**\n   * The hook", "  /\n\n**\n   * The hook", 1)
	ix := emptyIndex(t)
	x := newExtractor()
	defer x.Close()
	if err := ix.UpdateBuffer("a.ts", 1, old); err != nil {
		t.Fatal(err)
	}
	ix.bufMu.Lock()
	had := fmt.Sprint(ix.buffers["a.ts"].syms)
	ix.bufMu.Unlock()
	if !strings.Contains(had, "source") {
		t.Fatalf("the broken text's definitions hold no const source: %s", had)
	}
	if err := ix.UpdateBuffer("a.ts", 2, nu); err != nil {
		t.Fatal(err)
	}
	ix.settle()
	ix.bufMu.Lock()
	got := fmt.Sprint(ix.buffers["a.ts"].syms)
	ix.bufMu.Unlock()
	l := LanguageFor("a.ts")
	tree, err := x.parseTree(l, []byte(nu), ctree{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint(x.treeDefs(l, tree.root(), []byte(nu)))
	tree.close()
	if got != want {
		t.Errorf("definitions after the edit\n%s\nfresh parse\n%s", got, want)
	}
}
