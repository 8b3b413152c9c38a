package codeindex

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata")

func TestQueriesCompile(t *testing.T) {
	for _, l := range Languages() {
		if err := l.load(); err != nil {
			t.Errorf("%s: %v", l.Name, err)
		}
	}
}

// TestLanguages parses the source file of each testdata/lang/*.txtar and
// compares its definitions and references with the "symbols" section.
func TestLanguages(t *testing.T) {
	files, _ := filepath.Glob("testdata/lang/*.txtar")
	if len(files) < len(Languages()) {
		t.Errorf("%d language archives for %d languages", len(files), len(Languages()))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var src *txtar.File
			want := -1
			for i := range ar.Files {
				if ar.Files[i].Name == "symbols" {
					want = i
				} else if src == nil {
					src = &ar.Files[i]
				}
			}
			if src == nil {
				t.Fatal("no source file")
			}
			l := LanguageFor(src.Name)
			if l == nil {
				t.Fatalf("no language for %s", src.Name)
			}
			got := describeFile(t, l, src.Name, src.Data)
			if *update {
				if want < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "symbols"})
					want = len(ar.Files) - 1
				}
				ar.Files[want].Data = []byte(got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want < 0 {
				t.Fatal("no symbols section (run with -update)")
			}
			if w := string(ar.Files[want].Data); w != got {
				t.Errorf("symbols differ\n--- got\n%s--- want\n%s", got, w)
			}
		})
	}
}

// describeFile lists the definitions and references of one file, a line each.
func describeFile(t *testing.T, l *Language, name string, src []byte) string {
	x := newExtractor()
	defer x.Close()
	tree, err := x.parse(context.Background(), l, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	var b bytes.Buffer
	defs := x.definitions(l, tree, src, name)
	describe(l, src, defs)
	for _, s := range defs {
		q := s.Name
		if s.Container != "" {
			q = s.Container + "." + s.Name
		}
		fmt.Fprintf(&b, "def %d %s %s", s.NameRange.Start.Line+1, s.Kind, q)
		if s.Doc != "" {
			fmt.Fprintf(&b, " doc=%q", s.Doc)
		}
		b.WriteString("\n")
	}
	for _, r := range x.references(l, rootOf(tree), src, name, "", defs) {
		fmt.Fprintf(&b, "ref %d %s %s\n", r.Range.Start.Line+1, r.Kind, r.Name)
	}
	// A skeleton parse, where the language has one, finds the same definitions.
	if l.skeleton != nil {
		sd, err := x.skeletonDefs(l, src)
		sk := symbols(sd, name)
		if err != nil {
			t.Fatal(err)
		}
		describe(l, src, sk)
		if a, b := fmt.Sprint(sk), fmt.Sprint(defs); a != b {
			t.Errorf("skeleton definitions differ:\n%s\nfull:\n%s", a, b)
		}
	}
	return b.String()
}

// TestLuaParsesTakeTurns parses Lua with long brackets of several levels
// on many goroutines at once: tree-sitter-lua's external scanner keeps its
// state in globals, so parses that overlap read each other's (see
// Language.serialParse) and find other definitions than one parse alone.
func TestLuaParsesTakeTurns(t *testing.T) {
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "--[%s[ block %d\n]%s]\nlocal s%d = [%s[ a ]] b ]%s]\nfunction M.f%d(x)\n  return [[%d]]\nend\n",
			strings.Repeat("=", i%4), i, strings.Repeat("=", i%4), i, strings.Repeat("=", i%3+1), strings.Repeat("=", i%3+1), i, i)
	}
	src := []byte(b.String())
	l := LanguageByName("lua")
	x := newExtractor()
	want, err := x.parseDefs(l, src) // a parse (skeletonDefs would read Lua without one: luaDefs)
	x.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 120 {
		t.Fatalf("%d definitions, want 120", len(want))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := newExtractor()
			defer x.Close()
			for range 40 {
				got, err := x.parseDefs(l, src)
				if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
					errs <- fmt.Sprintf("a parse found %d definitions, alone %d (%v)", len(got), len(want), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestLuaParseStartsAfresh parses one text four times in a row with one
// parser: tree-sitter-lua's scanner left its globals as the parse before
// ended them, and a text with an unterminated string gave 9 definitions and
// 7 by turns (Language.resetScanner).
func TestLuaParseStartsAfresh(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/lang/lua.txtar")
	if err != nil {
		t.Fatal(err)
	}
	text := "0" + string(ar.Files[0].Data)
	text = text[:30] + "0" + text[42:] // VERSION = "10tes an empty queue.
	l := LanguageByName("lua")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	x := newExtractor()
	defer x.Close()
	var counts []int
	for range 4 {
		tree, err := x.parseTree(l, []byte(text), ctree{})
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, len(x.treeDefs(l, tree.root(), []byte(text))))
		tree.close()
	}
	if slices.Min(counts) != slices.Max(counts) {
		t.Errorf("definitions of four parses of one text: %v", counts)
	}
}
