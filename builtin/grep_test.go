package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/workspace"
)

// rgCase is one query run by both grep and rg; rg gets the same flags, and
// rgPattern when Go's and rg's syntax differ (rg's \w, \s, \d and \b are
// Unicode-aware, Go's are ASCII: (?-u) makes rg's ASCII too).
type rgCase struct {
	name      string
	args      grepArgs
	rgPattern string
}

var rgCases = []rgCase{
	{name: "literal", args: grepArgs{Pattern: "func Errorf"}},
	{name: "literal fixed", args: grepArgs{Pattern: "fmt.Sprintf(", FixedStrings: true}},
	{name: "literal non-ascii", args: grepArgs{Pattern: "世界"}},
	{name: "regex with literal", args: grepArgs{Pattern: `func \(\w+ \*?Reader\) Read`}, rgPattern: `(?-u)func \(\w+ \*?Reader\) Read`},
	{name: "word boundary", args: grepArgs{Pattern: `\bcontext\.Context\b`}, rgPattern: `(?-u)\bcontext\.Context\b`},
	{name: "optional", args: grepArgs{Pattern: `colou?r`}},
	{name: "class expansion", args: grepArgs{Pattern: `[Ee]rror\(`}},
	{name: "anchors", args: grepArgs{Pattern: `^package main$`}},
	{name: "case-insensitive", args: grepArgs{Pattern: "readall", CaseInsensitive: true}},
	{name: "case-insensitive k s", args: grepArgs{Pattern: "strings.Builder", CaseInsensitive: true}},
	{name: "case-insensitive fixed", args: grepArgs{Pattern: "content-type", CaseInsensitive: true, FixedStrings: true}},
	{name: "case-insensitive unicode", args: grepArgs{Pattern: "ß", CaseInsensitive: true}},
	{name: "case-insensitive kelvin sign", args: grepArgs{Pattern: `\x{212A}ind\(`, CaseInsensitive: true}},
	{name: "inline flag", args: grepArgs{Pattern: `(?i)https?://golang\.org`}},
	{name: "alternation", args: grepArgs{Pattern: `ErrUnexpectedEOF|ErrShortWrite|ErrNoProgress`}},
	{name: "alternation case-insensitive", args: grepArgs{Pattern: `TODO|FIXME|XXX`, CaseInsensitive: true}},
	{name: "no literal", args: grepArgs{Pattern: `[A-Z]{4,}[0-9]{2,}`}},
	{name: "no literal trailing space", args: grepArgs{Pattern: `[ \t]+$`}},
	{name: "hex words", args: grepArgs{Pattern: `\b0x[0-9a-f]{8}\b`}, rgPattern: `(?-u)\b0x[0-9a-f]{8}\b`},
	{name: "many matches", args: grepArgs{Pattern: `err`}},
	{name: "every line of a dir", args: grepArgs{Pattern: `^`, Path: "bufio"}},
	{name: "one file", args: grepArgs{Pattern: `func`, Path: "fmt/print.go"}},
	{name: "glob braces", args: grepArgs{Pattern: `TEXT`, Glob: "*.{s,h}"}},
	{name: "glob path", args: grepArgs{Pattern: `Reader`, Glob: "io/**/*.go"}},
	{name: "glob negated", args: grepArgs{Pattern: `Deprecated:`, Glob: "!**/testdata/**"}},
	{name: "type", args: grepArgs{Pattern: `golang`, Type: "md"}},
	{name: "type c", args: grepArgs{Pattern: `#include`, Type: "c"}},
	{name: "hidden", args: grepArgs{Pattern: `node_modules|localstorage`, Hidden: true}},
	{name: "include ignored", args: grepArgs{Pattern: `unix\.test`, IncludeIgnored: true, Hidden: true}},
	{name: "files with matches", args: grepArgs{Pattern: `unsafe\.Pointer`, OutputMode: "files_with_matches"}},
	{name: "count", args: grepArgs{Pattern: `panic\(`, OutputMode: "count"}},
	{name: "multiline", args: grepArgs{Pattern: `func main\(\) \{\n\s+fmt`, Multiline: true}, rgPattern: `(?-u)func main\(\) \{\n\s+fmt`},
	{name: "multiline dotall", args: grepArgs{Pattern: `type \w+ struct \{\s*\}`, Multiline: true}, rgPattern: `(?-u)type \w+ struct \{\s*\}`},
	{name: "multiline dot", args: grepArgs{Pattern: `Deprecated:.{0,10}\n//`, Multiline: true}},
}

