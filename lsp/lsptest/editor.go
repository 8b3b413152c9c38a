// Package lsptest is a fake editor for testing the agentls language server
// in process: it speaks LSP over a pipe, keeps its own documents, applies
// the server's workspace/applyEdit to them (refusing stale versions, as
// editors do) and reports the change back with didChange, saves documents
// for agentls/saveDocument, and answers approval prompts as a test
// scripts. It shares no code with the server but the framing.
package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/lsp/internal/wire"
)

// ServeFunc runs a server on one connection and returns its exit status.
type ServeFunc func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int

// Timeout bounds every wait of the fake editor, so that a broken server
// fails a test instead of hanging it.
var Timeout = 20 * time.Second

// Editor is the fake editor.
type Editor struct {
	t    testing.TB
	conn *wire.Conn
	exit chan int

	// Scripted behaviour; set before the calls that use it.

	// Ask answers window/showMessageRequest with an action title; "" is
	// a dismissal (null). It may block (the server must not). Default:
	// dismiss.
	Ask func(message string, actions []string) string
	// Config answers workspace/configuration for the section of a scope.
	// Default: null.
	Config func(scopeURI, section string) any
	// RefuseEdits makes workspace/applyEdit answer applied:false.
	RefuseEdits bool
	// ReplyBeforeChange answers applyEdit before sending the didChange
	// (editors may do either).
	ReplyBeforeChange bool
	// IgnoreEdits answers applied:true but sends no didChange.
	IgnoreEdits bool
	// Requests answers client requests the fake editor does not know
	// itself (agentls/diagnostics, agentls/languageRequest…), by method.
	// A handler runs on its own goroutine and may block. A *wire.Error it
	// returns is sent as is.
	Requests map[string]func(params json.RawMessage) (any, error)
	// HoldChanges answers applyEdit at once and sends the didChange of the
	// applied edit only when the channel is closed, as a lazy editor does
	// (eglot reports changes when Emacs is idle). Held changes keep their
	// order.
	HoldChanges <-chan struct{}
	// HoldAnswers delays the handling of applyEdit (and so its answer)
	// until the channel is closed.
	HoldAnswers <-chan struct{}
	// Misapply, when set, changes each edit of an applyEdit before the
	// editor applies it (an editor that counts columns its own way).
	Misapply func(TextEdit) TextEdit

	heldMu sync.Mutex // held in order while sending held changes
	held   []func()

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every received message
	docs     map[string]*doc
	utf8     bool
	received []*wire.Message // notifications and requests from the server
}

type doc struct {
	version int32
	text    string
}

// New starts serve on a pipe and returns the editor connected to it.
// Cleanup closes the connection and waits for the server to return.
func New(t testing.TB, serve ServeFunc) *Editor {
	t.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	e := &Editor{
		t:       t,
		exit:    make(chan int, 1),
		changed: make(chan struct{}),
		docs:    make(map[string]*doc),
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		code := serve(ctx, c2sR, s2cW, closers{c2sR, s2cW})
		s2cW.Close()
		e.exit <- code
	}()
	e.conn = wire.NewConn(s2cR, c2sW, closers{s2cR, c2sW})
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		e.conn.Run(e.handle)
	}()
	t.Cleanup(func() {
		e.conn.Close()
		cancel()
		<-runDone
		select { // the server must end once its connection is gone
		case <-served:
		case <-time.After(Timeout):
			t.Errorf("lsptest: the server did not return after the connection closed")
		}
	})
	return e
}

type closers []io.Closer

func (c closers) Close() error {
	for _, x := range c {
		x.Close()
	}
	return nil
}

// URI is the file URI of an absolute path.
func URI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func pathOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

func (e *Editor) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), Timeout)
}

// Call sends a request and decodes its result into result (may be nil).
func (e *Editor) Call(method string, params, result any) error {
	ctx, cancel := e.ctx()
	defer cancel()
	defer e.bump()
	return e.conn.Call(ctx, method, params, result)
}

// CallContext is Call with the caller's context (to cancel it).
func (e *Editor) CallContext(ctx context.Context, method string, params, result any) error {
	defer e.bump()
	return e.conn.Call(ctx, method, params, result)
}

