// Package lsp is agentls's language server: the lifecycle, document sync
// into each folder's overlay, one workspace session and tool registry per
// workspace folder, the tool commands, edits of open files through the
// editor, approvals, progress and cancellation.
//
// Invariants: the read loop (lsp/internal/wire) applies notifications in
// arrival order and never waits on the client; every request but initialize
// runs on its own goroutine, with its own context, behind a limit; a
// request cancelled by $/cancelRequest (any id, number or string) answers
// -32800, a panic answers -32603 and the server goes on. There is one
// document per path. A write to an open document goes through the editor
// (workspace/applyEdit, versioned when the client takes documentChanges)
// when the client accepts edits, else to disk with a note saying so.
//
// Messages are go.lsp.dev/protocol v0.12.0's types where it gets them
// right: didOpen, didSave, didClose, configuration, registration,
// showMessage and its request, logMessage, workspace edits of text and the
// applyEdit answer, the server capabilities, and the params of the requests
// forwarded to the editor's other servers (definition, references, hover,
// rename). Where v0.12.0 lacks or misdecodes something the server has its
// own type, which says why beside it: didChange's content changes (a
// change without a range reads as an insert at 0:0), positionEncoding(s)
// (absent), textDocumentSync (false fields are dropped), executeCommand's
// arguments (they must stay bytes), file operations in a workspace edit,
// $/progress (tokens go back as sent, a 0 percentage is sent), code action
// params (no diagnostic data, no triggerKind), and the agentls/* requests
// of PROTOCOL.md, which are not LSP's. No message is built as a map.
//
// JSON-RPC framing, message types and dispatch are ours: lsp/internal/wire
// says, with measurements, why not go.lsp.dev/jsonrpc2's.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/internal/wire"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	Logger  *slog.Logger // nil: discard
	Version string       // serverInfo.version

	MaxConcurrent int // requests running at once; default 32

	// Timeouts; zero means the default in parentheses.
	ApplyEditTimeout time.Duration // the answers to workspace/applyEdit and agentls/saveDocument (10s)
	AskTimeout       time.Duration // an approval prompt (60s)
	ProgressDelay    time.Duration // a call without a token gets server-created progress after (1s)
	ShutdownWait     time.Duration // shutdown waits this long for running requests, then cancels them (5s)
	// Stopping, when set, is called at once on shutdown, on exit, and when
	// the input ends or Run's context is cancelled (a signal), before
	// anything waits for running requests: the binary kills every tool
	// process group there, since a client kills a server soon after exit.
	Stopping    func()
	ParentCheck time.Duration // how often to check that initialize's processId still runs (5s)

	// Extension points for the code index and navigation (see Extension).
	Extensions []Extension

	// Settings, when set, turns the settings the editor gave for the folder
	// at root (nil for none) into the folder's settings: the binary layers
	// the user's settings file under them and the workspace's own file over
	// them. Each problem it returns is shown to the user.
	Settings func(root string, editor json.RawMessage) (json.RawMessage, []string)
}

// Extension adds behaviour to the server without the server knowing it:
// the code index adds agentls.indexStatus and navigation this way.
type Extension interface {
	// Capabilities may set fields of the server capabilities of the
	// initialize result (it runs on the read loop).
	Capabilities(caps *protocol.ServerCapabilities)
	// Commands are added to workspace/executeCommand and to
	// executeCommandProvider.commands.
	Commands() map[string]CommandFunc
	// Methods are extra request handlers (e.g. textDocument/definition).
	Methods() map[string]MethodFunc
	// FolderOpened is called when a folder's session starts; the returned
	// function (may be nil) is called when it ends. It runs on the read
	// loop: start long work (indexing) on a goroutine the extension owns.
	FolderOpened(f *Folder) (closed func())
}

