package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLs(t *testing.T) {
	ctx, s := newTestSession(t, testdataArchive(t, "files.txtar"))
	os.Symlink("util/strings.go", filepath.Join(s.WS.Root(), "link.go"))
	out := mustExec(t, ctx, "ls", `{}`)
	want := `./
  .github/
    workflows/ (1 entry)
  .gitignore
  docs/
    readme.md
  link.go -> util/strings.go
  main.go
  util/
    deep/ (1 entry)
    dup.go
    strings.go`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	out = mustExec(t, ctx, "ls", `{"path":"util","depth":1}`)
	if want := "util/\n  deep/ (1 entry)\n  dup.go\n  strings.go"; out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	out = mustExec(t, ctx, "ls", `{"path":"util/","depth":5}`)
	if want := "util/\n  deep/\n    deeper/\n      leaf.go\n  dup.go\n  strings.go"; out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	out = mustExec(t, ctx, "ls", `{"depth":1,"include_ignored":true}`)
	wantOut(t, out, "\n  build/ (1 entry)\n", "\n  debug.log\n")
	wantErr(t, ctx, "ls", `{"path":"main.go"}`, "main.go is a file", "read_file")
	wantErr(t, ctx, "ls", `{"path":"nope"}`, "nope does not exist")
	os.MkdirAll(filepath.Join(s.WS.Root(), "empty"), 0o755)
	wantOut(t, mustExec(t, ctx, "ls", `{"depth":1}`), "\n  empty/ (empty)\n")
	wantOut(t, mustExec(t, ctx, "ls", `{"depth":3}`), "\n  empty/ (empty)\n")
	if out := mustExec(t, ctx, "ls", `{"path":"empty"}`); out != "empty/ (empty)" {
		t.Errorf("empty dir: %q", out)
	}
}

