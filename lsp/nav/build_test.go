package nav_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/codeindex"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/lsp/nav"
)

type progressValue struct {
	Kind       string `json:"kind"`
	Title      string `json:"title"`
	Message    string `json:"message"`
	Percentage *int   `json:"percentage"`
}

type progressParams struct {
	Token json.RawMessage `json:"token"`
	Value progressValue   `json:"value"`
}

// startServer starts a navigation server with opts on a folder holding
// files, initialized with caps, and waits for the index build.
func startServer(t *testing.T, opts lsp.Options, caps map[string]any, files map[string]string) (*lsptest.Editor, string) {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts.Extensions = []lsp.Extension{&nav.Extension{Options: codeindex.Options{CacheDir: t.TempDir()}}}
	e := lsptest.New(t, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
		return lsp.New(opts).Run(ctx, r, w, c)
	})
	e.Initialize(caps, nil, root)
	e.WaitFor("the index", func() bool {
		var st codeindex.Status
		if err := e.ExecuteCommand(nav.CmdIndexStatus, map[string]any{}, &st); err != nil {
			t.Fatal(err)
		}
		return st.State == codeindex.StateReady
	})
	return e, root
}

func progressOf(e *lsptest.Editor) []progressParams {
	var out []progressParams
	for _, m := range e.Received("$/progress") {
		var p progressParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			panic(err)
		}
		out = append(out, p)
	}
	return out
}

// The index build is reported as server-created work-done progress: a
// token is created, then begin, reports with growing percentages, and an
// end that says what was indexed. (The build holds at its first report
// until the token is asked for, so that it cannot end before the progress
// delay however fast the machine.)
func TestBuildProgress(t *testing.T) {
	root := t.TempDir()
	for i := range 600 {
		p := filepath.Join(root, fmt.Sprintf("p%d", i%7), fmt.Sprintf("f%d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package p\n\nfunc F%d() {}\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	release := make(chan struct{})
	hold := func(done, found int, final bool) {
		if !final {
			<-release
		}
	}
	x := &nav.Extension{Options: codeindex.Options{CacheDir: t.TempDir(), Progress: hold}}
	e := lsptest.New(t, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
		return lsp.New(lsp.Options{ProgressDelay: 1, Extensions: []lsp.Extension{x}}).Run(ctx, r, w, c)
	})
	e.Initialize(lsptest.VSCodeCapabilities(), nil, root)
	e.WaitFor("the progress token", func() bool { return len(e.Received("window/workDoneProgress/create")) > 0 })
	close(release)
	e.WaitFor("the end of the build's progress", func() bool {
		ps := progressOf(e)
		return len(ps) > 0 && ps[len(ps)-1].Value.Kind == "end"
	})
	if n := len(e.Received("window/workDoneProgress/create")); n != 1 {
		t.Fatalf("%d progress tokens created, want 1", n)
	}
	ps := progressOf(e)
	if ps[0].Value.Kind != "begin" || !strings.Contains(ps[0].Value.Title, "indexing") {
		t.Fatalf("first progress = %+v", ps[0])
	}
	last, begins, ends := -1, 0, 0
	for _, p := range ps {
		if string(p.Token) != string(ps[0].Token) {
			t.Fatalf("progress with tokens %s and %s", ps[0].Token, p.Token)
		}
		switch p.Value.Kind {
		case "begin":
			begins++
		case "end":
			ends++
		}
		if p.Value.Percentage != nil {
			if *p.Value.Percentage < last || *p.Value.Percentage > 100 {
				t.Errorf("percentage %d after %d", *p.Value.Percentage, last)
			}
			last = *p.Value.Percentage
		}
	}
	t.Logf("%d progress messages, last percentage %d, end %q", len(ps), last, ps[len(ps)-1].Value.Message)
	if begins != 1 || ends != 1 {
		t.Errorf("progress = %+v", ps)
	}
	if last < 0 {
		t.Error("no report carried a percentage")
	}
	if end := ps[len(ps)-1].Value; end.Message != "600 files, 600 symbols" {
		t.Errorf("end message %q", end.Message)
	}
}

// A client that does not report progress gets none.
func TestBuildNoProgressWithoutCapability(t *testing.T) {
	caps := lsptest.VSCodeCapabilities()
	delete(caps, "window")
	e, _ := startServer(t, lsp.Options{ProgressDelay: 1}, caps, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	e.Sync()
	if n := len(e.Received("window/workDoneProgress/create")) + len(e.Received("$/progress")); n != 0 {
		t.Errorf("%d progress messages to a client without workDoneProgress", n)
	}
}

// A client that cannot watch files for the server (no dynamic registration
// of workspace/didChangeWatchedFiles) still gets an index that follows the
// disk: the server watches it itself.
func TestIndexFollowsDiskWithoutClientWatching(t *testing.T) {
	caps := lsptest.VSCodeCapabilities()
	caps["workspace"].(map[string]any)["didChangeWatchedFiles"] = map[string]any{"dynamicRegistration": false}
	e, root := startServer(t, lsp.Options{}, caps, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	if n := len(e.Received("client/registerCapability")); n != 0 {
		t.Fatalf("registered %d capabilities with a client that cannot", n)
	}
	e.WaitFor("the index watching the disk", func() bool {
		var st codeindex.Status
		if err := e.ExecuteCommand(nav.CmdIndexStatus, map[string]any{}, &st); err != nil {
			t.Fatal(err)
		}
		return st.Watching
	})
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "sub", "b.go"), []byte("package sub\n\nfunc WrittenOutside() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.WaitFor("the file written on disk in the index", func() bool {
		var syms []struct {
			Name string `json:"name"`
		}
		if err := e.Call("workspace/symbol", map[string]string{"query": "WrittenOutside"}, &syms); err != nil {
			t.Fatal(err)
		}
		return len(syms) == 1 && syms[0].Name == "WrittenOutside"
	})
	os.Remove(filepath.Join(root, "a.go"))
	e.WaitFor("the deleted file gone from the index", func() bool {
		var syms []struct {
			Name string `json:"name"`
		}
		if err := e.Call("workspace/symbol", map[string]string{"query": "A"}, &syms); err != nil {
			t.Fatal(err)
		}
		for _, s := range syms {
			if s.Name == "A" {
				return false
			}
		}
		return true
	})
}
