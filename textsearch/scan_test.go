package textsearch

import (
	"slices"
	"strings"
	"testing"
)

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

// TestMultilineBatches: the multiline scan, which asks the regexp for a
// batch of matches at a time and resumes at a line start, reports what one
// call for all matches reports: anchors, word boundaries, several matches
// on a line, empty matches, matches that span lines.
func TestMultilineBatches(t *testing.T) {
	text := []byte("abc abc\nab\nc abc\n\nxabc abcabc\nxc\nab\nabc")
	saved := multilineBatch
	t.Cleanup(func() { multilineBatch = saved })
	for _, pat := range []string{`abc`, `^abc`, `\babc\b`, `c\na`, `b?`, `abc$`, `c.*?a`, `(?m:^$)`, `c\n?`, `c\na|^b`} {
		p, err := Compile(pat, PatternOptions{Multiline: true})
		if err != nil {
			t.Fatal(err)
		}
		hits := func() []hit {
			var hs []hit
			p.newScanner().scan(text, func(h hit) bool { hs = append(hs, h); return true })
			return hs
		}
		multilineBatch = 1 << 30
		want := hits()
		for _, n := range []int{1, 2, 3} {
			multilineBatch = n
			if got := hits(); !slices.Equal(got, want) {
				t.Errorf("%q in batches of %d: %v, want %v", pat, n, got, want)
			}
		}
	}
}