func TestLsCaps(t *testing.T) {
	ctx, s := newTestSession(t, "")
	for i := range maxLsPerDir + 5 {
		writeWS(t, s, fmt.Sprintf("many/f%03d", i), "")
	}
	out := mustExec(t, ctx, "ls", `{}`)
	lines := strings.Split(out, "\n")
	if len(lines) != 2+maxLsPerDir+1 || lines[len(lines)-1] != "    … 5 more entries in many/ (ls it to see them)" {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	// The listed directory shows every entry.
	if out := mustExec(t, ctx, "ls", `{"path":"many"}`); strings.Count(out, "\n") != maxLsPerDir+5 || strings.Contains(out, "more entries") {
		t.Errorf("ls many:\n%s", out)
	}
	for i := range 12 {
		for j := range maxLsPerDir {
			writeWS(t, s, fmt.Sprintf("d%02d/f%03d", i, j), "")
		}
	}
	out = mustExec(t, ctx, "ls", `{}`)
	lines = strings.Split(out, "\n")
	total := 1 + 13 + maxLsPerDir + 1 + 12*maxLsPerDir
	if len(lines) != defaultLsLines+1 || lines[defaultLsLines] != fmt.Sprintf("[1000 of %d lines shown (limit 1000); next: the same call with offset: 1000]", total) {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	rest := mustExec(t, ctx, "ls", `{"offset":1000}`)
	if !strings.HasSuffix(rest, fmt.Sprintf("\n[1001-%d of %d lines shown: the last ones]", total, total)) || strings.Count(rest, "\n") != total-1000 {
		t.Errorf("second page ends %q", rest[max(0, len(rest)-100):])
	}
	if out := mustExec(t, ctx, "ls", `{"limit":3,"offset":1}`); out != fmt.Sprintf("  d00/\n    f000\n    f001\n[2-4 of %d lines shown (limit 3); next: the same call with offset: 4]", total) {
		t.Errorf("window: %q", out)
	}
}

func TestGlob(t *testing.T) {
	ctx, s := newTestSession(t, testdataArchive(t, "files.txtar"))
	root := s.WS.Root()
	// Newest first: give the files distinct times.
	base := time.Now().Add(-time.Hour)
	for i, f := range []string{"main.go", "util/strings.go", "util/dup.go", "util/deep/deeper/leaf.go"} {
		tm := base.Add(time.Duration(i) * time.Minute)
		os.Chtimes(filepath.Join(root, filepath.FromSlash(f)), tm, tm)
	}
	out := mustExec(t, ctx, "glob", `{"pattern":"**/*.go"}`)
	if want := "util/deep/deeper/leaf.go\nutil/dup.go\nutil/strings.go\nmain.go"; out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"*.go"}`); out != "main.go" {
		t.Errorf("*.go: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"*.go","path":"util"}`); out != "util/dup.go\nutil/strings.go" {
		t.Errorf("*.go in util: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"util/**/leaf.{go,txt}"}`); out != "util/deep/deeper/leaf.go" {
		t.Errorf("braces: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"./**/*.log"}`); out != "No files match ./**/*.log." {
		t.Errorf("ignored: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"**/*.log","include_ignored":true}`); out != "debug.log" {
		t.Errorf("include_ignored: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"**/*.yml"}`); !strings.HasPrefix(out, "No files match") {
		t.Errorf("hidden without asking: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":".github/**/*.yml"}`); out != ".github/workflows/ci.yml" {
		t.Errorf("hidden: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"**/.gitignore"}`); out != ".gitignore" {
		t.Errorf("hidden file: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"nowhere/**"}`); out != "No files match nowhere/** in nowhere/." {
		t.Errorf("missing dir: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"util/strings.go"}`); out != "util/strings.go" {
		t.Errorf("literal path: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"main.go"}`); out != "main.go" {
		t.Errorf("literal name: %q", out)
	}
	wantErr(t, ctx, "glob", `{"pattern":"*","path":"main.go"}`, "main.go is a file")
	wantErr(t, ctx, "glob", `{"pattern":"[a-"}`, "not a valid glob")
	wantErr(t, ctx, "glob", `{"pattern":"/etc/*"}`, "relative")
	wantErr(t, ctx, "glob", `{"pattern":"../*"}`, `".."`)
	wantErr(t, ctx, "glob", `{"pattern":""}`, "pattern is empty")
}

func TestGlobCap(t *testing.T) {
	ctx, s := newTestSession(t, "")
	for i := range defaultGlobLimit + 20 {
		writeWS(t, s, fmt.Sprintf("d/f%03d.txt", i), "")
	}
	out := mustExec(t, ctx, "glob", `{"pattern":"**/*.txt"}`)
	lines := strings.Split(out, "\n")
	if len(lines) != defaultGlobLimit+1 || lines[defaultGlobLimit] != "[100 of 120 paths shown (limit 100); next: the same call with offset: 100]" {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	out = mustExec(t, ctx, "glob", `{"pattern":"**/*.txt","offset":100}`)
	if !strings.HasPrefix(out, "d/f100.txt\n") || !strings.HasSuffix(out, "\nd/f119.txt\n[101-120 of 120 paths shown: the last ones]") {
		t.Errorf("second page: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"**/*.txt","limit":500}`); strings.Count(out, "\n") != 119 || strings.Contains(out, "[") {
		t.Errorf("limit 500: %d lines", strings.Count(out, "\n")+1)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"**/*.txt","offset":500}`); out != "[offset 500 is past the last of the 120 paths: pass a smaller offset]" {
		t.Errorf("past the end: %q", out)
	}
}

// TestGlobOrder: path order component by component (as rg --sort path),
// recently changed files first only when their times differ by more than a
// second from the rest, as after a clone they do not.
func TestGlobOrder(t *testing.T) {
	ctx, s := newTestSession(t, "")
	names := []string{"pip-23.2.1.dist-info/AUTHORS.txt", "pip/_vendor/x.txt", "pip/a.txt", "a.b.txt", "a/z.txt"}
	base := time.Now().Add(-time.Hour)
	for i, n := range names {
		writeWS(t, s, n, "")
		tm := base.Add(time.Duration(i) * 100 * time.Millisecond) // a clone: within a second of each other
		os.Chtimes(filepath.Join(s.WS.Root(), filepath.FromSlash(n)), tm, tm)
	}
	want := "a/z.txt\na.b.txt\npip/_vendor/x.txt\npip/a.txt\npip-23.2.1.dist-info/AUTHORS.txt"
	if out := mustExec(t, ctx, "glob", `{"pattern":"**/*.txt"}`); out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// One file edited a minute later comes first; the rest keep path order.
	tm := base.Add(time.Minute)
	os.Chtimes(filepath.Join(s.WS.Root(), "pip", "a.txt"), tm, tm)
	want = "pip/a.txt\na/z.txt\na.b.txt\npip/_vendor/x.txt\npip-23.2.1.dist-info/AUTHORS.txt"
	if out := mustExec(t, ctx, "glob", `{"pattern":"**/*.txt"}`); out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestGlobSymlinkedDir: a symlink to a directory is not listed as a file.
func TestGlobSymlinkedDir(t *testing.T) {
	ctx, s := newTestSession(t, "-- real/a.txt --\nx\n")
	root := s.WS.Root()
	if err := os.Symlink("real", filepath.Join(root, "linkdir")); err != nil {
		t.Skip(err)
	}
	os.Symlink(filepath.Join("real", "a.txt"), filepath.Join(root, "link.txt"))
	if out := mustExec(t, ctx, "glob", `{"pattern":"*"}`); out != "link.txt" {
		t.Errorf("glob *: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"**/*.txt"}`); out != "link.txt\nreal/a.txt" && out != "real/a.txt\nlink.txt" {
		t.Errorf("glob **/*.txt: %q", out)
	}
}