// SettingsWatcher is an optional interface of an Extension: SettingsChanged
// is called with a folder's "agentls" settings object when its session
// starts and whenever its settings change (plugin servers are configured
// this way). It must return quickly.
type SettingsWatcher interface {
	SettingsChanged(f *Folder, settings json.RawMessage)
}

// CommandFunc runs a command on the folder it routes to (nil when no folder
// is open). arg is the command's argument object.
type CommandFunc func(ctx context.Context, f *Folder, arg json.RawMessage) (any, error)

// MethodFunc handles one request method. Return a *wire.Error (see
// InvalidParams) for a protocol error.
type MethodFunc func(ctx context.Context, s *Server, params json.RawMessage) (any, error)

type lifecycle int

const (
	stateNew lifecycle = iota
	stateInitialized
	stateShutdown
)

// Server is one LSP connection. Create it with New and run it with Run.
type Server struct {
	opts Options
	log  *slog.Logger
	conn *wire.Conn

	ctx    context.Context // cancelled when the server stops
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the server starts
	reqs   sync.WaitGroup // running requests
	sem    chan struct{}

	methods  map[string]MethodFunc
	commands map[string]CommandFunc

	// docMu serialises the changes of documents and their overlays: the
	// read loop's text synchronisation and edits the client applied.
	docMu sync.Mutex

	mu       sync.Mutex
	state    lifecycle
	inflight map[string]*inflight // by wire.IDKey
	client   clientInfo
	global   settings // from initializationOptions and pushed configuration
	folders  []*Folder
	docs     map[string]*document // by path (by URI for a URI that is not a file): one buffer per file
	exited   bool

	progressSeq uint64

	initDone     chan struct{} // closed by the client's initialized notification
	initDoneOnce sync.Once
}

type inflight struct {
	cancel    context.CancelFunc
	cancelled bool // by $/cancelRequest
}

// New makes a server.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 32
	}
	if opts.ApplyEditTimeout <= 0 {
		opts.ApplyEditTimeout = 10 * time.Second
	}
	if opts.AskTimeout <= 0 {
		opts.AskTimeout = 60 * time.Second
	}
	if opts.ProgressDelay <= 0 {
		opts.ProgressDelay = time.Second
	}
	if opts.ShutdownWait <= 0 {
		opts.ShutdownWait = 5 * time.Second
	}
	if opts.ParentCheck <= 0 {
		opts.ParentCheck = 5 * time.Second
	}
	s := &Server{
		opts:     opts,
		log:      opts.Logger,
		sem:      make(chan struct{}, opts.MaxConcurrent),
		inflight: make(map[string]*inflight),
		docs:     make(map[string]*document),
		global:   defaultSettings(),
		initDone: make(chan struct{}),
	}
	s.methods = map[string]MethodFunc{
		"workspace/executeCommand": func(ctx context.Context, s *Server, p json.RawMessage) (any, error) { return s.executeCommand(ctx, p) },
	}
	s.commands = map[string]CommandFunc{
		cmdListTools: nil, // handled by executeCommand; listed here for the capability
		cmdCallTool:  nil,
		cmdCallTools: nil,
	}
	for _, ext := range opts.Extensions {
		for name, h := range ext.Commands() {
			s.commands[name] = h
		}
		for name, h := range ext.Methods() {
			s.methods[name] = h
		}
	}
	return s
}