// TestGrepMatchesRipgrep compares grep's set of results on Go's source tree
// with rg's for the same query.
func TestGrepMatchesRipgrep(t *testing.T) {
	if testing.Short() {
		t.Skip("searches Go's source tree")
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed (apt-get install -y ripgrep)")
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	ws, err := workspace.New(root)
	if err != nil {
		t.Skip(err)
	}
	s, err := workspace.NewSession(ws, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := workspace.WithSession(context.Background(), s)
	for _, c := range rgCases {
		t.Run(c.name, func(t *testing.T) {
			a := c.args
			a.MaxResults = 1 << 30
			out, err := runGrep(ctx, a, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			if out != "No matches found." {
				for _, line := range strings.Split(out, "\n") {
					if strings.HasPrefix(line, "[") && !strings.Contains(line, "characters were cut") {
						t.Errorf("unexpected note: %s", line)
					}
					if strings.HasPrefix(line, "[") {
						continue
					}
					got[resultKey(line, a.OutputMode)] = true
				}
			}
			want := ripgrep(t, rg, root, c)
			if len(want) == 0 {
				t.Fatalf("rg found nothing: not a useful case")
			}
			var missing, extra []string
			for k := range want {
				if !got[k] {
					missing = append(missing, k)
				}
			}
			for k := range got {
				if !want[k] {
					extra = append(extra, k)
				}
			}
			slices.Sort(missing)
			slices.Sort(extra)
			if len(missing)+len(extra) > 0 {
				t.Errorf("%d results; rg has %d: missing %d %.10q, extra %d %.10q", len(got), len(want), len(missing), missing, len(extra), extra)
			}
			t.Logf("%d results", len(got))
		})
	}
}

// resultKey is the comparable part of an output line: path:line for
// content, the line itself for the other modes.
func resultKey(line, mode string) string {
	if mode != "" && mode != "content" {
		return line
	}
	i := strings.IndexByte(line, ':')
	j := strings.IndexByte(line[i+1:], ':')
	return line[:i+1+j]
}

// ripgrep runs rg for c and returns its results as resultKeys. Files rg
// stopped searching at a NUL byte (binary files with matches before it) are
// dropped: grep skips binary files whole.
func ripgrep(t *testing.T, rg, root string, c rgCase) map[string]bool {
	args := []string{"--no-require-git", "--no-config", "-H"}
	a := c.args
	if a.CaseInsensitive {
		args = append(args, "-i")
	}
	if a.FixedStrings {
		args = append(args, "-F")
	}
	if a.Hidden {
		args = append(args, "--hidden")
	}
	if a.IncludeIgnored {
		args = append(args, "--no-ignore")
	}
	if a.Glob != "" {
		args = append(args, "-g", a.Glob)
	}
	if a.Type != "" {
		args = append(args, "-t", a.Type)
	}
	switch {
	case a.Multiline:
		args = append(args, "-U", "--multiline-dotall", "--json")
	case a.OutputMode == "files_with_matches":
		args = append(args, "-l")
	case a.OutputMode == "count":
		args = append(args, "-c")
	default:
		args = append(args, "-n", "--no-heading")
	}
	pat := a.Pattern
	if c.rgPattern != "" {
		pat = c.rgPattern
	}
	args = append(args, "-e", pat)
	if a.Path != "" {
		args = append(args, a.Path)
	}
	cmd := exec.Command(rg, args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("rg %q: %v\n%s", args, err, stderr.Bytes())
		}
	}
	res := map[string]bool{}
	binary := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, ": WARNING: stopped searching binary file"); i >= 0 {
			binary[line[:i]] = true
			continue
		}
		if a.Multiline {
			var m struct {
				Type string
				Data struct {
					Path         struct{ Text string }
					LineNumber   int  `json:"line_number"`
					BinaryOffset *int `json:"binary_offset"`
				}
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			if m.Type == "end" && m.Data.BinaryOffset != nil {
				binary[m.Data.Path.Text] = true
			}
			if m.Type == "match" {
				res[m.Data.Path.Text+":"+itoa(m.Data.LineNumber)] = true
			}
			continue
		}
		res[resultKey(line, a.OutputMode)] = true
	}
	for k := range res {
		p := k
		if i := strings.IndexByte(k, ':'); i >= 0 {
			p = k[:i]
		}
		if binary[p] {
			delete(res, k)
		}
	}
	return res
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// benchClasses are the pattern classes of bench/grep.
var benchClasses = []struct {
	name, pattern string
	ci            bool
}{
	{"literal", "func Errorf", false},
	{"regex-literal", `func \(\w+ \*?Reader\) Read`, false},
	{"case-insensitive", "readall", true},
	{"alternation", `ErrUnexpectedEOF|ErrShortWrite|ErrNoProgress`, false},
	{"no-literal", `[A-Z]{4,}[0-9]{2,}`, false},
	{"many-matches", `err`, false},
}

// BenchmarkGrepGoroot searches Go's source tree once per iteration, each
// time walking it afresh (what one `agentls call grep` does).
func BenchmarkGrepGoroot(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	ws, err := workspace.New(root)
	if err != nil {
		b.Skip(err)
	}
	s, err := workspace.NewSession(ws, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := workspace.WithSession(context.Background(), s)
	for _, c := range benchClasses {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := runGrep(ctx, grepArgs{Pattern: c.pattern, CaseInsensitive: c.ci}, 60000); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