// CallID is CallContext with a chosen id (raw JSON), so that a test can
// cancel the request with $/cancelRequest.
func (e *Editor) CallID(ctx context.Context, id string, method string, params, result any) error {
	defer e.bump()
	return e.conn.CallID(ctx, json.RawMessage(id), method, params, result)
}

// Start sends a request with a chosen id and returns at once; wait gives
// its outcome. Whatever the test sends after Start reaches the server
// after this request.
func (e *Editor) Start(id string, method string, params, result any) (wait func() error) {
	ctx, cancel := e.ctx()
	w := e.conn.Start(ctx, json.RawMessage(id), method, params, result)
	return func() error { defer cancel(); defer e.bump(); return w() }
}

// Notify sends a notification.
func (e *Editor) Notify(method string, params any) {
	e.t.Helper()
	if err := e.conn.Notify(method, params); err != nil {
		e.t.Fatalf("notify %s: %v", method, err)
	}
}

// SendRaw writes body as one framed message, as is (for malformed input).
func (e *Editor) SendRaw(body string) {
	e.t.Helper()
	if err := e.conn.WriteRaw([]byte(body)); err != nil {
		e.t.Fatalf("send: %v", err)
	}
}

// VSCodeCapabilities are the client capabilities of VS Code that matter to
// agentls, plus the agentls extension's experimental saveDocument.
func VSCodeCapabilities() map[string]any {
	return map[string]any{
		"general": map[string]any{"positionEncodings": []string{"utf-16"}},
		"workspace": map[string]any{
			"applyEdit": true,
			"workspaceEdit": map[string]any{
				"documentChanges":    true,
				"resourceOperations": []string{"create", "rename", "delete"},
			},
			"configuration":         true,
			"workspaceFolders":      true,
			"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true},
		},
		"window":       map[string]any{"workDoneProgress": true},
		"experimental": map[string]any{"agentls": map[string]any{"saveDocument": true}},
	}
}

// Initialize sends initialize (with the folders as workspaceFolders) and
// initialized, and returns the initialize result.
func (e *Editor) Initialize(caps map[string]any, initOptions any, folders ...string) json.RawMessage {
	e.t.Helper()
	if caps == nil {
		caps = VSCodeCapabilities()
	}
	var wf []map[string]string
	for _, f := range folders {
		wf = append(wf, map[string]string{"uri": URI(f), "name": filepath.Base(f)})
	}
	params := map[string]any{
		"processId":             os.Getpid(),
		"capabilities":          caps,
		"workspaceFolders":      wf,
		"initializationOptions": initOptions,
		"clientInfo":            map[string]string{"name": "lsptest"},
	}
	var res json.RawMessage
	if err := e.Call("initialize", params, &res); err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	var r struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	json.Unmarshal(res, &r)
	e.mu.Lock()
	e.utf8 = r.Capabilities.PositionEncoding == "utf-8"
	e.mu.Unlock()
	e.Notify("initialized", map[string]any{})
	return res
}

// Shutdown sends shutdown and exit and returns the server's exit status.
func (e *Editor) Shutdown() int {
	e.t.Helper()
	if err := e.Call("shutdown", nil, nil); err != nil {
		e.t.Fatalf("shutdown: %v", err)
	}
	return e.Exit()
}

// Exit sends exit and waits for the server to return.
func (e *Editor) Exit() int {
	e.t.Helper()
	e.conn.Notify("exit", nil)
	return e.WaitExit()
}

// WaitExit waits for the server to return and gives its exit status.
func (e *Editor) WaitExit() int {
	e.t.Helper()
	select {
	case code := <-e.exit:
		return code
	case <-time.After(Timeout):
		e.t.Fatal("the server did not exit")
		return -1
	}
}

// Open opens path with text at version 1.
func (e *Editor) Open(path, text string) {
	e.t.Helper()
	uri := URI(path)
	e.mu.Lock()
	e.docs[uri] = &doc{version: 1, text: text}
	e.mu.Unlock()
	e.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "plaintext", "version": 1, "text": text,
	}})
}

// Close closes path.
func (e *Editor) Close(path string) {
	uri := URI(path)
	e.mu.Lock()
	delete(e.docs, uri)
	e.mu.Unlock()
	e.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
}

