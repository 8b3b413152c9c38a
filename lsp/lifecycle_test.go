package lsp_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/internal/wire"
	"github.com/agentls/agentls/lsp/lsptest"
)

func TestLifecycle(t *testing.T) {
	s := start(t, lsp.Options{Version: "test"}, nil)
	err := s.ExecuteCommand("agentls.listTools", map[string]any{}, nil)
	if code(err) != wire.CodeServerNotInitialized {
		t.Fatalf("request before initialize: %v, want code %d", err, wire.CodeServerNotInitialized)
	}
	res := s.Initialize(nil, nil, s.root)
	var r struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
			TextDocumentSync struct {
				OpenClose bool `json:"openClose"`
				Change    int  `json:"change"`
			} `json:"textDocumentSync"`
			ExecuteCommandProvider struct {
				Commands []string `json:"commands"`
			} `json:"executeCommandProvider"`
			Workspace struct {
				WorkspaceFolders struct {
					Supported           bool `json:"supported"`
					ChangeNotifications bool `json:"changeNotifications"`
				} `json:"workspaceFolders"`
			} `json:"workspace"`
			Experimental map[string]any `json:"experimental"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	// The whole answer is PROTOCOL.md's (Capabilities), plus the test
	// extension's command and experimental field: every field is sent,
	// includeText and version included.
	var got, want any
	json.Unmarshal(res, &got)
	json.Unmarshal([]byte(`{"capabilities": {
		"positionEncoding": "utf-16",
		"textDocumentSync": {"openClose": true, "change": 2, "save": {"includeText": false}},
		"executeCommandProvider": {"commands": ["agentls.callTool", "agentls.callTools", "agentls.listTools", "test.echo"]},
		"workspace": {"workspaceFolders": {"supported": true, "changeNotifications": true}},
		"experimental": {"test": true}},
		"serverInfo": {"name": "agentls", "version": "test"}}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("initialize result = %s", res)
	}
	c := r.Capabilities
	if c.PositionEncoding != "utf-16" || !c.TextDocumentSync.OpenClose || c.TextDocumentSync.Change != 2 ||
		!c.Workspace.WorkspaceFolders.Supported || !c.Workspace.WorkspaceFolders.ChangeNotifications {
		t.Errorf("capabilities = %s", res)
	}
	for _, cmd := range []string{"agentls.callTool", "agentls.callTools", "agentls.listTools", "test.echo"} {
		if !slices.Contains(c.ExecuteCommandProvider.Commands, cmd) {
			t.Errorf("commands %v lack %s", c.ExecuteCommandProvider.Commands, cmd)
		}
	}
	if r.ServerInfo.Name != "agentls" || r.ServerInfo.Version != "test" || c.Experimental["test"] != true {
		t.Errorf("serverInfo/extension capabilities: %s", res)
	}
	if err := s.Call("initialize", map[string]any{"capabilities": map[string]any{}}, nil); code(err) != wire.CodeInvalidRequest {
		t.Errorf("second initialize: %v", err)
	}
	if err := s.Call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.ExecuteCommand("agentls.listTools", map[string]any{}, nil); code(err) != wire.CodeInvalidRequest {
		t.Errorf("request after shutdown: %v, want code %d", err, wire.CodeInvalidRequest)
	}
	if got := s.Exit(); got != 0 {
		t.Errorf("exit after shutdown = %d, want 0", got)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	s.Initialize(nil, nil, s.root)
	if got := s.Exit(); got != 1 {
		t.Errorf("exit without shutdown = %d, want 1", got)
	}
}

func TestPositionEncodingNegotiation(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	caps := lsptest.VSCodeCapabilities()
	caps["general"] = map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}}
	var r struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	json.Unmarshal(s.Initialize(caps, nil, s.root), &r)
	if r.Capabilities.PositionEncoding != "utf-8" {
		t.Fatalf("positionEncoding = %q, want utf-8", r.Capabilities.PositionEncoding)
	}
	// An edit in utf-8 columns after a multi-byte character.
	s.Open(s.path("a.txt"), "中文x\n")
	s.Edit(s.path("a.txt"), lsptest.TextEdit{Range: lsptest.Range{Start: lsptest.Position{Line: 0, Character: 6}, End: lsptest.Position{Line: 0, Character: 7}}, NewText: "y"})
	res := s.CallTool("read_file", map[string]any{"path": "a.txt"})
	mustContain(t, "read_file", res.Content, "中文y")
}

