package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/textsearch"
	"github.com/agentls/agentls/workspace"
)

// rgCase is one query run by both grep and rg; rg gets the same flags, and
// rgPattern when Go's and rg's syntax differ. (\w, \s, \d and \b are
// Unicode-aware in both, as grep rewrites them.)
type rgCase struct {
	name      string
	args      grepArgs
	rgPattern string
}

var rgCases = []rgCase{
	{name: "literal", args: grepArgs{Pattern: "func Errorf"}},
	{name: "literal fixed", args: grepArgs{Pattern: "fmt.Sprintf(", FixedStrings: true}},
	{name: "literal non-ascii", args: grepArgs{Pattern: "世界"}},
	{name: "regex with literal", args: grepArgs{Pattern: `func \(\w+ \*?Reader\) Read`}},
	{name: "word boundary", args: grepArgs{Pattern: `\bcontext\.Context\b`}},
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
	{name: "hex words", args: grepArgs{Pattern: `\b0x[0-9a-f]{8}\b`}},
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
	{name: "multiline", args: grepArgs{Pattern: `func main\(\) \{\n\s+fmt`, Multiline: true}},
	{name: "multiline dotall", args: grepArgs{Pattern: `type \w+ struct \{\s*\}`, Multiline: true}},
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
	root := filepath.Join(build.Default.GOROOT, "src")
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
			a.budget = 30 * time.Minute // the race detector is slow
			out, err := runGrep(ctx, a, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			if out != "No matches found." {
				for _, line := range strings.Split(out, "\n") {
					if strings.HasPrefix(line, "[") && !strings.Contains(line, "characters cut") {
						t.Errorf("unexpected note: %s", line)
					}
					if strings.HasPrefix(line, "[") {
						continue
					}
					got[resultKey(line, a.OutputMode)] = true
				}
			}
			want := ripgrep(t, rg, root, c)
			for k := range want { // secrets (*.pem, …) are not searched
				if p, _, _ := strings.Cut(k, ":"); ws.Denied(p) {
					delete(want, k)
				}
			}
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
				t.Errorf("%d results; rg has %d: missing %d %q, extra %d %q", len(got), len(want), len(missing), missing[:min(10, len(missing))], len(extra), extra[:min(10, len(extra))])
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

// ripgrep runs rg for c and returns its results as a set of resultKey
// strings. Files rg stopped searching at a NUL byte (binary files with
// matches before it) are dropped: grep skips binary files whole.
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
					LineNumber   int `json:"line_number"`
					Lines        struct{ Text string }
					BinaryOffset *int `json:"binary_offset"`
				}
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			if m.Type == "end" && m.Data.BinaryOffset != nil {
				binary[m.Data.Path.Text] = true
			}
			if m.Type == "match" { // every line the match spans, as rg's text output prints them
				for i := range max(1, strings.Count(strings.TrimSuffix(m.Data.Lines.Text, "\n"), "\n")+1) {
					res[m.Data.Path.Text+":"+itoa(m.Data.LineNumber+i)] = true
				}
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
	root := filepath.Join(build.Default.GOROOT, "src")
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

const grepArchive = `
-- a.go --
package a

func Alpha() error { return nil }
// TODO: alpha
-- b/b.go --
package b

func Beta() {}
func beta2() {}
-- b/c.txt --
alpha beta gamma
ALPHA BETA
-- .hidden/h.go --
func Hidden() {}
-- .gitignore --
*.log
build/
-- app.log --
func Logged() {}
-- build/gen.go --
func Generated() {}
-- sub/.gitignore --
!keep.log
deep/skip.go
-- sub/keep.log --
func Kept() {}
-- sub/drop.log.txt --
func Dropped() {}
-- sub/deep/skip.go --
func Skipped() {}
-- sub/deep/.ignore --
*.md
-- sub/deep/x.md --
func Markdown() {}
-- sub/deep/y.go --
func Deep() {}
`

func TestGrepContent(t *testing.T) {
	ctx, _ := newTestSession(t, grepArchive)
	out := mustExec(t, ctx, "grep", `{"pattern":"func [A-Z]\\w*\\("}`)
	want := strings.Join([]string{
		"a.go:3:func Alpha() error { return nil }",
		"b/b.go:3:func Beta() {}",
		"sub/deep/y.go:1:func Deep() {}",
		"sub/drop.log.txt:1:func Dropped() {}",
		"sub/keep.log:1:func Kept() {}",
	}, "\n")
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if out := mustExec(t, ctx, "grep", `{"pattern":"nothing matches this"}`); !strings.HasPrefix(out, "No matches found. Not searched:") {
		t.Errorf("no match: %q", out)
	}
}

func TestGrepFlags(t *testing.T) {
	ctx, _ := newTestSession(t, grepArchive)
	cases := []struct {
		args string
		want string
	}{
		{`{"pattern":"alpha","case_insensitive":true}`, "a.go:3:func Alpha() error { return nil }\na.go:4:// TODO: alpha\nb/c.txt:1:alpha beta gamma\nb/c.txt:2:ALPHA BETA"},
		{`{"pattern":"Beta()","fixed_strings":true}`, "b/b.go:3:func Beta() {}"},
		{`{"pattern":"Beta()"}`, "b/b.go:3:func Beta() {}"},
		{`{"pattern":"Beta\\(\\) \\{\\}\\nfunc","multiline":true}`, "b/b.go:3:func Beta() {}\nb/b.go:4:func beta2() {}"}, // every line it spans, as rg prints it
		{`{"pattern":"gamma.ALPHA","multiline":true}`, "b/c.txt:1:alpha beta gamma\nb/c.txt:2:ALPHA BETA"},
		{`{"pattern":"func","path":"b"}`, "b/b.go:3:func Beta() {}\nb/b.go:4:func beta2() {}"},
		{`{"pattern":"func","path":"b/b.go","output_mode":"count"}`, "b/b.go:2"},
		{`{"pattern":"func","output_mode":"files_with_matches","path":"sub"}`, "sub/deep/y.go\nsub/drop.log.txt\nsub/keep.log"},
		{`{"pattern":"func","output_mode":"count","glob":"*.go"}`, "a.go:1\nb/b.go:2\nsub/deep/y.go:1"},
		{`{"pattern":"func","glob":"*.{txt,log}","output_mode":"files_with_matches"}`, "sub/drop.log.txt\nsub/keep.log"},
		{`{"pattern":"func","glob":"!sub/**","output_mode":"files_with_matches"}`, "a.go\nb/b.go"},
		{`{"pattern":"func","glob":"b/*.go","output_mode":"files_with_matches"}`, "b/b.go"},
		{`{"pattern":"func","type":"go","output_mode":"files_with_matches"}`, "a.go\nb/b.go\nsub/deep/y.go"},
		{`{"pattern":"func","type":"txt","output_mode":"files_with_matches"}`, "sub/drop.log.txt"},
		{`{"pattern":"Hidden","hidden":true}`, ".hidden/h.go:1:func Hidden() {}"},
		{`{"pattern":"Hidden"}`, "No matches found. Not searched: 1 hidden entry (hidden: true) and 4 ignored entries (include_ignored: true), such as .hidden/, app.log, build/, …."},
		{`{"pattern":"Logged|Generated|Skipped|Markdown","output_mode":"files_with_matches"}`, "No matches found. Not searched: 1 hidden entry (hidden: true) and 4 ignored entries (include_ignored: true), such as .hidden/, app.log, build/, …."},
		{`{"pattern":"Logged|Generated|Skipped|Markdown","output_mode":"files_with_matches","include_ignored":true}`, "app.log\nbuild/gen.go\nsub/deep/skip.go\nsub/deep/x.md"},
		{`{"pattern":"Generated","path":"build/gen.go"}`, "build/gen.go:1:func Generated() {}"},
		{`{"pattern":"Generated","path":"build"}`, "build/gen.go:1:func Generated() {}"},
		{`{"pattern":"Hidden","path":".hidden"}`, ".hidden/h.go:1:func Hidden() {}"},
		{`{"pattern":"return nil","context":1}`, "a.go-2-\na.go:3:func Alpha() error { return nil }\na.go-4-// TODO: alpha"},
	}
	// Each query on a fresh session (one walk, like the command line) and on
	// one long session (its resident file table).
	for _, c := range cases {
		fresh, _ := newTestSession(t, grepArchive)
		if got := mustExec(t, fresh, "grep", c.args); got != c.want {
			t.Errorf("%s (fresh session):\ngot\n%s\nwant\n%s", c.args, got, c.want)
		}
		if got := mustExec(t, ctx, "grep", c.args); got != c.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", c.args, got, c.want)
		}
	}
}

func TestGrepContextGroups(t *testing.T) {
	ctx, _ := newTestSession(t, `
-- f.txt --
1
x 2
3
4
5
6
x 7
8
x 9
10
11
12
-- g.txt --
x 1
2
`)
	got := mustExec(t, ctx, "grep", `{"pattern":"x","context":1}`)
	want := `f.txt-1-1
f.txt:2:x 2
f.txt-3-3
--
f.txt-6-6
f.txt:7:x 7
f.txt-8-8
f.txt:9:x 9
f.txt-10-10
--
g.txt:1:x 1
g.txt-2-2`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// The last shown match keeps its after-context; the next one's
	// before-context is not shown.
	got = mustExec(t, ctx, "grep", `{"pattern":"x","context":1,"max_results":2,"path":"f.txt"}`)
	want = `f.txt-1-1
f.txt:2:x 2
f.txt-3-3
--
f.txt-6-6
f.txt:7:x 7
f.txt-8-8
[2 of 3 matches in 1 file shown (max_results 2); next: the same call with offset: 2, or narrow with path/glob/type]`
	if got != want {
		t.Errorf("max_results with context: got\n%s\nwant\n%s", got, want)
	}
}

func TestGrepBuffers(t *testing.T) {
	ctx, s := newTestSession(t, grepArchive)
	root := s.WS.Root()
	s.WS.Open(filepath.Join(root, "a.go"), 1, "package a\n\nfunc Unsaved() {}\n")
	s.WS.Open(filepath.Join(root, "b", "new.go"), 1, "package b\nfunc NotOnDisk() {}\n")
	s.WS.Open(filepath.Join(root, "build", "buf.go"), 1, "func IgnoredBuffer() {}\n")
	s.WS.Open(filepath.Join(root, ".hidden", "buf.go"), 1, "func HiddenBuffer() {}\n")
	for range 3 { // the first search walks; later ones use the session's file table
		got := mustExec(t, ctx, "grep", `{"pattern":"func (Unsaved|Alpha|NotOnDisk|IgnoredBuffer|HiddenBuffer)"}`)
		want := "a.go:3:func Unsaved() {}\nb/new.go:2:func NotOnDisk() {}"
		if got != want {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
	}
	got := mustExec(t, ctx, "grep", `{"pattern":"Buffer","hidden":true,"include_ignored":true,"output_mode":"files_with_matches"}`)
	if want := ".hidden/buf.go\nbuild/buf.go"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = mustExec(t, ctx, "grep", `{"pattern":"NotOnDisk","path":"b/new.go"}`)
	if want := "b/new.go:2:func NotOnDisk() {}"; got != want {
		t.Errorf("buffer as path: got %q", got)
	}
	s.WS.Close(filepath.Join(root, "a.go"))
	got = mustExec(t, ctx, "grep", `{"pattern":"func (Unsaved|Alpha)"}`)
	if want := "a.go:3:func Alpha() error { return nil }"; got != want {
		t.Errorf("after close: got %q", got)
	}
}

// TestGrepTableFollowsDisk: searches after the first use the session's
// resident file table; files created, changed and removed on disk behind
// its back are still seen.
func TestGrepTableFollowsDisk(t *testing.T) {
	ctx, s := newTestSession(t, grepArchive)
	q := `{"pattern":"Marker\\d"}`
	for i := range 3 {
		if got := mustExec(t, ctx, "grep", q); !strings.HasPrefix(got, "No matches found.") {
			t.Fatalf("search %d: %q", i, got)
		}
	}
	writeWS(t, s, "b/b.go", "package b\n\nfunc Marker1() {}\n")
	writeWS(t, s, "newdir/n.go", "// Marker2\n")
	if got, want := mustExec(t, ctx, "grep", q), "b/b.go:3:func Marker1() {}\nnewdir/n.go:1:// Marker2"; got != want {
		t.Fatalf("after writes: got\n%s\nwant\n%s", got, want)
	}
	writeWS(t, s, "b/b.go", "package b\n\nfunc Marker3() {}\n") // same size
	if err := os.Remove(filepath.Join(s.WS.Root(), "newdir", "n.go")); err != nil {
		t.Fatal(err)
	}
	if got, want := mustExec(t, ctx, "grep", q), "b/b.go:3:func Marker3() {}"; got != want {
		t.Fatalf("after rewrite: got\n%s\nwant\n%s", got, want)
	}
	writeWS(t, s, ".gitignore", "*.log\nbuild/\nb/\n")
	if got := mustExec(t, ctx, "grep", q); !strings.HasPrefix(got, "No matches found.") || !strings.Contains(got, "b/,") {
		t.Fatalf("after ignoring b/: %q", got)
	}
}

func TestGrepBinarySkipped(t *testing.T) {
	ctx, s := newTestSession(t, "-- text.txt --\nneedle\n")
	writeWS(t, s, "bin.dat", "needle\n\x00\x01\x02")
	writeWS(t, s, "late.dat", "needle\n"+strings.Repeat("x", 100000)+"\x00")
	if got, want := mustExec(t, ctx, "grep", `{"pattern":"needle"}`), "text.txt:1:needle"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestGrepErrors(t *testing.T) {
	ctx, _ := newTestSession(t, grepArchive)
	wantErr(t, ctx, "grep", `{"pattern":"func ("}`, "missing closing )", "fixed_strings")
	wantErr(t, ctx, "grep", `{"pattern":"a\\nb"}`, "multiline")
	wantErr(t, ctx, "grep", `{"pattern":"x","type":"golnag"}`, "unknown file type", "closest known types are golang, go")
	wantErr(t, ctx, "grep", `{"pattern":"x","glob":"[a-"}`, "not a valid pattern")
	wantErr(t, ctx, "grep", `{"pattern":"x","path":"missing"}`, "does not exist")
	wantErr(t, ctx, "grep", `{"pattern":"x","path":"../outside"}`)
	wantErr(t, ctx, "grep", `{"pattern":""}`, "pattern is empty")
	wantErr(t, ctx, "grep", `{"pattern":"x","output_mode":"lines"}`, "output_mode")
}

func TestGrepCancelled(t *testing.T) {
	ctx, _ := newTestSession(t, grepArchive)
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	wantErr(t, ctx, "grep", `{"pattern":"func"}`, "cancelled")
}

func TestGrepTruncation(t *testing.T) {
	ctx, s := newTestSession(t, "")
	for i := range 5 {
		writeWS(t, s, fmt.Sprintf("f%d.txt", i), strings.Repeat("hit\n", 3))
	}
	got := mustExec(t, ctx, "grep", `{"pattern":"hit","max_results":4}`)
	want := "f0.txt:1:hit\nf0.txt:2:hit\nf0.txt:3:hit\nf1.txt:1:hit\n[4 of 15 matches in 5 files shown (max_results 4); next: the same call with offset: 4, or narrow with path/glob/type]"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = mustExec(t, ctx, "grep", `{"pattern":"hit","max_results":2,"output_mode":"files_with_matches"}`)
	if want := "f0.txt\nf1.txt\n[2 of 5 files shown (max_results 2); next: the same call with offset: 2, or narrow with path/glob/type]"; got != want {
		t.Errorf("files: got\n%s\nwant\n%s", got, want)
	}
	long := strings.Repeat("a", 1000) + "NEEDLE" + strings.Repeat("b", 1000)
	writeWS(t, s, "long.txt", long+"\n")
	got = mustExec(t, ctx, "grep", `{"pattern":"NEEDLE"}`)
	line, note, _ := strings.Cut(got, "\n")
	if !strings.HasPrefix(line, "long.txt:1:…a") || !strings.Contains(line, "NEEDLE") || !strings.HasSuffix(line, "b…") || utf8.RuneCountInString(line) > 520 {
		t.Errorf("cut line: %q", line)
	}
	if note != "[1 line longer than 500 characters cut around the match]" {
		t.Errorf("note: %q", note)
	}
}

// TestGrepPagesPastByteLimit: a result cut by the 64 KiB limit, not by
// max_results, says so and names the offset that shows the rest; following
// it shows every match once, in every output mode.
func TestGrepPagesPastByteLimit(t *testing.T) {
	ctx, s := newTestSession(t, "")
	line := strings.Repeat("x", 90) + " hit\n"
	for i := range 300 {
		writeWS(t, s, fmt.Sprintf("dir%03d/%s.txt", i, strings.Repeat("long-name-", 22)), strings.Repeat(line, 10))
	}
	for _, mode := range []string{"content", "files_with_matches", "count"} {
		seen := map[string]bool{}
		offset := 0
		for page := 0; ; page++ {
			out := mustExec(t, ctx, "grep", map[string]any{"pattern": "hit", "output_mode": mode, "max_results": 10000000, "offset": offset})
			if len(out) > registry.MaxResultBytes {
				t.Fatalf("%s: page of %d bytes", mode, len(out))
			}
			lines := strings.Split(out, "\n")
			note := lines[len(lines)-1]
			for _, l := range lines[:len(lines)-1] {
				if seen[l] {
					t.Fatalf("%s: %q shown twice", mode, l)
				}
				seen[l] = true
			}
			if strings.HasSuffix(note, "the last ones]") || !strings.HasPrefix(note, "[") {
				if !strings.HasPrefix(note, "[") {
					seen[note] = true
				}
				break
			}
			if !strings.Contains(note, "(the result size limit)") || strings.Contains(note, "max_results") {
				t.Fatalf("%s: note %q", mode, note)
			}
			i := strings.Index(note, "offset: ")
			if _, err := fmt.Sscanf(note[i:], "offset: %d", &offset); err != nil || page > 100 {
				t.Fatalf("%s: note %q", mode, note)
			}
		}
		want := 3000
		if mode != "content" {
			want = 300
		}
		if len(seen) != want {
			t.Errorf("%s: %d lines over all pages, want %d", mode, len(seen), want)
		}
	}
}

// TestGrepTableCache is TestGrepTableFollowsDisk with old timestamps, so
// that the table keeps file contents and trusts directory mtimes.
func TestGrepTableCache(t *testing.T) {
	ctx, s := newTestSession(t, grepArchive)
	root := s.WS.Root()
	age := func() {
		old := time.Now().Add(-time.Hour)
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				os.Chtimes(p, old, old)
			}
			return nil
		})
	}
	age()
	q := `{"pattern":"func Beta|Marker"}`
	for range 3 {
		if got, want := mustExec(t, ctx, "grep", q), "b/b.go:3:func Beta() {}"; got != want {
			t.Fatalf("got %q want %q", got, want)
		}
	}
	tb := textsearch.SessionTable(s, workspace.WalkOptions{})
	if tb == nil || tb.CachedBytes() == 0 {
		t.Fatal("the file table cached nothing")
	}
	writeWS(t, s, "b/b.go", "package b\n\nfunc Marker() {}\n")
	writeWS(t, s, "b/new.go", "// Marker\n")
	if got, want := mustExec(t, ctx, "grep", q), "b/b.go:3:func Marker() {}\nb/new.go:1:// Marker"; got != want {
		t.Fatalf("after writes: got\n%s\nwant\n%s", got, want)
	}
	age()
	mustExec(t, ctx, "grep", q)
	writeWS(t, s, "b/.gitignore", "new.go\n")
	if got, want := mustExec(t, ctx, "grep", q), "b/b.go:3:func Marker() {}"; got != want {
		t.Fatalf("after a new ignore file: got\n%s\nwant\n%s", got, want)
	}
}

// TestGrepSecretsDenied: files on the workspace's secrets deny list are
// never searched, whatever the flags.
func TestGrepSecretsDenied(t *testing.T) {
	ctx, _ := newTestSession(t, "-- a.txt --\ntoken\n-- key.pem --\ntoken\n-- .env --\ntoken\n")
	for range 2 {
		got := mustExec(t, ctx, "grep", `{"pattern":"token","hidden":true,"include_ignored":true}`)
		if got != "a.txt:1:token" {
			t.Errorf("got %q", got)
		}
	}
	wantErr(t, ctx, "grep", `{"pattern":"token","path":"key.pem"}`, "does not exist")
}
