package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// Points where grep follows rg 13's behaviour (checked by hand with
// ripgrep 13.0.0 on the same files), one test each, beside
// TestGrepMatchesRipgrep's comparison over GOROOT.

func TestGrepUTF8BOM(t *testing.T) {
	ctx, s := newTestSession(t, "")
	writeWS(t, s, "a.cs", "\uFEFFusing System;\nusing Linq;\n")
	got := mustExec(t, ctx, "grep", `{"pattern":"^using"}`)
	if got != "a.cs:1:using System;\na.cs:2:using Linq;" {
		t.Errorf("got %q", got)
	}
}

func TestGrepUTF16(t *testing.T) {
	ctx, s := newTestSession(t, "")
	for name, big := range map[string]bool{"le.txt": false, "be.txt": true} {
		u := utf16.Encode([]rune("\uFEFFfirst line\nsecond café 😀 line\n"))
		b := make([]byte, 0, 2*len(u))
		for _, c := range u {
			if big {
				b = append(b, byte(c>>8), byte(c))
			} else {
				b = append(b, byte(c), byte(c>>8))
			}
		}
		writeWS(t, s, name, string(b))
	}
	got := mustExec(t, ctx, "grep", `{"pattern":"café 😀"}`)
	if got != "be.txt:2:second café 😀 line\nle.txt:2:second café 😀 line" {
		t.Errorf("got %q", got)
	}
}

func TestGrepUnicodeClasses(t *testing.T) {
	ctx, _ := newTestSession(t, "-- u.txt --\ncafé\nnaïve\nprice ٣ rupees\nnbsp\u00a0here\nplain cafe\n")
	cases := []struct{ pattern, want string }{
		{`caf\w`, "u.txt:1:café\nu.txt:5:plain cafe"},
		{`na\b`, "No matches found."},            // ï is a word character
		{`\bna\w+\b`, "u.txt:2:naïve"},           // boundaries at both ends
		{`\bve\b`, "No matches found."},          // inside naïve: no boundary after ï
		{`price \d`, "u.txt:3:price ٣ rupees"},   // Arabic-Indic digit three
		{`nbsp\shere`, "u.txt:4:nbsp\u00a0here"}, // no-break space
		{`caf\W`, "No matches found."},
		{`[\w]+é`, "u.txt:1:café"},
	}
	for _, c := range cases {
		if got := mustExec(t, ctx, "grep", map[string]any{"pattern": c.pattern}); got != c.want {
			t.Errorf("%s: got %q, want %q", c.pattern, got, c.want)
		}
	}
}

func TestGrepMultilineSpannedLines(t *testing.T) {
	ctx, _ := newTestSession(t, "-- m.go --\nfunc a() {\n\treturn 1\n}\nfunc b() {\n}\n")
	got := mustExec(t, ctx, "grep", `{"pattern":"func a\\(\\) \\{\\n[^\\n]*\\n\\}","multiline":true}`)
	if got != "m.go:1:func a() {\nm.go:2:\treturn 1\nm.go:3:}" {
		t.Errorf("got %q", got)
	}
	got = mustExec(t, ctx, "grep", `{"pattern":"\\}\\nfunc","multiline":true,"output_mode":"count"}`)
	if got != "m.go:1" {
		t.Errorf("count: %q", got)
	}
}

func TestGrepExplicitBinary(t *testing.T) {
	ctx, s := newTestSession(t, "")
	writeWS(t, s, "bin.dat", "needle\n\x00\x01")
	got := mustExec(t, ctx, "grep", `{"pattern":"needle","path":"bin.dat"}`)
	if got != "bin.dat is a binary file (it has a NUL byte), not searched." {
		t.Errorf("got %q", got)
	}
	// The error says "binary file" once.
	msg := wantErr(t, ctx, "read_file", `{"path":"bin.dat"}`, "binary file")
	if strings.Count(msg, "binary") != 1 {
		t.Errorf("read_file: %q", msg)
	}
}

func TestGrepExplicitSymlink(t *testing.T) {
	ctx, s := newTestSession(t, "-- real/target.txt --\nneedle\n")
	if err := os.Symlink(filepath.Join("real", "target.txt"), filepath.Join(s.WS.Root(), "link.txt")); err != nil {
		t.Skip(err)
	}
	if got := mustExec(t, ctx, "grep", `{"pattern":"needle","path":"link.txt"}`); got != "link.txt:1:needle" {
		t.Errorf("got %q", got)
	}
	// A directory walk does not follow it, as rg does not.
	if got := mustExec(t, ctx, "grep", `{"pattern":"needle"}`); got != "real/target.txt:1:needle" {
		t.Errorf("walk: %q", got)
	}
}

