package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/lsp/lsptest"
)

// TestMCPAttachToEditorSession runs the editor side (the fake editor
// driving the server the binary serves) and `agentls mcp --attach` in the
// same temp workspace: the attached agent reads the unsaved buffer, and its
// edit reaches the editor as workspace/applyEdit.
func TestMCPAttachToEditorSession(t *testing.T) {
	runtime, root, e := attachSetup(t)
	file := filepath.Join(root, "main.go")
	if err := os.WriteFile(file, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The user's approval settings hold for the attached agent too.
	settings := map[string]any{"approval": map[string]string{"write_file": "ask", "delete_file": "deny"}}
	e.Config = func(string, string) any { return settings }
	var questions []string
	var qmu sync.Mutex
	e.Ask = func(msg string, actions []string) string {
		qmu.Lock()
		defer qmu.Unlock()
		questions = append(questions, msg)
		return "Deny"
	}
	e.Initialize(lsptest.VSCodeCapabilities(), settings, root)
	e.Open(file, "package main\n\n// unsaved comment\nfunc main() {}\n")
	e.Sync()

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cs := attachAgent(t, ctx, e, runtime, root)
	text := func(res *sdk.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			b.WriteString(c.(*sdk.TextContent).Text)
		}
		return b.String()
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "main.go"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "unsaved comment") {
		t.Fatalf("read_file through attach does not see the buffer: %v %q", err, text(res))
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "edit_file", Arguments: map[string]any{
		"path": "main.go", "old_string": "// unsaved comment", "new_string": "// edited by the attached agent"}})
	if err != nil || res.IsError {
		t.Fatalf("edit_file through attach: %v %q", err, text(res))
	}
	if len(e.Received("workspace/applyEdit")) == 0 {
		t.Fatal("the edit did not reach the editor as workspace/applyEdit")
	}
	if got, _, _ := e.Text(file); !strings.Contains(got, "edited by the attached agent") {
		t.Fatalf("the editor's buffer: %q", got)
	}
	// The buffer was dirty: the agent never saves it; disk is unchanged.
	if data, _ := os.ReadFile(file); strings.Contains(string(data), "attached agent") {
		t.Fatal("a dirty buffer was saved to disk")
	}

	// write_file asks the user in the editor (who denies); delete_file is
	// denied by the settings without asking.
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "new.txt", "content": "x"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "the user denied write_file") {
		t.Fatalf("write_file through attach with approval ask/Deny: %v %q", err, text(res))
	}
	qmu.Lock()
	if len(questions) != 1 || !strings.Contains(questions[0], "write_file") || !strings.Contains(questions[0], "new.txt") {
		t.Errorf("questions asked in the editor: %q", questions)
	}
	qmu.Unlock()
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Fatal("a denied write_file wrote the file")
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "main.go"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "denied by the user's settings") {
		t.Fatalf("delete_file through attach with approval deny: %v %q", err, text(res))
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal("a denied delete_file deleted the file")
	}
}

// mcpClient starts agentls with args as an MCP server and connects to it;
// list changes it announces arrive on changed.
func mcpClient(t *testing.T, env []string, stderr io.Writer, args ...string) (*sdk.ClientSession, chan struct{}) {
	t.Helper()
	cmd := agentlsCmd(t, args...)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = stderr
	changed := make(chan struct{}, 16)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, changed
}

// lockedBuffer is a bytes.Buffer for a child's stderr read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestMCPAttachSurvivesEditor starts two agents before any editor —
// `agentls mcp --attach --fallback` and `agentls mcp --attach` — then an
// editor session on their folder that quits with a call in flight and
// comes back. Calls run standalone (--fallback) or get "no editor is
// running" while there is none, in the editor's buffers while there is
// one, and the call in flight gets "the editor closed".
func TestMCPAttachSurvivesEditor(t *testing.T) {
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	file := filepath.Join(root, "main.go")
	os.WriteFile(file, []byte("package main // on disk\n"), 0o644)
	// Inside the folder: the command may write nothing outside it.
	fifo := filepath.Join(root, "started.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	env := []string{"XDG_RUNTIME_DIR=" + runtime}
	var fallbackErr lockedBuffer
	withFallback, changed := mcpClient(t, env, &fallbackErr, "mcp", "--attach", "--fallback", "--dir", root)
	without, _ := mcpClient(t, env, io.Discard, "mcp", "--attach", "--dir", root)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	readMain := func(cs *sdk.ClientSession) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "main.go"}})
		if err != nil {
			t.Fatalf("read_file: %v", err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			b.WriteString(c.(*sdk.TextContent).Text)
		}
		return b.String(), res.IsError
	}
	expect := func(cs *sdk.ClientSession, want string, wantErr bool) {
		t.Helper()
		if got, isErr := readMain(cs); isErr != wantErr || !strings.Contains(got, want) {
			t.Fatalf("read_file: %v %q, want %v and %q", isErr, got, wantErr, want)
		}
	}
	// No editor yet.
	expect(withFallback, "on disk", false)
	expect(without, "no editor is running", true)

	editor := func(text string) *lsptest.Editor {
		e := lsptest.New(t, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
			return serveLSP(ctx, slog.New(slog.DiscardHandler), r, w, c)
		})
		settings := map[string]any{"tools": map[string]any{"disabled": []string{"web_fetch"}}}
		e.Config = func(string, string) any { return settings }
		e.Ask = func(string, []string) string { return "Allow" }
		e.Initialize(lsptest.VSCodeCapabilities(), settings, root)
		e.Open(file, text)
		e.Sync()
		e.WaitFor("the attach lock file", func() bool {
			m, _ := filepath.Glob(filepath.Join(runtime, "agentls", "agentls-*.json"))
			return len(m) == 1
		})
		return e
	}
	first := editor("package main // first editor's buffer\n")
	expect(withFallback, "first editor's buffer", false)
	expect(without, "first editor's buffer", false)
	<-changed // standalone had web_fetch; the editor disabled it

	// A call in flight when the editor quits: it has started in the editor
	// session once it writes to the FIFO.
	type answer struct {
		res *sdk.CallToolResult
		err error
	}
	inFlight := make(chan answer, 1)
	go func() {
		res, err := withFallback.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{
			"command": "echo started > " + fifo + "; sleep 60"}})
		inFlight <- answer{res, err}
	}()
	// O_RDWR: the open does not wait for a writer; the read waits for
	// the command's line.
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	started := make(chan struct{})
	go func() {
		bufio.NewReader(f).ReadString('\n')
		close(started)
	}()
	select {
	case <-started:
	case a := <-inFlight:
		t.Fatalf("the call ended before the editor quit: %v %+v", a.err, a.res)
	}
	first.Shutdown()
	a := <-inFlight
	if a.err != nil || !a.res.IsError || !strings.Contains(a.res.Content[0].(*sdk.TextContent).Text, "the editor closed while bash ran") {
		t.Fatalf("the call in flight: %v %+v", a.err, a.res)
	}
	expect(withFallback, "on disk", false)
	expect(without, "no editor is running", true)
	<-changed // back to the standalone tools

	editor("package main // second editor's buffer\n")
	expect(withFallback, "second editor's buffer", false)
	expect(without, "second editor's buffer", false)

	for _, want := range []string{"attached to the editor session", "ended; calls run standalone"} {
		if !strings.Contains(fallbackErr.String(), want) {
			t.Errorf("stderr of mcp --attach --fallback lacks %q: %q", want, fallbackErr.String())
		}
	}
}