// Run serves one connection until the client sends exit or the stream ends,
// and returns the process exit status the protocol asks for: 0 after
// shutdown, 1 otherwise. Before it returns, every request is cancelled,
// every goroutine the server started has ended, and every folder session is
// closed (which ends its background processes).
func (s *Server) Run(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.conn = wire.NewConn(r, w, c)
	// The read loop runs on its own goroutine so that a cancelled ctx
	// (SIGTERM) ends Run even when a read of a stream that cannot be
	// interrupted (a blocking stdin) never returns.
	loop := make(chan error, 1)
	go func() { loop <- s.conn.Run(s.handle) }()
	select {
	case err := <-loop:
		if err != nil {
			s.log.Error("connection ended", "err", err)
		}
	case <-s.ctx.Done():
		s.log.Info("stopped", "reason", context.Cause(s.ctx))
	}
	s.stopping()
	s.cancel()
	s.conn.Close()
	// Every request's context is cancelled; tools return promptly on it.
	// One that does not is not waited for past ShutdownWait: the folder
	// sessions are closed (ending their processes) either way.
	waited := make(chan struct{})
	go func() { s.wg.Wait(); close(waited) }()
	timer := time.NewTimer(s.opts.ShutdownWait)
	select {
	case <-waited:
	case <-timer.C:
		s.log.Error("requests still running at exit", "after", s.opts.ShutdownWait)
	}
	timer.Stop()
	s.closeFolders()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited && s.state == stateShutdown {
		return 0
	}
	return 1
}

// Notify sends a notification to the client (for extensions).
func (s *Server) Notify(method string, params any) error { return s.conn.Notify(method, params) }

// Call sends a request to the client and waits for its answer (for
// extensions). Never call it from a notification handler: those run on the
// read loop, which must keep reading for the answer to arrive.
func (s *Server) Call(ctx context.Context, method string, params, result any) error {
	return s.conn.Call(ctx, method, params, result)
}

// handle runs on the read loop: it must not wait on the client.
func (s *Server) handle(m *wire.Message) {
	if m.IsNotification() {
		s.notification(m)
		return
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in request", "method", m.Method, "panic", r, "stack", string(debug.Stack()))
			s.conn.Reply(m.ID, nil, wire.Errorf(wire.CodeInternalError, "internal error in %s: %v", m.Method, r))
		}
	}()
	s.request(m)
}

func (s *Server) notification(m *wire.Message) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in notification", "method", m.Method, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	if m.Method == "exit" {
		s.mu.Lock()
		s.exited = true
		s.mu.Unlock()
		s.stopping()
		s.conn.Close()
		return
	}
	if m.Method == "$/cancelRequest" {
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(m.Params, &p) == nil && len(p.ID) > 0 {
			s.mu.Lock()
			if in, ok := s.inflight[wire.IDKey(p.ID)]; ok {
				in.cancelled = true
				in.cancel()
			}
			s.mu.Unlock()
		}
		return
	}
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	if state != stateInitialized {
		s.log.Debug("notification dropped outside initialized state", "method", m.Method)
		return
	}
	switch m.Method {
	case "initialized":
		s.initialized()
	case "textDocument/didOpen":
		s.didOpen(m.Params)
	case "textDocument/didChange":
		s.didChange(m.Params)
	case "textDocument/didSave":
		s.didSave(m.Params)
	case "textDocument/didClose":
		s.didClose(m.Params)
	case "workspace/didChangeWorkspaceFolders":
		s.didChangeWorkspaceFolders(m.Params)
	case "workspace/didChangeConfiguration":
		s.didChangeConfiguration(m.Params)
	case "workspace/didChangeWatchedFiles":
		s.didChangeWatchedFiles(m.Params)
	default:
		s.log.Debug("notification ignored", "method", m.Method)
	}
}

