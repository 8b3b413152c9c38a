package lsp

// The editor's own language servers, for agents: the client requests
// agentls/diagnostics, agentls/languageRequest and agentls/editorState
// (docs/PROTOCOL.md), behind workspace.Languages. Positions go out in the
// connection's encoding and come back as 1-based lines and character
// columns, converted with the text the server has of each document (the
// buffer when open, else the file).

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/internal/wire"
	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

// The client requests of the editor's language servers.
const (
	reqDiagnostics     = "agentls/diagnostics"
	reqLanguageRequest = "agentls/languageRequest"
	reqEditorState     = "agentls/editorState"
)

// codeNoLanguageServer is the error code a client answers
// agentls/languageRequest with when no server in the editor handles the
// document.
const codeNoLanguageServer = -32001

// defaultDiagnosticsWait bounds the wait for the diagnostics of a changed
// file after an agent's write (setting diagnostics.waitMs).
const defaultDiagnosticsWait = 1500 * time.Millisecond

var _ workspace.Languages = (*editor)(nil)

// features lists the client requests the client advertised, as registry
// features: the conditional tools that need them join the registry.
func (c clientInfo) features() []string {
	var out []string
	if c.diagnostics {
		out = append(out, registry.FeatureDiagnostics)
	}
	if c.languageRequest {
		out = append(out, registry.FeatureLanguageRequest)
	}
	if c.editorState {
		out = append(out, registry.FeatureEditorState)
	}
	return out
}

// textOf is the text positions in abs count against: the buffer when the
// document is open, else the file inside the folder. ok is false for a file
// the server cannot read (outside the folder): positions are then taken as
// if every character were one unit.
func (e *editor) textOf(abs string) (string, bool) {
	if buf, ok := e.f.WS.Buffer(abs); ok {
		return buf.Text, true
	}
	if !e.f.WS.Contains(abs) {
		return "", false
	}
	f, err := e.f.WS.ReadFile(abs)
	if err != nil {
		return "", false
	}
	return f.Text, true
}

// uriOf is the URI of abs as the client knows it.
func (e *editor) uriOf(abs string) string {
	if d, ok := e.s.docByPath(abs); ok {
		return d.uri
	}
	return pathToURI(abs)
}

// pathOf is the absolute path of a URI the client sent, in the folder's
// spelling when a symlink makes the difference.
func (e *editor) pathOf(uri string) (string, bool) {
	p, ok := uriToPath(uri)
	if !ok {
		return "", false
	}
	e.s.mu.Lock()
	defer e.s.mu.Unlock()
	return e.s.folderPathLocked(p), true
}

// toLSP converts a 1-based line and character column of abs into a
// protocol position.
func (e *editor) toLSP(abs string, p workspace.Pos) Position {
	line := uint32(max(p.Line-1, 0))
	text, ok := e.textOf(abs)
	if !ok {
		return Position{Line: line, Character: uint32(max(p.Col-1, 0))}
	}
	start, end := lineBounds(text, line)
	content := text[start:end]
	i := 0
	for n := 1; n < p.Col && i < len(content); n++ {
		_, size := utf8.DecodeRuneInString(content[i:])
		i += size
	}
	return Position{Line: line, Character: count(content[:i], e.s.clientCaps().enc)}
}

// fromLSP converts a protocol position of the document at abs (text as
// given by textOf) into a 1-based line and character column.
func fromLSP(text string, known bool, p Position, enc posEncoding) workspace.Pos {
	if !known {
		return workspace.Pos{Line: int(p.Line) + 1, Col: int(p.Character) + 1}
	}
	off := offsetOf(text, p, enc)
	start, _ := lineBounds(text, p.Line)
	if off < start {
		start = off
	}
	return workspace.Pos{Line: int(p.Line) + 1, Col: utf8.RuneCountInString(text[start:off]) + 1}
}

// converter converts positions of many documents, reading each text once.
type converter struct {
	e     *editor
	enc   posEncoding
	texts map[string]*struct {
		text  string
		known bool
	}
}