func TestGrepNegatedDirGlob(t *testing.T) {
	ctx, _ := newTestSession(t, "-- sub/a.txt --\nhit\n-- subx/b.txt --\nhit\n-- c/sub/d.txt --\nhit\n")
	for range 2 { // the walk, then the session's table
		if got := mustExec(t, ctx, "grep", `{"pattern":"hit","glob":"!sub/"}`); got != "subx/b.txt:1:hit" {
			t.Errorf("got %q", got)
		}
	}
}

func TestGrepNoMatchSaysWhatWasSkipped(t *testing.T) {
	ctx, _ := newTestSession(t, grepArchive)
	for range 2 { // the walk, then the session's table
		got := mustExec(t, ctx, "grep", `{"pattern":"Logged|Generated|Hidden"}`)
		want := "No matches found. Not searched: 1 hidden entry (hidden: true) and 4 ignored entries (include_ignored: true), such as .hidden/, app.log, build/, …."
		if got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
	// Under a path without hidden or ignored entries, nothing more.
	if got := mustExec(t, ctx, "grep", `{"pattern":"nothing","path":"b"}`); got != "No matches found." {
		t.Errorf("in b: %q", got)
	}
	if got := mustExec(t, ctx, "grep", `{"pattern":"nothing","path":"sub"}`); got != "No matches found. Not searched: 2 ignored entries (include_ignored: true), such as sub/deep/skip.go, sub/deep/x.md." {
		t.Errorf("in sub: %q", got)
	}
}

func TestGrepUnknownType(t *testing.T) {
	ctx, _ := newTestSession(t, grepArchive)
	msg := wantErr(t, ctx, "grep", `{"pattern":"x","type":"pyton"}`, "unknown file type", "py")
	if strings.Count(msg, ",") != 2 {
		t.Errorf("want three suggestions: %q", msg)
	}
}

func TestGrepIgnoreFileReincludesHidden(t *testing.T) {
	// ripgrep's own .ignore has !/.github/: rg then searches .github.
	ctx, _ := newTestSession(t, "-- .ignore --\n!/.github/\n-- .github/workflows/ci.yml --\nneedle\n-- .other/x --\nneedle\n")
	for range 2 {
		if got := mustExec(t, ctx, "grep", `{"pattern":"needle"}`); got != ".github/workflows/ci.yml:1:needle" {
			t.Errorf("got %q", got)
		}
	}
}

func TestGrepGlobalGitignore(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "git", "ignore"), []byte("*.swp\n"), 0o644)
	ctx, _ := newTestSession(t, "-- a.txt --\nneedle\n-- a.txt.swp --\nneedle\n-- b.tmp --\nneedle\n")
	if got := mustExec(t, ctx, "grep", `{"pattern":"needle","output_mode":"files_with_matches"}`); got != "a.txt\nb.tmp" {
		t.Errorf("~/.config/git/ignore: got %q", got)
	}
	// core.excludesFile wins over the default file.
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/my-ignore\n"), 0o644)
	os.WriteFile(filepath.Join(home, "my-ignore"), []byte("*.tmp\n"), 0o644)
	ctx, _ = newTestSession(t, "-- a.txt --\nneedle\n-- a.txt.swp --\nneedle\n-- b.tmp --\nneedle\n")
	if got := mustExec(t, ctx, "grep", `{"pattern":"needle","output_mode":"files_with_matches"}`); got != "a.txt\na.txt.swp" {
		t.Errorf("core.excludesFile: got %q", got)
	}
}

func TestGrepNestedRepositoryOwnScope(t *testing.T) {
	ctx, s := newTestSession(t, "-- .gitignore --\n*.gen\n-- a.gen --\nneedle\n-- sub/b.gen --\nneedle\n-- sub/.gitignore --\n*.out\n-- sub/c.out --\nneedle\n")
	os.MkdirAll(filepath.Join(s.WS.Root(), "sub", ".git"), 0o755)
	if got := mustExec(t, ctx, "grep", `{"pattern":"needle"}`); got != "sub/b.gen:1:needle" {
		t.Errorf("got %q", got)
	}
}
