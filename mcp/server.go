// Package mcp serves the tool registry over the Model Context Protocol, so
// agents that speak MCP get the same tools as the editor plugins — on a
// directory of their own (agentls mcp --dir) or inside a running editor
// session (agentls mcp --attach) — and connects to the MCP servers a user
// configures, adding their tools to a workspace registry as plugin tools.
//
// Invariants: each MCP connection has its own workspace session, so what a
// connection has read (read-before-write) is its own; an attached
// connection passes the editor's approval gate before any tool runs; the
// session socket directory is the user's own (0700, else refused) and a
// client checks with SO_PEERCRED that the socket's process is the editor
// session its lock file names before sending anything; a plugin server's
// tools are named mcp__<server>__<tool> and are suspended, not removed,
// while the server is down.
package mcp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

// A Server exposes one registry over MCP; every call runs in one workspace
// session (one per MCP connection, so read-before-write is per connection).
type Server struct {
	reg  *registry.Registry
	sess *workspace.Session
	srv  *sdk.Server

	gate Gate   // nil: every call runs
	ask  *asker // set by AskThroughClient

	mu       sync.Mutex
	revision uint64          // the registry revision last mirrored into srv
	names    map[string]bool // the tools srv holds
}

// A Gate decides whether a call may run before it does (the editor's
// approval settings and prompts, for an attached connection). When it may
// not, res is the error result the model reads.
type Gate func(ctx context.Context, name string, args json.RawMessage) (res registry.Result, ok bool)

// SetGate puts g in front of every call. Call it before serving.
func (s *Server) SetGate(g Gate) { s.gate = g }

// NewServer returns a server for reg whose calls run in sess. version is
// reported to the client as the server's version.
func NewServer(reg *registry.Registry, sess *workspace.Session, version string, logger *slog.Logger) *Server {
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{reg: reg, sess: sess, names: map[string]bool{}}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "agentls", Version: version}, &sdk.ServerOptions{
		Logger: logger,
		Instructions: "agentls: file, search, symbol-index and shell tools on the workspace folder " +
			sess.WS.Root() + ". Paths are relative to that folder. Read a file before editing it.",
	})
	s.Sync()
	return s
}

// Sync mirrors the registry's current tool list into the MCP server (and so
// notifies clients of list changes). It is cheap when nothing changed.
func (s *Server) Sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	rev := s.reg.Revision()
	if rev == s.revision && len(s.names) > 0 {
		return
	}
	s.revision = rev
	present := map[string]bool{}
	for _, sc := range s.reg.Schemas() {
		present[sc.Name] = true
		s.srv.AddTool(toolOf(sc), s.handler(sc.Name))
	}
	var gone []string
	for name := range s.names {
		if !present[name] {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
	s.names = present
}

// tools lists the registry's tools as MCP tools.
func (s *Server) tools() []*sdk.Tool {
	var out []*sdk.Tool
	for _, sc := range s.reg.Schemas() {
		out = append(out, toolOf(sc))
	}
	return out
}

// toolOf is the MCP tool of sc, with the tool's annotations as hints (MCP
// clients ask the user more firmly before a destructive call). The
// destructive and idempotent hints mean something only for a tool that
// writes; the open-world hint for every tool.
func toolOf(sc registry.Schema) *sdk.Tool {
	a := sc.Annotations
	ann := &sdk.ToolAnnotations{ReadOnlyHint: sc.ReadOnly, OpenWorldHint: &a.OpenWorld}
	if !sc.ReadOnly {
		ann.DestructiveHint = &a.Destructive
		ann.IdempotentHint = a.Idempotent
	}
	return &sdk.Tool{
		Name:        sc.Name,
		Description: sc.Description,
		InputSchema: json.RawMessage(sc.InputSchema),
		Annotations: ann,
	}
}

// handler runs a tool through the registry: validation, errors as results
// with isError, output limits — the same path as the LSP commands.
func (s *Server) handler(name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		ctx, c := s.withAsk(ctx, req)
		if s.gate != nil {
			if res, ok := s.gate(ctx, name, args); !ok {
				if c != nil && c.asked != "" {
					return s.inputRequest(c.asked), nil
				}
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Content}}, IsError: true}, nil
			}
		}
		res := s.reg.Call(workspace.WithSession(ctx, s.sess), name, args)
		if c != nil && c.asked != "" {
			return s.inputRequest(c.asked), nil
		}
		return &sdk.CallToolResult{
			Content: []sdk.Content{&sdk.TextContent{Text: res.Content}},
			IsError: res.IsError,
		}, nil
	}
}

// Run serves MCP on t until the client disconnects or ctx ends. Tools
// added to or removed from the registry meanwhile (plugin servers coming
// and going) reach the client as a list change.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		s.follow(ctx)
	}()
	defer func() {
		cancel()
		<-followed
	}()
	return s.srv.Run(ctx, drainTransport{t})
}

// follow mirrors every change of the registry until ctx ends.
func (s *Server) follow(ctx context.Context) {
	for {
		ch := s.reg.Changed()
		s.Sync()
		select {
		case <-ctx.Done():
			return
		case <-ch:
		}
	}
}

// ServeStream serves MCP (newline-delimited JSON-RPC) on one stream, as an
// attached connection does.
func (s *Server) ServeStream(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	return s.Run(ctx, &sdk.IOTransport{Reader: r, Writer: w})
}
