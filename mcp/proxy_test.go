package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

// proxyClient runs p for a client over in-memory transports; list changes
// the client hears arrive on changed (may be nil).
func proxyClient(t *testing.T, p *mcp.Proxy, changed chan<- struct{}) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx, st); close(done) }()
	opts := &sdk.ClientOptions{}
	if changed != nil {
		opts.ToolListChangedHandler = func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} }
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); cancel(); <-done })
	return cs
}

// blockTool runs until its call is cancelled, telling started when it
// begins: a call in flight when the editor goes away.
type blockTool struct{ started chan struct{} }

func (blockTool) Name() string            { return "block" }
func (blockTool) Description() string     { return "Blocks until cancelled." }
func (blockTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (blockTool) ReadOnly() bool          { return true }
func (b blockTool) Execute(ctx context.Context, _ json.RawMessage) (string, error) {
	b.started <- struct{}{}
	<-ctx.Done()
	return "", ctx.Err()
}

// editorListen starts an attach listener for folder whose sessions run
// reg (an editor session, as far as the proxy can tell).
func editorListen(t *testing.T, folder string, reg *registry.Registry) *mcp.Listener {
	t.Helper()
	ws, err := workspace.New(folder)
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(string) (mcp.Attachment, error) {
		sess, err := workspace.NewSession(ws, workspace.DiskEditor{WS: ws}, workspace.NewReadTracker())
		return mcp.Attachment{Registry: reg, Session: sess}, err
	}
	l, err := mcp.Listen([]string{ws.Root()}, "test", resolve, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestProxySurvivesTheEditor: the editor session ends with a call in
// flight and comes back; the proxy answers throughout.
func TestProxySurvivesTheEditor(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	folder := t.TempDir()
	os.WriteFile(filepath.Join(folder, "f.txt"), []byte("on disk\n"), 0o644)
	started := make(chan struct{}, 1)
	editorReg := func() *registry.Registry {
		reg, err := registry.NewBuiltin("web_fetch")
		if err != nil {
			t.Fatal(err)
		}
		reg.Add(blockTool{started})
		return reg
	}
	standalone := func() (*mcp.Server, func(), error) {
		ws, err := workspace.New(folder)
		if err != nil {
			return nil, nil, err
		}
		sess, err := workspace.NewSession(ws, nil, workspace.NewReadTracker())
		if err != nil {
			return nil, nil, err
		}
		reg, _ := registry.NewBuiltin()
		return mcp.NewServer(reg, sess, "test", nil), func() { sess.Close() }, nil
	}
	var notes []string
	var mu sync.Mutex
	notef := func(format string, args ...any) {
		mu.Lock()
		notes = append(notes, format)
		mu.Unlock()
	}

	first := editorListen(t, folder, editorReg())
	changed := make(chan struct{}, 16)
	withFallback := proxyClient(t, &mcp.Proxy{Dir: folder, Fallback: true, Version: "test", Standalone: standalone, Notef: notef}, changed)
	without := proxyClient(t, &mcp.Proxy{Dir: folder, Version: "test"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	names := func(cs *sdk.ClientSession) string {
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, tl := range list.Tools {
			b.WriteString(tl.Name + " ")
		}
		return b.String()
	}
	if got := names(withFallback); !strings.Contains(got, "block ") || strings.Contains(got, "web_fetch") {
		t.Fatalf("attached tool list: %s", got)
	}

	// A call in flight when the editor session ends.
	type answer struct {
		res *sdk.CallToolResult
		err error
	}
	inFlight := make(chan answer, 4)
	go func() {
		res, err := withFallback.CallTool(ctx, &sdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
		inFlight <- answer{res, err}
	}()
	<-started
	first.Close()
	a := <-inFlight
	if a.err != nil || !a.res.IsError || !strings.Contains(text(a.res), "the editor closed while block ran") {
		t.Fatalf("the call in flight: %v %q", a.err, text(a.res))
	}

	// Later calls: standalone with --fallback, an error without.
	res, err := withFallback.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "f.txt"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "on disk") {
		t.Fatalf("standalone call after the editor ended: %v %q", err, text(res))
	}
	res, err = without.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "f.txt"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "no editor is running") {
		t.Fatalf("call without --fallback after the editor ended: %v %q", err, text(res))
	}
	// The standalone set differs (web_fetch, no block): the client heard.
	<-changed
	if got := names(withFallback); strings.Contains(got, "block ") || !strings.Contains(got, "web_fetch") {
		t.Fatalf("standalone tool list: %s", got)
	}

	// The editor comes back: calls attach again, on both proxies.
	editorListen(t, folder, editorReg())
	for _, cs := range []*sdk.ClientSession{withFallback, without} {
		go func() {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
			inFlight <- answer{res, err}
		}()
		<-started // it runs in the new editor session
	}
	if got := names(withFallback); !strings.Contains(got, "block ") {
		t.Fatalf("tool list after re-attaching: %s", got)
	}
	cancel()
	mu.Lock()
	defer mu.Unlock()
	if len(notes) < 3 {
		t.Errorf("attachments and detachments were not reported: %q", notes)
	}
}