func (e *editor) converter() *converter {
	return &converter{e: e, enc: e.s.clientCaps().enc, texts: map[string]*struct {
		text  string
		known bool
	}{}}
}

func (c *converter) location(uri string, r Range) (workspace.Location, bool) {
	abs, ok := c.e.pathOf(uri)
	if !ok {
		return workspace.Location{}, false
	}
	t, ok := c.texts[abs]
	if !ok {
		text, known := c.e.textOf(abs)
		t = &struct {
			text  string
			known bool
		}{text, known}
		c.texts[abs] = t
	}
	return workspace.Location{
		Abs:   abs,
		Start: fromLSP(t.text, t.known, r.Start, c.enc),
		End:   fromLSP(t.text, t.known, r.End, c.enc),
	}, true
}

// callClient sends a client request bounded by the server's edit timeout.
func (e *editor) callClient(ctx context.Context, method string, params, result any) error {
	return e.callClientWithin(ctx, e.s.opts.ApplyEditTimeout, method, params, result)
}

// callClientWithin is callClient with its own bound.
func (e *editor) callClientWithin(ctx context.Context, limit time.Duration, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err := e.s.conn.Call(ctx, method, params, result)
	var we *wire.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &we) && we.Code == codeNoLanguageServer:
		return fmt.Errorf("%s: %w", we.Message, workspace.ErrNoLanguageServer)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		return fmt.Errorf("the editor did not answer %s within %s", method, limit)
	}
	return fmt.Errorf("the editor failed %s: %w", method, err)
}

// lspDiagnostic is a diagnostic as the client reports it; Raw is sent back
// as is in a code action's context.
type lspDiagnostic struct {
	Range    Range           `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
	Raw      json.RawMessage `json:"-"`
}

// diagnosticsParams is agentls/diagnostics' (PROTOCOL.md).
type diagnosticsParams struct {
	URI     string `json:"uri,omitempty"`
	WaitMs  int64  `json:"waitMs,omitempty"`
	Version *int32 `json:"version,omitempty"`
}

type diagnosticsResult struct {
	Items []struct {
		URI         string            `json:"uri"`
		Diagnostics []json.RawMessage `json:"diagnostics"`
	} `json:"items"`
	Fresh *bool `json:"fresh"`
}

// rawDiagnostics asks the client for the diagnostics of uri ("" for all).
// With wait > 0 the client waits up to wait for an update of uri's
// diagnostics made after the document reached version (or after the
// request, when version is nil), and says in fresh whether one came.
func (e *editor) rawDiagnostics(ctx context.Context, uri string, version *int32, wait time.Duration) (map[string][]lspDiagnostic, bool, error) {
	params := diagnosticsParams{URI: uri}
	if wait > 0 {
		params.WaitMs, params.Version = wait.Milliseconds(), version
	}
	var res diagnosticsResult
	if err := e.callClientWithin(ctx, wait+e.s.opts.ApplyEditTimeout, reqDiagnostics, params, &res); err != nil {
		return nil, false, err
	}
	out := map[string][]lspDiagnostic{}
	for _, it := range res.Items {
		for _, raw := range it.Diagnostics {
			var d lspDiagnostic
			if json.Unmarshal(raw, &d) != nil {
				continue
			}
			d.Raw = raw
			out[it.URI] = append(out[it.URI], d)
		}
	}
	return out, res.Fresh == nil || *res.Fresh, nil
}

func (e *editor) convertDiagnostics(raw map[string][]lspDiagnostic) []workspace.Diagnostic {
	c := e.converter()
	var out []workspace.Diagnostic
	for uri, ds := range raw {
		for _, d := range ds {
			loc, ok := c.location(uri, d.Range)
			if !ok {
				continue
			}
			code := strings.Trim(string(d.Code), `"`)
			if code == "null" {
				code = ""
			}
			out = append(out, workspace.Diagnostic{Location: loc, Severity: workspace.Severity(d.Severity), Source: d.Source, Code: code, Message: d.Message})
		}
	}
	return out
}