// Edit applies edits to path's buffer as the user would (an incremental
// didChange), and returns the new version.
func (e *Editor) Edit(path string, edits ...TextEdit) int32 {
	e.t.Helper()
	uri := URI(path)
	e.mu.Lock()
	d, ok := e.docs[uri]
	if !ok {
		e.mu.Unlock()
		e.t.Fatalf("edit of %s, which is not open", path)
	}
	changes := make([]any, len(edits))
	for i, ed := range edits {
		d.text = ApplyEdit(d.text, ed, e.utf8)
		changes[i] = map[string]any{"range": ed.Range, "text": ed.NewText}
	}
	d.version++
	v := d.version
	e.mu.Unlock()
	e.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v},
		"contentChanges": changes,
	})
	return v
}

// Replace sends a full-text didChange.
func (e *Editor) Replace(path, text string) int32 {
	uri := URI(path)
	e.mu.Lock()
	d := e.docs[uri]
	d.text = text
	d.version++
	v := d.version
	e.mu.Unlock()
	e.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v},
		"contentChanges": []any{map[string]any{"text": text}},
	})
	return v
}

// Save writes path's buffer to disk and sends didSave.
func (e *Editor) Save(path string) {
	e.t.Helper()
	if err := e.save(URI(path)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *Editor) save(uri string) error {
	e.mu.Lock()
	d, ok := e.docs[uri]
	var text string
	if ok {
		text = d.text
	}
	e.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s is not open", uri)
	}
	if err := os.WriteFile(pathOf(uri), []byte(text), 0o644); err != nil {
		return err
	}
	return e.conn.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
}

// Text is the editor's buffer of path and its version; ok is false when
// it is not open.
func (e *Editor) Text(path string) (text string, version int32, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[URI(path)]
	if !ok {
		return "", 0, false
	}
	return d.text, d.version, true
}

