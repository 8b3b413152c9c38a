package codeindex

import (
	"context"
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/workspace"
)

// mapOf builds an index of dir (read in place) and returns its map.
func mapOf(t *testing.T, dir string, lines int, focus ...string) string {
	t.Helper()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := New(ws, Options{NoCache: true, Workers: 2})
	t.Cleanup(func() { ix.Close() })
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	m, err := ix.MapFocus(context.Background(), "", lines, focus)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// wantInMap checks that each definition pattern is on a line of the map.
func wantInMap(t *testing.T, m string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile(`(?m)^  \d+: ` + p).MatchString(m) {
			t.Errorf("map lacks %q:\n%s", p, m)
		}
	}
	files := map[string]bool{}
	for _, l := range strings.Split(m, "\n") {
		if strings.HasSuffix(l, ":") && !strings.HasPrefix(l, " ") {
			if files[l] {
				t.Errorf("%s listed twice", l)
			}
			files[l] = true
		}
	}
}

// TestMapNetHTTP: the map of Go's net/http (the Go this test runs with; go
// 1.25 when written) names the package's central types in its default 60
// lines.
func TestMapNetHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes GOROOT/src/net/http")
	}
	dir := filepath.Join(build.Default.GOROOT, "src", "net", "http")
	if _, err := os.Stat(dir); err != nil {
		t.Skip(err)
	}
	m := mapOf(t, dir, 60)
	wantInMap(t, m, "type Server struct", "type Request struct", "type Handler interface", "type ResponseWriter interface", "type Client struct", "type Transport struct")
	// Test helpers and common method names stay out of the top.
	top := strings.Join(strings.Split(m, "\n")[:30], "\n")
	for _, bad := range []string{"_test.go:", "func (fakeLocker) Lock", ") Get() []byte"} {
		if strings.Contains(top, bad) {
			t.Errorf("top of the map has %q:\n%s", bad, top)
		}
	}
}

// TestMapPythonEmail: the map of Python's email package (Debian's
// python3.11 when written) leads with a class and names the central ones
// in its default 60 lines.
func TestMapPythonEmail(t *testing.T) {
	matches, _ := filepath.Glob("/usr/lib/python3*/email/message.py")
	if len(matches) == 0 {
		t.Skip("no Python standard library in /usr/lib")
	}
	m := mapOf(t, filepath.Dir(matches[0]), 60)
	wantInMap(t, m, "class Message", "class Header", "class Charset", "class Policy")
	if first := strings.SplitN(m, "\n", 3); len(first) < 2 || !strings.Contains(first[1], "class ") {
		t.Errorf("the map does not start with a class:\n%s", m)
	}
}

// TestMapFocus: the map leans toward the files the session works on.
func TestMapFocus(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Package big is used by many files, package small by one.
	write("big/big.go", "package big\n\ntype Widget struct{}\n")
	for _, n := range []string{"u1", "u2", "u3", "u4"} {
		write("big/"+n+".go", "package big\n\nfunc "+strings.ToUpper(n)+"() Widget { return Widget{} }\n")
	}
	write("small/gadget.go", "package small\n\ntype Gadget struct{}\n")
	write("small/use.go", "package small\n\nfunc Make() Gadget { return Gadget{} }\n")
	first := func(m string) string { return strings.SplitN(m, "\n", 2)[0] }
	if got := first(mapOf(t, dir, 4)); got != "big/big.go:" {
		t.Fatalf("without focus the map starts with %s", got)
	}
	if got := first(mapOf(t, dir, 4, "small/use.go")); got != "small/gadget.go:" {
		t.Errorf("with small/use.go in focus the map starts with %s", got)
	}
}