// Diagnostics implements workspace.Languages.
func (e *editor) Diagnostics(ctx context.Context, abs string) ([]workspace.Diagnostic, error) {
	uri := ""
	if abs != "" {
		uri = e.uriOf(abs)
	}
	raw, _, err := e.rawDiagnostics(ctx, uri, nil, 0)
	if err != nil {
		return nil, err
	}
	return e.convertDiagnostics(raw), nil
}

// diagnosticsWait is the folder's diagnostics.waitMs.
func (e *editor) diagnosticsWait() time.Duration {
	var ms float64
	if e.f.Session != nil && e.f.Session.Setting("diagnostics.waitMs", &ms) && ms >= 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return defaultDiagnosticsWait
}

// changedFile is a file an agent's write changed: its buffer version after
// the change, or nil when it changed on disk.
type changedFile struct {
	abs     string
	version *int32
}

// diagnosticsAfter asks, when the client offers diagnostics, for the errors
// and warnings of the changed files once the editor's servers have looked
// at the change (bounded by diagnostics.waitMs), and says what came back:
// a text for the result's note, "" without the capability.
func (e *editor) diagnosticsAfter(ctx context.Context, files []changedFile) string {
	if !e.s.clientCaps().diagnostics || len(files) == 0 {
		return ""
	}
	wait := e.diagnosticsWait()
	if wait == 0 {
		return ""
	}
	type answer struct {
		raw   map[string][]lspDiagnostic
		fresh bool
		err   error
	}
	answers := make([]answer, len(files))
	var wg sync.WaitGroup
	for i, cf := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := &answers[i]
			a.raw, a.fresh, a.err = e.rawDiagnostics(ctx, e.uriOf(cf.abs), cf.version, wait)
		}()
	}
	wg.Wait()
	merged := map[string][]lspDiagnostic{}
	var stale []string
	for i, a := range answers {
		rel := e.f.WS.Rel(files[i].abs)
		if a.err != nil {
			e.s.log.Info("diagnostics after a write", "file", rel, "err", a.err)
			stale = append(stale, rel)
			continue
		}
		if !a.fresh {
			stale = append(stale, rel)
		}
		for uri, ds := range a.raw {
			merged[uri] = append(merged[uri], ds...)
		}
	}
	ds := e.convertDiagnostics(merged)
	text := workspace.FormatDiagnostics(ds, workspace.SeverityWarning, e.f.WS.Rel, 30)
	var b strings.Builder
	if text != "" {
		b.WriteString("the editor reports after the change:\n")
		b.WriteString(strings.TrimSuffix(text, "\n"))
	} else {
		b.WriteString("the editor reports no errors or warnings in the changed files")
	}
	if len(stale) > 0 {
		fmt.Fprintf(&b, "\n(no diagnostics update for %s within %d ms; these may predate the change)", strings.Join(stale, ", "), wait.Milliseconds())
	}
	return b.String()
}

// languageRequest forwards an LSP request to the editor's other servers.
func (e *editor) languageRequest(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var res json.RawMessage
	err := e.callClient(ctx, reqLanguageRequest, languageRequestParams{Method: method, Params: params}, &res)
	return res, err
}

// languageRequestParams is agentls/languageRequest's (PROTOCOL.md): an LSP
// request for the editor's other servers.
type languageRequestParams struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

func (e *editor) docParams(abs string, at workspace.Pos) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(e.uriOf(abs))},
		Position:     e.toLSP(abs, at),
	}
}

var locateMethods = map[string]string{
	"definition":      "textDocument/definition",
	"type_definition": "textDocument/typeDefinition",
	"implementation":  "textDocument/implementation",
	"references":      "textDocument/references",
}

