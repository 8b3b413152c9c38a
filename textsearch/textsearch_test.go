package textsearch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestPrefilter(t *testing.T) {
	cases := []struct {
		pattern string
		opts    PatternOptions
		lits    []string
		exact   bool
	}{
		{"func Errorf", PatternOptions{}, []string{"func Errorf"}, true},
		{"a.b(", PatternOptions{FixedStrings: true}, []string{"a.b("}, true},
		{`func \(\w+\) Read`, PatternOptions{}, []string{"func ("}, false},
		{`colou?r`, PatternOptions{}, []string{"color", "colour"}, true},
		{`[Ee]rror\(`, PatternOptions{}, []string{"error("}, false}, // the parser makes [Ee] a folded e
		{`foo|bar|baz`, PatternOptions{}, []string{"bar", "baz", "foo"}, true},
		{`\bword\b`, PatternOptions{}, []string{"word"}, true}, // the \b are checked on each hit (Unicode)
		{`^package main$`, PatternOptions{}, []string{"package main"}, false},
		{"ReadAll", PatternOptions{CaseInsensitive: true}, []string{"readall"}, true},
		{"Strings", PatternOptions{CaseInsensitive: true}, []string{"tring"}, false}, // s folds with U+017F
		{"(?i)http", PatternOptions{}, []string{"http"}, true},
		{"(?i:foo)Bar", PatternOptions{}, []string{"foobar"}, false},
		{`[A-Z]{4,}[0-9]{2,}`, PatternOptions{}, nil, false}, // ten single bytes: the DFA instead
		{`.*`, PatternOptions{}, nil, false},
		{`(ab)+c`, PatternOptions{}, []string{"ab"}, false},
		{"世界", PatternOptions{}, []string{"世界"}, true},
		{"ß", PatternOptions{CaseInsensitive: true}, nil, false},
		{"a\nb", PatternOptions{Multiline: true}, []string{"a\nb"}, true},
	}
	for _, c := range cases {
		p, err := Compile(c.pattern, c.opts)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		if !slices.Equal(p.lits, c.lits) || p.exact != c.exact {
			t.Errorf("%q %+v: lits %q exact %v, want %q %v", c.pattern, c.opts, p.lits, p.exact, c.lits, c.exact)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for pat, want := range map[string]string{
		"func (":  "missing closing )",
		"a\\nb":   "multiline",
		"x{2,1}":  "invalid repeat count",
		"(?<=a)b": "error parsing regexp",
	} {
		_, err := Compile(pat, PatternOptions{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", pat, err, want)
		}
	}
}

// corpus is text with the shapes that trouble line search: empty lines, a
// last line without newline, CRLF, tabs, non-ASCII and invalid UTF-8.
var corpus = strings.Join([]string{
	"package main",
	"",
	"import \"fmt\"",
	"func main() {",
	"\tfmt.Println(\"héllo, 世界\") // TODO",
	"  trailing  ",
	"ERROR123 and WARN45",
	"readAll ReadALL READALL",
	"crlf line\r",
	"Kelvin \u212a and long \u017f",
	"invalid \xff\xfe bytes",
	"x",
	"colour color colr",
	"", "",
	"end without newline",
}, "\n")

func TestScanAgreesWithRegexp(t *testing.T) {
	patterns := []struct {
		pat  string
		opts PatternOptions
	}{
		{"main", PatternOptions{}},
		{"^$", PatternOptions{}},
		{"^", PatternOptions{}},
		{"$", PatternOptions{}},
		{"x*", PatternOptions{}},
		{`\s+$`, PatternOptions{}},
		{`[ \t]+$`, PatternOptions{}},
		{`^\t`, PatternOptions{}},
		{`[A-Z]{4,}[0-9]{2,}`, PatternOptions{}},
		{`[^a-z ]`, PatternOptions{}},
		{`\bcol\w*r\b`, PatternOptions{}},
		{`colou?r`, PatternOptions{}},
		{"readall", PatternOptions{CaseInsensitive: true}},
		{"kelvin", PatternOptions{CaseInsensitive: true}},
		{"LONG S", PatternOptions{CaseInsensitive: true}},
		{"世", PatternOptions{}},
		{".界", PatternOptions{}},
		{`\xff`, PatternOptions{}},
		{"newline$", PatternOptions{}},
		{`line\r$`, PatternOptions{}},
		{"TODO|WARN|nothing", PatternOptions{}},
		{"a.b", PatternOptions{FixedStrings: true}},
		{`[[:upper:]]{3}`, PatternOptions{}},
		{`(?i)[a-c]{2}`, PatternOptions{}},
	}
	lines := strings.Split(corpus, "\n")
	for _, c := range patterns {
		p, err := Compile(c.pat, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		for i, l := range lines {
			if p.re.MatchString(l) {
				want = append(want, i)
			}
		}
		for _, data := range []string{corpus, corpus + "\n"} {
			var got []int
			sc := p.newScanner()
			sc.scan([]byte(data), func(h hit) bool {
				got = append(got, strings.Count(data[:h.ls], "\n"))
				if !p.re.Match([]byte(data[h.ls:h.le])) || h.ms < h.ls || h.me > h.le {
					t.Errorf("%q: bad hit %+v", c.pat, h)
				}
				return true
			})
			if !slices.Equal(got, want) {
				t.Errorf("%q %+v: lines %v, want %v", c.pat, c.opts, got, want)
			}
		}
	}
}

func TestScanMultiline(t *testing.T) {
	data := []byte("a {\n}\nb {\n  x\n}\nc {}\n")
	p, err := Compile(`\{\s*\}`, PatternOptions{Multiline: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	p.newScanner().scan(data, func(h hit) bool {
		got = append(got, string(data[h.ls:h.le]))
		return true
	})
	if want := []string{"a {", "c {}"}; !slices.Equal(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestFinderFold(t *testing.T) {
	text := []byte("xx READall yy rEaDaLl readal READALL_")
	f := newFinder([]string{"readall"}, true)
	f.reset()
	var got []int
	for pos := 0; ; {
		s, e := f.find(text, pos)
		if s < 0 {
			break
		}
		got = append(got, s)
		pos = e
	}
	want := []int{3, 14, 29}
	if !slices.Equal(got, want) {
		t.Errorf("got %v want %v", got, want)
	}
	// several literals, earliest first
	f = newFinder([]string{"yy", "xx", "all"}, false)
	f.reset()
	var order []int
	for pos := 0; ; {
		s, e := f.find(text, pos)
		if s < 0 {
			break
		}
		order = append(order, s)
		pos = e
	}
	if want := []int{0, 7, 11}; !slices.Equal(order, want) {
		t.Errorf("multi: got %v want %v", order, want)
	}
}

func sliceSource(files ...File) Source {
	return func(ctx context.Context, fn func(File)) error {
		for _, f := range files {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fn(f)
		}
		return nil
	}
}

func TestSearchBudgetAndCancel(t *testing.T) {
	p, _ := Compile("x", PatternOptions{})
	src := sliceSource(File{Rel: "a", Text: []byte("x\n")}, File{Rel: "b", Text: []byte("x\n")})
	out, err := Search(context.Background(), Query{Pattern: p, Budget: time.Nanosecond}, src)
	if err != nil || !strings.Contains(out, "[search stopped after the 1ns time budget") {
		t.Errorf("budget: %q %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Search(ctx, Query{Pattern: p}, src); !errors.Is(err, ErrCancelled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestSearchSortedAndLimited(t *testing.T) {
	p, _ := Compile("hit", PatternOptions{})
	var files []File
	for i := 99; i >= 0; i-- { // out of order
		files = append(files, File{Rel: fmt.Sprintf("f%02d", i), Text: bytes.Repeat([]byte("hit\nmiss\n"), 5)})
	}
	out, err := Search(context.Background(), Query{Pattern: p, MaxResults: 7}, sliceSource(files...))
	if err != nil {
		t.Fatal(err)
	}
	want := "f00:1:hit\nf00:3:hit\nf00:5:hit\nf00:7:hit\nf00:9:hit\nf01:1:hit\nf01:3:hit\n[7 of 500 matches in 100 files shown (max_results 7); next: the same call with offset: 7, or narrow with path/glob/type]"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	out, _ = Search(context.Background(), Query{Pattern: p, Mode: Count, MaxResults: 2}, sliceSource(files...))
	if want := "f00:5\nf01:5\n[2 of 100 files shown (max_results 2); next: the same call with offset: 2, or narrow with path/glob/type]"; out != want {
		t.Errorf("count: got\n%s\nwant\n%s", out, want)
	}
	out, _ = Search(context.Background(), Query{Pattern: p, MaxBytes: 30}, sliceSource(files...))
	if !strings.HasPrefix(out, "f00:1:hit\nf00:3:hit\nf00:5:hit\n[3 of 500 matches in 100 files shown (the result size limit); next: the same call with offset: 3,") {
		t.Errorf("bytes: got\n%s", out)
	}
}

func TestAppendCut(t *testing.T) {
	line := []byte(strings.Repeat("é", 300) + "MATCH" + strings.Repeat("ü", 300))
	col := bytes.Index(line, []byte("MATCH"))
	got := appendCut(nil, line, col, 100)
	if !utf8.Valid(got) || !bytes.Contains(got, []byte("MATCH")) || utf8.RuneCount(got) != 102 {
		t.Errorf("cut: %q (%d runes)", got, utf8.RuneCount(got))
	}
	got = appendCut(nil, line, -1, 100)
	if !bytes.HasPrefix(got, []byte("éé")) || !bytes.HasSuffix(got, []byte("…")) {
		t.Errorf("cut at start: %q", got)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("%d: %q", n, got)
		}
	}
}

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

// TestSearchPaging walks every page of a result by the offset each note
// names, under a count limit and under a byte limit, and checks that the
// pages together are the whole result, in order, each match once.
func TestSearchPaging(t *testing.T) {
	p, _ := Compile("hit", PatternOptions{})
	var files []File
	for i := range 30 {
		files = append(files, File{Rel: fmt.Sprintf("d%d/f", i%7) + strings.Repeat("x", i), Text: []byte(strings.Repeat("hit\nmiss\nmiss\n", 1+i%4))})
	}
	for _, mode := range []Mode{Content, FilesWithMatches, Count} {
		for _, q := range []Query{{MaxResults: 7}, {MaxResults: 1000, MaxBytes: 200}, {MaxResults: 5, Context: 1}} {
			q.Pattern, q.Mode = p, mode
			all := q
			all.MaxResults, all.MaxBytes = 100000, 0
			want, _ := Search(context.Background(), all, sliceSource(files...))
			if q.Context > 0 && mode == Content {
				want = strings.ReplaceAll(want, "--\n", "")
			}
			var got []string
			for page := 0; ; page++ {
				if page > 200 {
					t.Fatalf("mode %d %+v: no end after 200 pages", mode, q)
				}
				out, err := Search(context.Background(), q, sliceSource(files...))
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(out, "\n")
				note := lines[len(lines)-1]
				if !strings.HasPrefix(note, "[") {
					got = append(got, lines...)
					break
				}
				for _, l := range lines[:len(lines)-1] {
					if l != "--" {
						got = append(got, l)
					}
				}
				if strings.HasSuffix(note, "the last ones]") {
					break
				}
				var next int
				i := strings.Index(note, "offset: ")
				if i < 0 {
					t.Fatalf("mode %d %+v: note %q names no offset", mode, q, note)
				}
				fmt.Sscanf(note[i:], "offset: %d", &next)
				if next <= q.Offset {
					t.Fatalf("mode %d %+v: note %q does not move on", mode, q, note)
				}
				q.Offset = next
			}
			if strings.Join(got, "\n") != want {
				t.Errorf("mode %d %+v: pages\n%s\nwant\n%s", mode, q, strings.Join(got, "\n"), want)
			}
		}
	}
	out, _ := Search(context.Background(), Query{Pattern: p, Offset: 1000}, sliceSource(files...))
	if !strings.HasSuffix(out, "[offset 1,000 is past the last of the 73 matches: pass a smaller offset]") {
		t.Errorf("past the end: %q", out)
	}
}

func TestComparePaths(t *testing.T) {
	// rg --sort path (13.0) orders these so: by component, not by bytes.
	want := []string{"a/b", "a/b/c", "a/bc", "a-b/a", "a.b", "pip/_vendor/x", "pip-23.2.1.dist-info/AUTHORS.txt"}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortFunc(got, ComparePaths)
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
