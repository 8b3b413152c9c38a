package codeindex

import (
	"fmt"
	"go/build"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"golang.org/x/tools/txtar"
)

// TestWalkCompiles: the walk takes the definitions patterns of every
// language (none falls back to the query), numbering the captures as the
// query does; and both queries, compiled on first use, compile.
func TestWalkCompiles(t *testing.T) {
	for _, l := range Languages() {
		if err := l.load(); err != nil {
			t.Fatal(err)
		}
		if l.walk.c == nil {
			t.Errorf("%s: no walk: %v", l.Name, l.walkErr)
		}
		if _, err := l.defsQuery(); err != nil { // compares the captures
			t.Error(err)
		}
		if _, _, err := l.refsQuery(); err != nil {
			t.Error(err)
		}
	}
}

// TestWalkScmErrors: what the walk does not implement is refused, so the
// language keeps the query.
func TestWalkScmErrors(t *testing.T) {
	l := LanguageByName("c")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	sc := func(src string) error {
		s := &scmScanner{src: []byte(src),
			symbol: func(n string) uint16 { return map[string]uint16{"a": 1, "b": 2}[n] },
			field:  func(n string) uint16 { return map[string]uint16{"f": 1}[n] }}
		_, err := s.expr()
		return err
	}
	for _, src := range []string{`(a (b)* @name)`, `(a (b) @name (#eq? @name "x"))`, `(a "x")`, `(c)`, `(a g: (b))`, `(a (b) @)`, `(a [(b) [(a)]])`, `(a`} {
		if err := sc(src); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
	for _, src := range []string{`(a f: (b) @name)`, `(a . (b) . [(a) (b)] @name .)`, `(a !f (_) @name)`} {
		if err := sc(src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// TestWalkMatchesQuery checks that the walk finds the matches of
// tree-sitter's query cursor, capture for capture, and so the same
// definitions: over every file of testdata/lang, and with
// AGENTLS_CORPUS=DIR (not under -short) over DIR/LANGUAGE. Each file is
// compared parsed whole and as its skeleton (the cold build's tree), from
// the root and over byte ranges (the incremental update's calls), with
// and without within.
func TestWalkMatchesQuery(t *testing.T) {
	files, _ := filepath.Glob("testdata/lang/*.txtar")
	byLang := map[*Language][][]byte{}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if l := LanguageFor(f.Name); l != nil {
				byLang[l] = append(byLang[l], f.Data)
			}
		}
	}
	// Broken text, where error recovery builds trees the grammar does not
	// (the walk looks into the types of walkSkip that hold an error).
	for name, src := range map[string]string{
		"python": "f(\ndef g():\n  pass\n)\nx = [class C: pass]\nprint(def h(): 1)\nimport a.b\n  def i(): pass\nreturn (\nclass D:\n  def j(self): pass\n\nfoo(a, b\n\nclass E:\n  pass\n",
		"rust":   "use a::{fn f() {}};\n#[attr(struct S;)]\nfn g() { m!{ struct T; } }\nuse b::{c, d\nfn k() {}\npub(crate struct U;\n",
	} {
		l := LanguageByName(name)
		byLang[l] = append(byLang[l], []byte(src))
	}
	for _, l := range Languages() {
		if len(byLang[l]) == 0 {
			t.Errorf("%s: no file in testdata/lang", l.Name)
		}
		t.Run(l.Name, func(t *testing.T) {
			d := newWalkDiff(t, l)
			defer d.x.Close()
			for i, src := range byLang[l] {
				d.file(fmt.Sprintf("testdata #%d", i), src)
			}
			d.report(t)
		})
	}
	root := os.Getenv("AGENTLS_CORPUS")
	if root == "" || testing.Short() {
		return
	}
	for _, l := range Languages() {
		t.Run("corpus/"+l.Name, func(t *testing.T) {
			dir := filepath.Join(root, l.Name)
			if _, err := os.Stat(dir); err != nil && l.Name == "go" {
				dir = filepath.Join(build.Default.GOROOT, "src")
			}
			if _, err := os.Stat(dir); err != nil {
				t.Skipf("no corpus: %v", err)
			}
			d := newWalkDiff(t, l)
			defer d.x.Close()
			filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() || LanguageFor(p) != l {
					return nil
				}
				src, err := os.ReadFile(p)
				if err != nil || len(src) > maxFileSize || skip(src) {
					return nil
				}
				d.file(p, src)
				return nil
			})
			d.report(t)
		})
	}
}