// Locate implements workspace.Languages.
func (e *editor) Locate(ctx context.Context, action, abs string, at workspace.Pos) ([]workspace.Location, error) {
	method, ok := locateMethods[action]
	if !ok {
		return nil, fmt.Errorf("unknown action %q", action)
	}
	var params any = e.docParams(abs, at)
	if action == "references" {
		params = protocol.ReferenceParams{TextDocumentPositionParams: e.docParams(abs, at), Context: protocol.ReferenceContext{IncludeDeclaration: true}}
	}
	raw, err := e.languageRequest(ctx, method, params)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '[':
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("the editor answered %s with %s", method, clipJSON(raw))
		}
	default:
		items = []json.RawMessage{raw}
	}
	c := e.converter()
	var out []workspace.Location
	seen := map[workspace.Location]bool{}
	for _, it := range items {
		var l struct {
			URI                  string `json:"uri"`
			Range                *Range `json:"range"`
			TargetURI            string `json:"targetUri"`
			TargetSelectionRange *Range `json:"targetSelectionRange"`
		}
		if json.Unmarshal(it, &l) != nil {
			continue
		}
		uri, r := l.URI, l.Range
		if l.TargetURI != "" {
			uri, r = l.TargetURI, l.TargetSelectionRange
		}
		if r == nil {
			continue
		}
		loc, ok := c.location(uri, *r)
		if !ok || seen[loc] {
			continue
		}
		seen[loc] = true
		out = append(out, loc)
	}
	slices.SortStableFunc(out, func(a, b workspace.Location) int {
		if a.Abs != b.Abs {
			return strings.Compare(a.Abs, b.Abs)
		}
		return a.Start.Line - b.Start.Line
	})
	return out, nil
}

// Hover implements workspace.Languages.
func (e *editor) Hover(ctx context.Context, abs string, at workspace.Pos) (string, error) {
	raw, err := e.languageRequest(ctx, "textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: e.docParams(abs, at)})
	if err != nil {
		return "", err
	}
	raw = bytes.TrimSpace(raw)
	var hovers []json.RawMessage
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '[':
		json.Unmarshal(raw, &hovers)
	default:
		hovers = []json.RawMessage{raw}
	}
	var parts []string
	for _, h := range hovers {
		var v struct {
			Contents json.RawMessage `json:"contents"`
		}
		if json.Unmarshal(h, &v) == nil {
			if s := markup(v.Contents); s != "" {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, "\n\n---\n\n"), nil
}

// markup flattens hover contents: a string, MarkupContent, MarkedString or
// a list of them.
func markup(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		json.Unmarshal(raw, &s)
		return strings.TrimSpace(s)
	case '[':
		var list []json.RawMessage
		json.Unmarshal(raw, &list)
		var parts []string
		for _, it := range list {
			if s := markup(it); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	case '{':
		var v struct {
			Kind     string `json:"kind"`
			Language string `json:"language"`
			Value    string `json:"value"`
		}
		json.Unmarshal(raw, &v)
		if v.Language != "" {
			return "```" + v.Language + "\n" + strings.TrimSpace(v.Value) + "\n```"
		}
		return strings.TrimSpace(v.Value)
	}
	return ""
}

// RenameSymbol implements workspace.Languages.
func (e *editor) RenameSymbol(ctx context.Context, abs string, at workspace.Pos, newName string) (workspace.Applied, error) {
	raw, err := e.languageRequest(ctx, "textDocument/rename", protocol.RenameParams{TextDocumentPositionParams: e.docParams(abs, at), NewName: newName})
	if err != nil {
		return workspace.Applied{}, err
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return workspace.Applied{}, fmt.Errorf("the editor's language server found nothing to rename at %s:%d:%d", e.f.WS.Rel(abs), at.Line, at.Col)
	}
	return e.applyWorkspaceEdit(ctx, "agentls: rename to "+newName, raw)
}

// CodeActions implements workspace.Languages.
func (e *editor) CodeActions(ctx context.Context, abs string, from, to workspace.Pos, only string) ([]workspace.CodeAction, error) {
	uri := e.uriOf(abs)
	r := Range{Start: e.toLSP(abs, from), End: e.toLSP(abs, to)}
	diags := []json.RawMessage{}
	if e.s.clientCaps().diagnostics {
		raw, _, err := e.rawDiagnostics(ctx, uri, nil, 0)
		if err == nil {
			for _, ds := range raw {
				for _, d := range ds {
					if !before(d.Range.End, r.Start) && !before(r.End, d.Range.Start) {
						diags = append(diags, d.Raw)
					}
				}
			}
		}
	}
	params := codeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(uri)},
		Range:        r,
		Context:      codeActionContext{Diagnostics: diags, TriggerKind: codeActionInvoked},
	}
	if only != "" {
		params.Context.Only = []protocol.CodeActionKind{protocol.CodeActionKind(only)}
	}
	raw, err := e.languageRequest(ctx, "textDocument/codeAction", params)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) > 0 && string(t) != "null" {
		if err := json.Unmarshal(t, &items); err != nil {
			return nil, fmt.Errorf("the editor answered textDocument/codeAction with %s", clipJSON(t))
		}
	}
	var out []workspace.CodeAction
	for _, it := range items {
		var a struct {
			Title       string          `json:"title"`
			Kind        string          `json:"kind"`
			IsPreferred bool            `json:"isPreferred"`
			Command     json.RawMessage `json:"command"`
			Disabled    *struct {
				Reason string `json:"reason"`
			} `json:"disabled"`
		}
		if json.Unmarshal(it, &a) != nil || a.Title == "" {
			continue
		}
		if only != "" && a.Kind != "" && a.Kind != only && !strings.HasPrefix(a.Kind, only+".") {
			continue
		}
		ca := workspace.CodeAction{Title: a.Title, Kind: a.Kind, Preferred: a.IsPreferred, Data: it}
		if a.Disabled != nil {
			ca.Disabled = cmp.Or(a.Disabled.Reason, "disabled")
		}
		out = append(out, ca)
	}
	return out, nil
}