// Received lists the messages of method the server sent (notifications
// and requests), oldest first.
func (e *Editor) Received(method string) []*wire.Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*wire.Message
	for _, m := range e.received {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// WaitFor waits until cond holds, re-checking it after every message the
// server sends (notifications, requests and responses: a cond that sends a
// request is re-checked when its answer arrives); it fails the test after
// Timeout.
func (e *Editor) WaitFor(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.NewTimer(Timeout)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		ch := e.changed
		e.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			e.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Sync waits until the server has handled every message sent before it: it
// sends a request the server does not know, whose error answer comes from
// the server's read loop after the earlier notifications were applied.
func (e *Editor) Sync() {
	e.t.Helper()
	err := e.Call("lsptest/sync", nil, nil)
	var we *wire.Error
	if !errors.As(err, &we) {
		e.t.Fatalf("sync: %v", err)
	}
}

// ExecuteCommand runs workspace/executeCommand with one argument object.
func (e *Editor) ExecuteCommand(command string, arg, result any) error {
	return e.Call("workspace/executeCommand", map[string]any{"command": command, "arguments": []any{arg}}, result)
}

// Result is a tool result.
type Result struct {
	Content string `json:"content"`
	IsError bool   `json:"isError"`
}

// CallTool runs agentls.callTool and fails the test on a protocol error.
func (e *Editor) CallTool(name string, args any) Result {
	e.t.Helper()
	var r Result
	if err := e.ExecuteCommand("agentls.callTool", map[string]any{"name": name, "arguments": args}, &r); err != nil {
		e.t.Fatalf("callTool %s: %v", name, err)
	}
	return r
}

// bump wakes WaitFor: a message arrived.
func (e *Editor) bump() {
	e.mu.Lock()
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// handle serves the server's requests and records everything. WaitFor
// looks again after every message: here, and when a call's answer came
// (a condition may poll the server).
func (e *Editor) handle(m *wire.Message) {
	defer e.bump()
	e.mu.Lock()
	e.received = append(e.received, m)
	e.mu.Unlock()
	if !m.IsRequest() {
		return
	}
	switch m.Method {
	case "workspace/applyEdit":
		if hold := e.HoldAnswers; hold != nil {
			go func() {
				select {
				case <-hold:
					e.applyEdit(m)
				case <-e.conn.Done():
				}
			}()
			return
		}
		e.applyEdit(m)
	case "agentls/saveDocument":
		var p struct {
			URI string `json:"uri"`
		}
		json.Unmarshal(m.Params, &p)
		err := e.save(p.URI)
		e.conn.Reply(m.ID, map[string]bool{"saved": err == nil}, nil)
	case "window/showMessageRequest":
		var p struct {
			Message string `json:"message"`
			Actions []struct {
				Title string `json:"title"`
			} `json:"actions"`
		}
		json.Unmarshal(m.Params, &p)
		var titles []string
		for _, a := range p.Actions {
			titles = append(titles, a.Title)
		}
		ask := e.Ask
		go func() { // an answer may take a while; the editor keeps reading
			answer := ""
			if ask != nil {
				answer = ask(p.Message, titles)
			}
			if answer == "" {
				e.conn.Reply(m.ID, nil, nil)
				return
			}
			e.conn.Reply(m.ID, map[string]string{"title": answer}, nil)
		}()
	case "workspace/configuration":
		var p struct {
			Items []struct {
				ScopeURI string `json:"scopeUri"`
				Section  string `json:"section"`
			} `json:"items"`
		}
		json.Unmarshal(m.Params, &p)
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			if e.Config != nil {
				out[i] = e.Config(it.ScopeURI, it.Section)
			}
		}
		e.conn.Reply(m.ID, out, nil)
	case "window/workDoneProgress/create", "client/registerCapability":
		e.conn.Reply(m.ID, nil, nil)
	default:
		if h, ok := e.Requests[m.Method]; ok {
			go func() {
				res, err := h(m.Params)
				if err != nil {
					var we *wire.Error
					if !errors.As(err, &we) {
						we = wire.Errorf(wire.CodeInternalError, "%v", err)
					}
					e.conn.Reply(m.ID, nil, we)
					return
				}
				e.conn.Reply(m.ID, res, nil)
			}()
			return
		}
		e.conn.Reply(m.ID, nil, wire.Errorf(wire.CodeMethodNotFound, "lsptest: %s not handled", m.Method))
	}
}

type workspaceEdit struct {
	Changes         map[string][]TextEdit `json:"changes"`
	DocumentChanges []json.RawMessage     `json:"documentChanges"`
}

// applyEdit applies a workspace edit the way an editor does: a
// TextDocumentEdit whose version is not the buffer's is refused, and every
// applied change is reported back with didChange.
func (e *Editor) applyEdit(m *wire.Message) {
	var p struct {
		Edit workspaceEdit `json:"edit"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		e.conn.Reply(m.ID, nil, wire.Errorf(wire.CodeInvalidParams, "%v", err))
		return
	}
	refuse := func(reason string) {
		e.conn.Reply(m.ID, map[string]any{"applied": false, "failureReason": reason}, nil)
	}
	if e.RefuseEdits {
		refuse("refused by the test")
		return
	}
	type change struct {
		uri   string
		edits []TextEdit
	}
	var changes []change
	var ops []map[string]any
	for _, raw := range p.Edit.DocumentChanges {
		var dc struct {
			Kind         string `json:"kind"`
			URI          string `json:"uri"`
			OldURI       string `json:"oldUri"`
			NewURI       string `json:"newUri"`
			TextDocument struct {
				URI     string `json:"uri"`
				Version *int32 `json:"version"`
			} `json:"textDocument"`
			Edits   []TextEdit `json:"edits"`
			Options struct {
				Overwrite bool `json:"overwrite"`
				Recursive bool `json:"recursive"`
			} `json:"options"`
		}
		json.Unmarshal(raw, &dc)
		if dc.Kind != "" {
			ops = append(ops, map[string]any{"kind": dc.Kind, "uri": dc.URI, "old": dc.OldURI, "new": dc.NewURI, "recursive": dc.Options.Recursive})
			continue
		}
		e.mu.Lock()
		d, ok := e.docs[dc.TextDocument.URI]
		stale := !ok || dc.TextDocument.Version != nil && *dc.TextDocument.Version != d.version
		e.mu.Unlock()
		if stale {
			refuse("document version mismatch")
			return
		}
		changes = append(changes, change{dc.TextDocument.URI, dc.Edits})
	}
	uris := make([]string, 0, len(p.Edit.Changes))
	for uri := range p.Edit.Changes {
		uris = append(uris, uri)
	}
	slices.Sort(uris)
	for _, uri := range uris {
		changes = append(changes, change{uri, p.Edit.Changes[uri]})
	}
	var notes []func()
	for _, c := range changes {
		e.mu.Lock()
		d, ok := e.docs[c.uri]
		if !ok {
			e.mu.Unlock()
			refuse("document not open: " + c.uri)
			return
		}
		// Edits of one TextDocumentEdit refer to the original text: apply
		// them from the last to the first.
		edits := slices.Clone(c.edits)
		slices.SortStableFunc(edits, func(a, b TextEdit) int { return cmpPos(b.Range.Start, a.Range.Start) })
		var contentChanges []any
		for _, ed := range edits {
			if e.Misapply != nil {
				ed = e.Misapply(ed)
			}
			d.text = ApplyEdit(d.text, ed, e.utf8)
			contentChanges = append(contentChanges, map[string]any{"range": ed.Range, "text": ed.NewText})
		}
		d.version++
		v, uri := d.version, c.uri
		e.mu.Unlock()
		notes = append(notes, func() {
			e.conn.Notify("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": v},
				"contentChanges": contentChanges,
			})
		})
	}
	for _, op := range ops {
		if err := e.resourceOp(op); err != nil {
			refuse(err.Error())
			return
		}
	}
	if hold := e.HoldChanges; hold != nil {
		e.heldMu.Lock()
		e.held = append(e.held, notes...)
		e.heldMu.Unlock()
		e.conn.Reply(m.ID, map[string]any{"applied": true}, nil)
		go func() {
			select {
			case <-hold:
				e.flushHeld()
			case <-e.conn.Done():
			}
		}()
		return
	}
	if e.ReplyBeforeChange {
		e.conn.Reply(m.ID, map[string]any{"applied": true}, nil)
	}
	if !e.IgnoreEdits {
		for _, n := range notes {
			n()
		}
	}
	if !e.ReplyBeforeChange {
		e.conn.Reply(m.ID, map[string]any{"applied": true}, nil)
	}
}

// FlushHeld sends the held changes now, oldest first; when it returns,
// every change held so far is sent (a test calls it after closing
// HoldChanges, before Sync).
func (e *Editor) FlushHeld() { e.flushHeld() }

// flushHeld sends the held changes, oldest first.
func (e *Editor) flushHeld() {
	e.heldMu.Lock()
	defer e.heldMu.Unlock()
	for _, n := range e.held {
		n()
	}
	e.held = nil
}

func cmpPos(a, b Position) int {
	if a.Line != b.Line {
		return int(a.Line) - int(b.Line)
	}
	return int(a.Character) - int(b.Character)
}

// resourceOp carries out a rename or delete: the disk changes and the open
// buffers follow (closed and reopened under the new name, or closed).
func (e *Editor) resourceOp(op map[string]any) error {
	switch op["kind"] {
	case "rename":
		oldURI, newURI := op["old"].(string), op["new"].(string)
		if err := os.Rename(pathOf(oldURI), pathOf(newURI)); err != nil {
			return err
		}
		e.mu.Lock()
		var moved [][2]string
		for uri := range e.docs {
			if uri == oldURI || strings.HasPrefix(uri, oldURI+"/") {
				moved = append(moved, [2]string{uri, newURI + strings.TrimPrefix(uri, oldURI)})
			}
		}
		e.mu.Unlock()
		for _, mv := range moved {
			e.mu.Lock()
			d := e.docs[mv[0]]
			delete(e.docs, mv[0])
			e.docs[mv[1]] = &doc{version: 1, text: d.text}
			e.mu.Unlock()
			e.conn.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": mv[0]}})
			e.conn.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": mv[1], "languageId": "plaintext", "version": 1, "text": d.text}})
		}
	case "delete":
		uri := op["uri"].(string)
		var err error
		if op["recursive"].(bool) {
			err = os.RemoveAll(pathOf(uri))
		} else {
			err = os.Remove(pathOf(uri))
		}
		if err != nil {
			return err
		}
		e.mu.Lock()
		var closed []string
		for u := range e.docs {
			if u == uri || strings.HasPrefix(u, uri+"/") {
				closed = append(closed, u)
				delete(e.docs, u)
			}
		}
		e.mu.Unlock()
		for _, u := range closed {
			e.conn.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
		}
	default:
		return fmt.Errorf("resource operation %v not supported", op["kind"])
	}
	return nil
}