type walkDiff struct {
	t                     *testing.T
	l                     *Language
	q                     *sitter.Query
	x                     *extractor
	files, differ, checks int
}

func newWalkDiff(t *testing.T, l *Language) *walkDiff {
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	if l.walk.c == nil {
		t.Fatalf("no walk: %v", l.walkErr)
	}
	q, err := l.defsQuery()
	if err != nil {
		t.Fatal(err)
	}
	return &walkDiff{t: t, l: l, q: q, x: newExtractor()}
}

func (d *walkDiff) report(t *testing.T) {
	t.Logf("%s: %d files, %d comparisons, %d files differ", d.l.Name, d.files, d.checks, d.differ)
}

// file compares the walk with the query over src parsed whole and as its
// skeleton.
func (d *walkDiff) file(name string, src []byte) {
	d.files++
	bad := d.text(name, src, src)
	if d.l.skeleton != nil && d.l.skeleton(&d.x.sk, src) {
		sk := append([]byte(nil), d.x.sk.buf...)
		bad = d.text(name+" (skeleton)", sk, nil) || bad
	}
	if bad {
		d.differ++
	}
}

func (d *walkDiff) text(name string, text, src []byte) (bad bool) {
	t, l, x := d.t, d.l, d.x
	tree, err := x.parseTree(l, text, ctree{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer tree.close()
	root := tree.root()
	type call struct {
		lo, hi uint32
		within bool
	}
	calls := []call{{0, math.MaxUint32, true}}
	// The ranges of the incremental update: the children of the root, and
	// a few lines at a time, with and without within.
	n := uint32(len(text))
	for _, step := range []uint32{max(n/7, 1), max(n/3, 1)} {
		for lo := uint32(0); lo < n; lo += step {
			calls = append(calls, call{lo, min(lo+step, n), true}, call{lo + step/3, min(lo+step, n), false})
		}
	}
	for _, c := range calls {
		d.checks++
		want := matchSet(runQueryRange(x.qc, d.q, root, l.defDepth(), c.lo, c.hi, c.within, nil))
		got := matchSet(walkRange(l.walk, root, l.defDepth(), c.lo, c.hi, c.within, nil))
		if !slices.Equal(want, got) {
			bad = true
			t.Errorf("%s [%d, %d) within %v: query %d matches, walk %d:\n%s", name, c.lo, c.hi, c.within, len(want), len(got), setDiff(want, got, text))
			break
		}
	}
	if src != nil && !bad {
		// And so the same definitions.
		x.caps = runQuery(x.qc, d.q, root, l.defDepth(), x.caps)
		want := fmt.Sprint(x.collect(l, src, nil))
		got := fmt.Sprint(x.treeDefs(l, root, src))
		if want != got {
			bad = true
			t.Errorf("%s: definitions differ:\nquery %s\nwalk  %s", name, want, got)
		}
	}
	return bad
}

// matchSet returns the distinct matches of caps, each as its pattern and
// its captures in order.
func matchSet(caps []capture) []string {
	var out []string
	for i := 0; i < len(caps); {
		m := caps[i].match
		var cs []string
		p := caps[i].pattern
		for ; i < len(caps) && caps[i].match == m; i++ {
			c := caps[i].rng
			cs = append(cs, fmt.Sprintf("%d@%d-%d(%d:%d-%d:%d)", caps[i].index, c.StartByte, c.EndByte, c.StartPoint.Row, c.StartPoint.Column, c.EndPoint.Row, c.EndPoint.Column))
		}
		sort.Strings(cs)
		out = append(out, fmt.Sprintf("pattern %d: %s", p, strings.Join(cs, " ")))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// setDiff lists what one set has and the other lacks (up to 10 lines).
func setDiff(want, got []string, text []byte) string {
	var b strings.Builder
	lines := 0
	for _, s := range want {
		if _, ok := slices.BinarySearch(got, s); !ok && lines < 10 {
			fmt.Fprintf(&b, "  query only: %s%s\n", s, matchText(s, text))
			lines++
		}
	}
	for _, s := range got {
		if _, ok := slices.BinarySearch(want, s); !ok && lines < 10 {
			fmt.Fprintf(&b, "  walk only:  %s%s\n", s, matchText(s, text))
			lines++
		}
	}
	return b.String()
}

// matchText quotes the first line of the text of a match's first capture.
func matchText(s string, text []byte) string {
	var id, lo, hi int
	i := strings.Index(s, ": ")
	if i < 0 {
		return ""
	}
	if _, err := fmt.Sscanf(s[i+2:], "%d@%d-%d", &id, &lo, &hi); err != nil || hi > len(text) || lo > hi {
		return ""
	}
	q := string(text[lo:hi])
	if j := strings.IndexByte(q, '\n'); j >= 0 {
		q = q[:j]
	}
	return fmt.Sprintf(" %q", q)
}

// BenchmarkDefsPass times the definitions pass alone, the query's and the
// walk's taking turns file by file over the same trees (the cold build's:
// each file's skeleton parsed once), for each language of
// $AGENTLS_CORPUS/LANGUAGE, or of testdata/lang without it; it reports
// the time per file of each and the walk's over the query's.
func BenchmarkDefsPass(b *testing.B) {
	root := os.Getenv("AGENTLS_CORPUS")
	for _, l := range Languages() {
		b.Run(l.Name, func(b *testing.B) {
			if err := l.load(); err != nil {
				b.Fatal(err)
			}
			q, err := l.defsQuery()
			if err != nil {
				b.Fatal(err)
			}
			x := newExtractor()
			defer x.Close()
			var texts [][]byte
			add := func(src []byte) {
				if l.skeleton != nil && l.skeleton(&x.sk, src) {
					src = append([]byte(nil), x.sk.buf...)
				}
				texts = append(texts, src)
			}
			if root == "" {
				files, _ := filepath.Glob("testdata/lang/*.txtar")
				for _, file := range files {
					ar, err := txtar.ParseFile(file)
					if err != nil {
						b.Fatal(err)
					}
					for _, f := range ar.Files {
						if LanguageFor(f.Name) == l {
							add(f.Data)
						}
					}
				}
			} else {
				filepath.WalkDir(filepath.Join(root, l.Name), func(p string, e fs.DirEntry, err error) error {
					if err == nil && !e.IsDir() && LanguageFor(p) == l {
						if src, err := os.ReadFile(p); err == nil && len(src) <= maxFileSize && !skip(src) {
							add(src)
						}
					}
					return nil
				})
			}
			if len(texts) == 0 {
				b.Skip("no files")
			}
			trees := make([]ctree, len(texts))
			for i, text := range texts {
				if trees[i], err = x.parseTree(l, text, ctree{}); err != nil {
					b.Fatal(err)
				}
			}
			defer func() {
				for _, t := range trees {
					t.close()
				}
			}()
			var query, walk time.Duration
			for b.Loop() {
				for _, t := range trees {
					t0 := time.Now()
					x.caps = runQuery(x.qc, q, t.root(), l.defDepth(), x.caps)
					t1 := time.Now()
					x.caps = walkRange(l.walk, t.root(), l.defDepth(), 0, math.MaxUint32, true, x.caps)
					walk += time.Since(t1)
					query += t1.Sub(t0)
				}
			}
			n := float64(b.N * len(trees))
			b.ReportMetric(float64(query.Nanoseconds())/n, "query-ns/file")
			b.ReportMetric(float64(walk.Nanoseconds())/n, "walk-ns/file")
			b.ReportMetric(float64(walk)/float64(max(query, 1)), "walk/query")
			b.ReportMetric(0, "ns/op")
		})
	}
}