// codeActionParams is protocol.CodeActionParams with the client's
// diagnostics sent back as they came (v0.12.0's Diagnostic has no data
// field, which a code action may need) and a triggerKind (LSP 3.17, absent
// from v0.12.0's CodeActionContext).
type codeActionParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Range        Range                           `json:"range"`
	Context      codeActionContext               `json:"context"`
}

type codeActionContext struct {
	Diagnostics []json.RawMessage         `json:"diagnostics"`
	Only        []protocol.CodeActionKind `json:"only,omitempty"`
	TriggerKind int                       `json:"triggerKind"`
}

// codeActionInvoked is CodeActionTriggerKind.Invoked: the user asked.
const codeActionInvoked = 1

func before(a, b Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// ApplyCodeAction implements workspace.Languages: a Command runs in the
// editor; a CodeAction is resolved when it carries neither edit nor
// command, its edit is applied like a rename, then its command runs.
func (e *editor) ApplyCodeAction(ctx context.Context, abs string, ac workspace.CodeAction) (workspace.Applied, error) {
	var a struct {
		Title   string          `json:"title"`
		Edit    json.RawMessage `json:"edit"`
		Command json.RawMessage `json:"command"`
		Data    json.RawMessage `json:"data"`
		Server  json.RawMessage `json:"agentlsServer"`
	}
	if err := json.Unmarshal(ac.Data, &a); err != nil {
		return workspace.Applied{}, fmt.Errorf("the code action cannot be read: %v", err)
	}
	if cmd := bytes.TrimSpace(a.Command); len(cmd) > 0 && cmd[0] == '"' {
		// A bare Command: {title, command, arguments}.
		return e.runCommand(ctx, ac.Data, a.Server)
	}
	if len(a.Edit) == 0 && len(a.Command) == 0 {
		raw, err := e.languageRequest(ctx, "codeAction/resolve", json.RawMessage(ac.Data))
		if err != nil {
			return workspace.Applied{}, fmt.Errorf("resolving %q: %w", ac.Title, err)
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			return workspace.Applied{}, fmt.Errorf("the editor resolved %q to %s", ac.Title, clipJSON(raw))
		}
		if len(a.Server) == 0 {
			json.Unmarshal(ac.Data, &struct {
				Server *json.RawMessage `json:"agentlsServer"`
			}{&a.Server})
		}
	}
	var res workspace.Applied
	if t := bytes.TrimSpace(a.Edit); len(t) > 0 && string(t) != "null" {
		var err error
		res, err = e.applyWorkspaceEdit(ctx, "agentls: "+ac.Title, a.Edit)
		if err != nil {
			return res, err
		}
	}
	if t := bytes.TrimSpace(a.Command); len(t) > 0 && string(t) != "null" {
		ran, err := e.runCommand(ctx, a.Command, a.Server)
		if err != nil {
			return res, err
		}
		res.Note = joinNote(res.Note, ran.Note)
	}
	if len(res.Files) == 0 && res.Note == "" {
		return res, fmt.Errorf("%q has neither an edit nor a command; nothing was changed", ac.Title)
	}
	return res, nil
}

// runCommand asks the editor to run a code action's command on the server
// that offered it; whatever that server changes reaches the editor (and the
// overlay) as its own edits.
func (e *editor) runCommand(ctx context.Context, cmd json.RawMessage, server json.RawMessage) (workspace.Applied, error) {
	var c struct {
		Title     string            `json:"title"`
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(cmd, &c); err != nil || c.Command == "" {
		return workspace.Applied{}, fmt.Errorf("the code action's command cannot be read")
	}
	params := languageCommandParams{Command: c.Command, Arguments: c.Arguments, Server: server}
	if _, err := e.languageRequest(ctx, "workspace/executeCommand", params); err != nil {
		return workspace.Applied{}, fmt.Errorf("running %s: %w", c.Command, err)
	}
	return workspace.Applied{Note: fmt.Sprintf("the editor ran the command %s; what it changed is in the editor's buffers: read the files again before editing them", c.Command)}, nil
}

// languageCommandParams is protocol.ExecuteCommandParams with the
// arguments as the offering server gave them (bytes, an empty list kept)
// and agentlsServer, which routes the command to that server (PROTOCOL.md).
type languageCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments,omitzero"`
	Server    json.RawMessage   `json:"agentlsServer,omitempty"`
}

// lspTextEdit is one TextEdit of a workspace edit.
type lspTextEdit = protocol.TextEdit

// applyWorkspaceEdit applies an edit the editor's servers computed: the
// files open in the editor in one workspace/applyEdit (one undo step in
// each buffer), the others on disk. Nothing outside the folder or under the
// deny list is changed: such an edit is refused whole. An edit with file
// operations (create, rename, delete) goes to the editor whole.
func (e *editor) applyWorkspaceEdit(ctx context.Context, label string, raw json.RawMessage) (workspace.Applied, error) {
	var we struct {
		Changes         map[string][]lspTextEdit `json:"changes"`
		DocumentChanges []json.RawMessage        `json:"documentChanges"`
	}
	if err := json.Unmarshal(raw, &we); err != nil {
		return workspace.Applied{}, fmt.Errorf("the editor's workspace edit cannot be read: %v", err)
	}
	type fileEdits struct {
		uri   string
		abs   string
		edits []lspTextEdit
	}
	var files []*fileEdits
	byURI := map[string]*fileEdits{}
	add := func(uri string, edits []lspTextEdit) error {
		fe, ok := byURI[uri]
		if !ok {
			abs, ok := e.pathOf(uri)
			if !ok {
				return fmt.Errorf("the edit changes %s, which is not a file; nothing was changed", uri)
			}
			if _, _, err := e.f.WS.ResolveWrite(abs); err != nil {
				return fmt.Errorf("the edit would change %s: %v; nothing was changed", abs, err)
			}
			fe = &fileEdits{uri: uri, abs: abs}
			byURI[uri] = fe
			files = append(files, fe)
		}
		fe.edits = append(fe.edits, edits...)
		return nil
	}
	for _, dc := range we.DocumentChanges {
		var d struct {
			Kind         string `json:"kind"`
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			Edits []lspTextEdit `json:"edits"`
		}
		if err := json.Unmarshal(dc, &d); err != nil {
			return workspace.Applied{}, fmt.Errorf("the editor's workspace edit cannot be read: %v", err)
		}
		if d.Kind != "" {
			return workspace.Applied{}, fmt.Errorf("the edit creates, renames or deletes files (%s), which agentls does not apply; nothing was changed", d.Kind)
		}
		if err := add(d.TextDocument.URI, d.Edits); err != nil {
			return workspace.Applied{}, err
		}
	}
	if len(we.DocumentChanges) == 0 {
		uris := make([]string, 0, len(we.Changes))
		for uri := range we.Changes {
			uris = append(uris, uri)
		}
		slices.Sort(uris)
		for _, uri := range uris {
			if err := add(uri, we.Changes[uri]); err != nil {
				return workspace.Applied{}, err
			}
		}
	}
	if len(files) == 0 {
		return workspace.Applied{}, errors.New("the edit changes nothing")
	}
	slices.SortFunc(files, func(a, b *fileEdits) int { return strings.Compare(a.abs, b.abs) })
	for _, fe := range files {
		unlock := e.f.WS.LockPath(fe.abs)
		defer unlock()
	}

	c := e.s.clientCaps()
	var res workspace.Applied
	type bufEdit struct {
		fe    *fileEdits
		doc   document
		buf   workspace.Buffer
		after string
	}
	var inBuffers []bufEdit
	var onDisk []*fileEdits
	for _, fe := range files {
		d, open := e.s.docByPath(fe.abs)
		buf, inOverlay := e.f.WS.Buffer(fe.abs)
		if open && inOverlay && c.applyEdit {
			inBuffers = append(inBuffers, bufEdit{fe: fe, doc: d, buf: buf, after: applyTextEdits(buf.Text, fe.edits, c.enc)})
		} else {
			onDisk = append(onDisk, fe)
		}
	}
	// Disk files are read (and their edits computed) before anything
	// changes, so that an unreadable one refuses the whole edit.
	type diskEdit struct {
		fe     *fileEdits
		before *workspace.File
		after  string
	}
	var disk []diskEdit
	for _, fe := range onDisk {
		f, err := e.f.WS.ReadFile(fe.abs)
		if err != nil {
			return res, fmt.Errorf("the edit changes %s, which cannot be read: %v; nothing was changed", e.f.WS.Rel(fe.abs), err)
		}
		disk = append(disk, diskEdit{fe: fe, before: f, after: applyTextEdits(f.Text, fe.edits, c.enc)})
	}
	var changed []changedFile
	if len(inBuffers) > 0 {
		var edit protocol.WorkspaceEdit
		for _, be := range inBuffers {
			addTextEdits(&edit, c.documentChanges, be.doc.uri, be.buf.Version, be.fe.edits)
		}
		// The overlays take the edits as soon as the editor accepts them:
		// no call waits for its didChange.
		ar, err := e.applyEdit(ctx, label, edit, func() {
			for _, be := range inBuffers {
				e.s.applied(be.doc.uri, be.buf.Version, be.buf.Version+1, be.after, nil)
			}
		})
		if errors.Is(err, errEditUnknown) {
			return res, fmt.Errorf("the call ended before the editor answered the edit; it may still land in its buffers: read the files again before editing them")
		}
		if err != nil {
			return res, err
		}
		if !ar.Applied {
			reason := ""
			if ar.FailureReason != "" {
				reason = " (" + ar.FailureReason + ")"
			}
			return res, fmt.Errorf("the editor refused the edit%s: a buffer changed; nothing was changed", reason)
		}
		st := e.f.currentSettings()
		for _, be := range inBuffers {
			v := be.buf.Version + 1
			fc := workspace.FileChange{Abs: be.fe.abs, Edits: len(be.fe.edits), Before: normalize(be.buf.Text), After: normalize(be.after), InBuffer: true}
			if !be.buf.Dirty && c.saveDocument && st.SaveAfterEdit {
				if saved, err := e.save(ctx, be.doc.uri); err == nil && saved {
					fc.Saved = true
				}
			}
			res.Files = append(res.Files, fc)
			changed = append(changed, changedFile{abs: be.fe.abs, version: &v})
		}
	}
	for _, de := range disk {
		req := workspace.WriteRequest{Abs: de.fe.abs, Text: de.after, Format: de.before.Format, Mode: de.before.Mode, Version: -1}
		if _, err := e.disk().Write(ctx, req); err != nil {
			res.Note = joinNote(res.Note, fmt.Sprintf("writing %s failed: %v", e.f.WS.Rel(de.fe.abs), err))
			continue
		}
		res.Files = append(res.Files, workspace.FileChange{Abs: de.fe.abs, Edits: len(de.fe.edits), Before: de.before.Text, After: de.after, Saved: true})
		changed = append(changed, changedFile{abs: de.fe.abs})
	}
	slices.SortFunc(res.Files, func(a, b workspace.FileChange) int { return strings.Compare(a.Abs, b.Abs) })
	if d := e.diagnosticsAfter(ctx, changed); d != "" {
		res.Note = joinNote(res.Note, d)
	}
	return res, nil
}

func normalize(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// applyTextEdits applies the edits of one document, all relative to text,
// from the last to the first.
func applyTextEdits(text string, edits []lspTextEdit, enc posEncoding) string {
	type span struct {
		s, e int
		text string
		i    int
	}
	spans := make([]span, len(edits))
	for i, ed := range edits {
		s, t := offsetOf(text, ed.Range.Start, enc), offsetOf(text, ed.Range.End, enc)
		if t < s {
			s, t = t, s
		}
		spans[i] = span{s, t, ed.NewText, i}
	}
	slices.SortStableFunc(spans, func(a, b span) int {
		if a.s != b.s {
			return b.s - a.s
		}
		return b.i - a.i
	})
	for _, sp := range spans {
		text = text[:sp.s] + sp.text + text[sp.e:]
	}
	return text
}

// State implements workspace.Languages.
func (e *editor) State(ctx context.Context) (workspace.EditorState, error) {
	var st struct {
		Documents []struct {
			URI        string `json:"uri"`
			LanguageID string `json:"languageId"`
			Version    int32  `json:"version"`
			Dirty      bool   `json:"dirty"`
		} `json:"documents"`
		Active *struct {
			URI          string   `json:"uri"`
			Cursor       Position `json:"cursor"`
			Selections   []Range  `json:"selections"`
			VisibleRange *Range   `json:"visibleRange"`
		} `json:"active"`
	}
	if err := e.callClient(ctx, reqEditorState, struct{}{}, &st); err != nil {
		return workspace.EditorState{}, err
	}
	var out workspace.EditorState
	c := e.converter()
	for _, d := range st.Documents {
		od := workspace.OpenDocument{Name: d.URI, Language: d.LanguageID, Version: d.Version, Dirty: d.Dirty}
		if abs, ok := e.pathOf(d.URI); ok {
			if !e.f.WS.Contains(abs) {
				continue // another folder's, or outside every folder
			}
			if e.f.WS.Denied(e.f.WS.Rel(abs)) {
				continue
			}
			od.Abs = abs
		}
		out.Documents = append(out.Documents, od)
	}
	if a := st.Active; a != nil {
		if loc, ok := c.location(a.URI, Range{Start: a.Cursor, End: a.Cursor}); ok && e.f.WS.Contains(loc.Abs) && !e.f.WS.Denied(e.f.WS.Rel(loc.Abs)) {
			ac := &workspace.ActiveEditor{Abs: loc.Abs, Cursor: loc.Start}
			for _, r := range a.Selections {
				if r.Start == r.End {
					continue
				}
				if l, ok := c.location(a.URI, r); ok {
					ac.Selections = append(ac.Selections, l)
				}
			}
			if a.VisibleRange != nil {
				if l, ok := c.location(a.URI, *a.VisibleRange); ok {
					ac.Visible = &l
				}
			}
			out.Active = ac
		}
	}
	return out, nil
}