func (s *Server) request(m *wire.Message) {
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	switch {
	case m.Method == "initialize":
		if state != stateNew {
			s.conn.Reply(m.ID, nil, wire.Errorf(wire.CodeInvalidRequest, "initialize was already received"))
			return
		}
		res, err := s.initialize(m.Params)
		s.conn.Reply(m.ID, res, err)
		return
	case state == stateNew:
		s.conn.Reply(m.ID, nil, wire.Errorf(wire.CodeServerNotInitialized, "the server is not initialized: send initialize first"))
		return
	case state == stateShutdown:
		s.conn.Reply(m.ID, nil, wire.Errorf(wire.CodeInvalidRequest, "the server is shutting down"))
		return
	case m.Method == "shutdown":
		s.mu.Lock()
		s.state = stateShutdown
		s.mu.Unlock()
		s.goOwned(func() {
			s.stopping()
			s.conn.Reply(m.ID, nil, s.shutdown())
		})
		return
	}
	h, ok := s.methods[m.Method]
	if !ok {
		s.conn.Reply(m.ID, nil, wire.Errorf(wire.CodeMethodNotFound, "method not found: %s", m.Method))
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	key := wire.IDKey(m.ID)
	in := &inflight{cancel: cancel}
	s.mu.Lock()
	if _, dup := s.inflight[key]; dup {
		s.mu.Unlock()
		cancel()
		s.conn.Reply(m.ID, nil, wire.Errorf(wire.CodeInvalidRequest, "request id %s is already in use", m.ID))
		return
	}
	s.inflight[key] = in
	s.mu.Unlock()
	s.reqs.Add(1)
	s.goOwned(func() {
		defer s.reqs.Done()
		defer cancel()
		res, err := s.run(ctx, m.Method, h, m.Params)
		s.mu.Lock()
		delete(s.inflight, key)
		cancelled := in.cancelled
		s.mu.Unlock()
		if cancelled {
			res, err = nil, wire.Errorf(wire.CodeRequestCancelled, "request cancelled")
		}
		if err := s.conn.Reply(m.ID, res, err); err != nil {
			s.log.Debug("reply not sent", "method", m.Method, "err", err)
		}
	})
}

// run runs one handler behind the concurrency limit, turning a panic into
// an internal error.
func (s *Server) run(ctx context.Context, method string, h MethodFunc, params json.RawMessage) (res any, err error) {
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	case <-ctx.Done():
		return nil, wire.Errorf(wire.CodeRequestCancelled, "request cancelled")
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in request", "method", method, "panic", r, "stack", string(debug.Stack()))
			res, err = nil, wire.Errorf(wire.CodeInternalError, "internal error in %s: %v", method, r)
		}
	}()
	start := time.Now()
	res, err = h(ctx, s, params)
	s.log.Debug("request", "method", method, "duration", time.Since(start), "err", err)
	if err != nil {
		var we *wire.Error
		if !errors.As(err, &we) {
			err = wire.Errorf(wire.CodeRequestFailed, "%s: %v", method, err)
		}
	}
	return res, err
}

// goOwned starts fn on a goroutine that Run waits for.
func (s *Server) goOwned(fn func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in server goroutine", "panic", r, "stack", string(debug.Stack()))
			}
		}()
		fn()
	}()
}

// stopping runs Options.Stopping.
func (s *Server) stopping() {
	if s.opts.Stopping != nil {
		s.opts.Stopping()
	}
}

// shutdown waits for running requests (bounded), cancels what is left and
// closes every folder session.
func (s *Server) shutdown() error {
	idle := make(chan struct{})
	go func() { s.reqs.Wait(); close(idle) }()
	timer := time.NewTimer(s.opts.ShutdownWait)
	defer timer.Stop()
	select {
	case <-idle:
	case <-timer.C:
		s.mu.Lock()
		for _, in := range s.inflight {
			in.cancel()
		}
		s.mu.Unlock()
		<-idle
	}
	s.closeFolders()
	return nil
}

// InvalidParams is the protocol error for params that do not decode.
func InvalidParams(format string, args ...any) error {
	return wire.Errorf(wire.CodeInvalidParams, format, args...)
}

func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return InvalidParams("missing params")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return InvalidParams("invalid params: %v", err)
	}
	return nil
}

// showMessage sends window/showMessage (1 error, 2 warning, 3 info).
func (s *Server) showMessage(typ int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.log.Info("showMessage", "type", typ, "message", msg)
	s.conn.Notify("window/showMessage", protocol.ShowMessageParams{Type: protocol.MessageType(typ), Message: msg})
}
