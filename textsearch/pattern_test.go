package textsearch

import (
	"slices"
	"strings"
	"testing"
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