func TestProtocolErrors(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	s.Initialize(nil, nil, s.root)
	if err := s.Call("no/such/method", map[string]any{}, nil); code(err) != wire.CodeMethodNotFound {
		t.Errorf("unknown method: %v", err)
	}
	cases := []struct {
		name string
		args []any
	}{
		{"no argument", nil},
		{"argument not an object", []any{"read_file"}},
		{"no name", []any{map[string]any{"arguments": map[string]any{}}}},
		{"arguments not an object", []any{map[string]any{"name": "read_file", "arguments": []int{1}}}},
	}
	for _, c := range cases {
		err := s.Call("workspace/executeCommand", map[string]any{"command": "agentls.callTool", "arguments": c.args}, nil)
		if code(err) != wire.CodeInvalidParams {
			t.Errorf("%s: %v, want invalid params", c.name, err)
		}
	}
	if err := s.Call("workspace/executeCommand", map[string]any{"command": "nope", "arguments": []any{map[string]any{}}}, nil); code(err) != wire.CodeInvalidParams {
		t.Errorf("unknown command: %v", err)
	}
	if err := s.Call("workspace/executeCommand", "not params", nil); code(err) != wire.CodeInvalidParams {
		t.Errorf("bad params: %v", err)
	}
	// A panic answers with an internal error; the server stays up.
	if err := s.Call("test/panic", nil, nil); code(err) != wire.CodeInternalError {
		t.Errorf("panic: %v, want internal error", err)
	}
	// A body that is not JSON is answered with a parse error and the
	// connection goes on.
	s.SendRaw("{not json")
	if r := s.CallTool("zz_touch", map[string]any{}); r.IsError {
		t.Errorf("after a malformed message: %+v", r)
	}
	if got := s.Shutdown(); got != 0 {
		t.Errorf("exit = %d", got)
	}
}

func TestCancelByRawID(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	s.Initialize(nil, nil, s.root)
	for _, id := range []string{`7000`, `"req-7"`} {
		started, _ := block.reset()
		errc := make(chan error, 1)
		go func() {
			errc <- s.CallID(context.Background(), id, "workspace/executeCommand", map[string]any{
				"command": "agentls.callTool", "arguments": []any{map[string]any{"name": "zz_block", "arguments": map[string]any{}}},
			}, nil)
		}()
		<-started
		// Requests run concurrently: another call completes meanwhile.
		if r := s.CallTool("zz_touch", map[string]any{"n": 1}); r.IsError {
			t.Fatalf("concurrent call: %+v", r)
		}
		s.Notify("$/cancelRequest", map[string]any{"id": json.RawMessage(id)})
		if err := <-errc; code(err) != wire.CodeRequestCancelled {
			t.Errorf("id %s: cancelled call = %v, want code %d", id, err, wire.CodeRequestCancelled)
		}
	}
	// A cancel of an unknown id is ignored.
	s.Notify("$/cancelRequest", map[string]any{"id": 123456})
	if got := s.Shutdown(); got != 0 {
		t.Errorf("exit = %d", got)
	}
}

func TestShutdownCancelsRunningCalls(t *testing.T) {
	s := start(t, lsp.Options{ShutdownWait: 1}, nil)
	s.Initialize(nil, nil, s.root)
	started, _ := block.reset()
	resc := make(chan lsptest.Result, 1)
	go func() {
		var r lsptest.Result
		if err := s.ExecuteCommand("agentls.callTool", map[string]any{"name": "zz_block"}, &r); err != nil {
			r = lsptest.Result{IsError: true, Content: err.Error()}
		}
		resc <- r
	}()
	<-started
	if got := s.Shutdown(); got != 0 {
		t.Errorf("exit = %d", got)
	}
	if r := <-resc; !r.IsError {
		t.Errorf("the running call ended with %+v, want an error", r)
	}
}

func TestExitWhenTheClientProcessIsGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	s := start(t, lsp.Options{ParentCheck: time.Millisecond}, nil)
	// The server may exit before its answer is out: only the exit matters.
	s.Call("initialize", map[string]any{"processId": cmd.Process.Pid, "capabilities": map[string]any{}}, nil)
	if got := s.WaitExit(); got != 1 {
		t.Errorf("exit status = %d, want 1", got)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	s := start(t, lsp.Options{MaxConcurrent: 1}, nil)
	s.Initialize(nil, nil, s.root)
	started, release := block.reset()
	first := make(chan error, 1)
	go func() {
		first <- s.ExecuteCommand("agentls.callTool", map[string]any{"name": "zz_block"}, nil)
	}()
	<-started
	// The second request waits behind the limit; it can still be cancelled.
	second := s.Start("9001", "workspace/executeCommand", map[string]any{
		"command": "agentls.callTool", "arguments": []any{map[string]any{"name": "zz_touch"}},
	}, nil)
	s.Notify("$/cancelRequest", map[string]any{"id": 9001})
	if err := second(); code(err) != wire.CodeRequestCancelled {
		t.Errorf("queued request after cancel: %v", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("first request: %v", err)
	}
}
