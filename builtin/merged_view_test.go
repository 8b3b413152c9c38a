package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The file tools list and search one merged view of the editor's buffers
// over the disk: an open buffer whose file was never saved is a file like
// any other to glob, ls and grep (under the same ignore, hidden and deny
// rules), gone when the buffer closes; a directory that only such buffers
// make can be named as the path.

// TestGlobBuffers: glob lists unsaved buffers, newest first by their last
// change, in directories on disk and in ones only buffers make; ignored and
// denied buffers stay out.
func TestGlobBuffers(t *testing.T) {
	ctx, s := newTestSession(t, testdataArchive(t, "files.txtar"))
	root := s.WS.Root()
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{"main.go", "util/strings.go", "util/dup.go", "util/deep/deeper/leaf.go"} {
		os.Chtimes(filepath.Join(root, filepath.FromSlash(f)), old, old)
	}
	s.WS.Open(filepath.Join(root, "util", "new.go"), 1, "package util\n")
	s.WS.Open(filepath.Join(root, "newpkg", "n.go"), 1, "package newpkg\n")
	s.WS.Open(filepath.Join(root, "build", "gen.go"), 1, "package build\n")
	s.WS.Open(filepath.Join(root, ".env"), 1, "SECRET=1\n")
	out := mustExec(t, ctx, "glob", `{"pattern":"**/*.go"}`)
	lines := strings.Split(out, "\n")
	if len(lines) != 6 || !strings.Contains(strings.Join(lines[:2], " "), "util/new.go") || !strings.Contains(strings.Join(lines[:2], " "), "newpkg/n.go") {
		t.Errorf("unsaved buffers not listed first:\n%s", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"*.go","path":"newpkg"}`); out != "newpkg/n.go" {
		t.Errorf("glob in a directory only buffers make: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"newpkg/*.go"}`); out != "newpkg/n.go" {
		t.Errorf("glob with the directory in the pattern: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"build/*.go","include_ignored":true}`); out != "build/gen.go" {
		t.Errorf("ignored buffer with include_ignored: %q", out)
	}
	if out := mustExec(t, ctx, "glob", `{"pattern":"**/.env*"}`); !strings.HasPrefix(out, "No files match") {
		t.Errorf("denied buffer listed: %q", out)
	}
	s.WS.Close(filepath.Join(root, "newpkg", "n.go"))
	if out := mustExec(t, ctx, "glob", `{"pattern":"newpkg/*.go"}`); !strings.HasPrefix(out, "No files match") {
		t.Errorf("closed buffer still listed: %q", out)
	}
}

// TestLsBuffers: ls shows an unsaved buffer as such, and lists a directory
// that only buffers make.
func TestLsBuffers(t *testing.T) {
	ctx, s := newTestSession(t, testdataArchive(t, "files.txtar"))
	root := s.WS.Root()
	s.WS.Open(filepath.Join(root, "util", "new.go"), 1, "package util\n")
	s.WS.Open(filepath.Join(root, "main.go"), 2, "package main // edited\n")
	s.WS.Open(filepath.Join(root, "newpkg", "sub", "n.go"), 1, "package sub\n")
	s.WS.Open(filepath.Join(root, "secret", ".env"), 1, "SECRET=1\n")
	out := mustExec(t, ctx, "ls", `{"depth":3}`)
	wantOut(t, out,
		"\n  main.go\n", // on disk: listed once, as it is
		"\n  newpkg/\n    sub/\n      n.go (unsaved buffer, not on disk)\n",
		"\n    new.go (unsaved buffer, not on disk)\n")
	if strings.Contains(out, "secret") {
		t.Errorf("a denied buffer shows:\n%s", out)
	}
	if out := mustExec(t, ctx, "ls", `{"path":"newpkg"}`); out != "newpkg/\n  sub/\n    n.go (unsaved buffer, not on disk)" {
		t.Errorf("ls of a directory only buffers make: %q", out)
	}
	wantErr(t, ctx, "ls", `{"path":"secret"}`, "secret does not exist")
}

// TestGrepBuffersAfterTable: a buffer with no file on disk opened after the
// session's file table was built is searched by the next grep (no directory
// changed on disk to tell the table), and no longer once it is closed.
func TestGrepBuffersAfterTable(t *testing.T) {
	ctx, s := newTestSession(t, grepArchive)
	root := s.WS.Root()
	q := `{"pattern":"NewFunc"}`
	for range 3 {
		if got := mustExec(t, ctx, "grep", q); !strings.HasPrefix(got, "No matches found.") {
			t.Fatalf("before: %q", got)
		}
	}
	s.WS.Open(filepath.Join(root, "b", "new.go"), 1, "package b\nfunc NewFunc() {}\n")
	s.WS.Open(filepath.Join(root, "fresh", "f.go"), 1, "package fresh\nfunc NewFunc() {}\n")
	if got, want := mustExec(t, ctx, "grep", q), "b/new.go:2:func NewFunc() {}\nfresh/f.go:2:func NewFunc() {}"; got != want {
		t.Fatalf("after open: got\n%s\nwant\n%s", got, want)
	}
	if got, want := mustExec(t, ctx, "grep", `{"pattern":"NewFunc","path":"fresh"}`), "fresh/f.go:2:func NewFunc() {}"; got != want {
		t.Errorf("path naming a directory only buffers make: got %q", got)
	}
	s.WS.Change(filepath.Join(root, "fresh", "f.go"), 2, "package fresh\nfunc Changed() {}\n")
	if got, want := mustExec(t, ctx, "grep", q), "b/new.go:2:func NewFunc() {}"; got != want {
		t.Fatalf("after change: got\n%s\nwant\n%s", got, want)
	}
	s.WS.Close(filepath.Join(root, "b", "new.go"))
	s.WS.Close(filepath.Join(root, "fresh", "f.go"))
	if got := mustExec(t, ctx, "grep", q); !strings.HasPrefix(got, "No matches found.") {
		t.Fatalf("after close: %q", got)
	}
	wantErr(t, ctx, "grep", `{"pattern":"x","path":"fresh"}`, "fresh does not exist")
}
