package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/registry"
)

// A Proxy serves MCP to one client (agentls mcp --attach) and runs each call
// in the editor session whose folder contains Dir, outliving that session:
//
//   - a call is forwarded to the editor session when one is attached, or
//     when one can be found now (an editor that started after the agent);
//   - when the session ends, a call in flight gets an error result saying
//     so, and the proxy goes on serving;
//   - with no editor session, a call runs standalone on Dir when Fallback is
//     set (decided per call), else it gets an error result saying no editor
//     is running;
//   - the tool list follows the session (or the standalone tools), and the
//     client hears of it through notifications/tools/list_changed when the
//     set differs.
type Proxy struct {
	Dir      string // absolute: where to look for an editor session, and the standalone folder
	Fallback bool
	Version  string
	// Standalone builds the server of standalone calls; it is called once,
	// when the first such call comes. Its Close is called when Run ends.
	Standalone func() (*Server, func(), error)
	// Notef reports attachments and detachments (stderr); nil: silent.
	Notef func(format string, args ...any)

	srv *sdk.Server

	attachMu sync.Mutex // held while looking for and dialling a session

	mu       sync.Mutex
	remote   *remote // nil: detached
	local    *Server
	closeLoc func()
	localErr error
	toolsKey string          // the digest of the tool set the client sees
	names    map[string]bool // the tools srv holds
	sessions map[*sdk.ServerSession]bool
	closed   bool
	ctx      context.Context // Run's
}

// remote is one attachment to an editor session.
type remote struct {
	lk     Lock
	folder string
	cs     *sdk.ClientSession
	conn   net.Conn
	done   chan struct{} // closed when the connection has ended
}

// Run serves the client on t until it disconnects or ctx ends.
func (p *Proxy) Run(ctx context.Context, t sdk.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.ctx = ctx
	p.srv = sdk.NewServer(&sdk.Implementation{Name: "agentls", Version: p.Version}, &sdk.ServerOptions{
		Instructions: "agentls: file, search, symbol-index and shell tools on the workspace folder that contains " + p.Dir +
			", inside the running editor session when there is one. Paths are relative to that folder. Read a file before editing it.",
		InitializedHandler: func(_ context.Context, req *sdk.InitializedRequest) {
			p.mu.Lock()
			p.sessions[req.Session] = true
			p.mu.Unlock()
		},
	})
	p.names = map[string]bool{}
	p.sessions = map[*sdk.ServerSession]bool{}
	// A tools/list or tools/call while detached first looks for an editor
	// session: the tool named may be one of the session's.
	p.srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "tools/list" || method == "tools/call" {
				p.attached(ctx)
			}
			return next(ctx, method, req)
		}
	})
	if p.attached(ctx) == nil {
		p.showDetached()
	}
	defer p.close()
	return p.srv.Run(ctx, drainTransport{t})
}

// attached returns the current attachment, first looking for an editor
// session when there is none.
func (p *Proxy) attached(ctx context.Context) *remote {
	p.mu.Lock()
	r := p.remote
	p.mu.Unlock()
	if r != nil {
		return r
	}
	p.attachMu.Lock()
	defer p.attachMu.Unlock()
	p.mu.Lock()
	r, closed := p.remote, p.closed
	p.mu.Unlock()
	if r != nil || closed {
		return r
	}
	lk, _, err := Find(p.Dir)
	if err != nil {
		return nil
	}
	r, err = p.connect(p.ctx, lk)
	if err != nil {
		p.notef("agentls mcp: %v", err)
		return nil
	}
	return r
}

// connect attaches to the editor session lk and mirrors its tools.
func (p *Proxy) connect(ctx context.Context, lk Lock) (*remote, error) {
	c, br, folder, err := dial(ctx, lk, p.Dir)
	if err != nil {
		return nil, err
	}
	r := &remote{lk: lk, folder: folder, conn: c, done: make(chan struct{})}
	client := sdk.NewClient(&sdk.Implementation{Name: "agentls-mcp-attach", Version: p.Version}, &sdk.ClientOptions{
		ToolListChangedHandler: func(ctx context.Context, _ *sdk.ToolListChangedRequest) {
			p.mu.Lock()
			current := p.remote == r
			p.mu.Unlock()
			if current {
				// Not on the connection's reader: listing needs it.
				go p.mirror(p.ctx, r)
			}
		},
		ProgressNotificationHandler: func(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
			p.mu.Lock()
			sessions := make([]*sdk.ServerSession, 0, len(p.sessions))
			for ss := range p.sessions {
				sessions = append(sessions, ss)
			}
			p.mu.Unlock()
			for _, ss := range sessions {
				ss.NotifyProgress(ctx, req.Params)
			}
		},
	})
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: connReader{br, c}, Writer: c}, nil)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("the editor session (pid %d) did not start MCP: %w", lk.PID, err)
	}
	r.cs = cs
	tools, err := listTools(ctx, cs)
	if err != nil {
		cs.Close()
		return nil, fmt.Errorf("listing the tools of the editor session (pid %d): %w", lk.PID, err)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		cs.Close()
		return nil, errors.New("the client has gone")
	}
	p.remote = r
	p.mu.Unlock()
	p.setTools(tools, p.forward)
	p.notef("agentls mcp: attached to the editor session pid %d, folder %s", lk.PID, folder)
	go func() {
		cs.Wait()
		close(r.done)
		p.detach(r)
	}()
	return r, nil
}

// connReader closes the connection when the client session closes its
// reader.
type connReader struct {
	*bufio.Reader
	c net.Conn
}

func (r connReader) Close() error { return r.c.Close() }

func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var tools []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// mirror lists r's tools again after it announced a change.
func (p *Proxy) mirror(ctx context.Context, r *remote) {
	tools, err := listTools(ctx, r.cs)
	if err != nil {
		return
	}
	p.mu.Lock()
	current := p.remote == r
	p.mu.Unlock()
	if current {
		p.setTools(tools, p.forward)
	}
}

// detach forgets r when its connection has ended, and shows the client the
// tools it now gets.
func (p *Proxy) detach(r *remote) {
	p.mu.Lock()
	if p.remote != r {
		p.mu.Unlock()
		return
	}
	p.remote = nil
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return
	}
	if p.Fallback {
		p.notef("agentls mcp: the editor session pid %d ended; calls run standalone on %s until an editor opens the folder again", r.lk.PID, p.Dir)
	} else {
		p.notef("agentls mcp: the editor session pid %d ended; calls get an error until an editor opens the folder again (--fallback runs them standalone)", r.lk.PID)
	}
	p.showDetached()
}

// showDetached lists the tools a detached proxy offers: the standalone
// tools with --fallback, else (the calls fail until an editor comes) the
// built-ins.
func (p *Proxy) showDetached() {
	if p.Fallback {
		if local, err := p.standalone(); err == nil {
			p.setTools(local.tools(), p.forward)
			return
		}
	}
	p.mu.Lock()
	hasTools := len(p.names) > 0
	p.mu.Unlock()
	if !hasTools {
		reg, _ := registry.NewBuiltin()
		var tools []*sdk.Tool
		for _, sc := range reg.Schemas() {
			tools = append(tools, toolOf(sc))
		}
		p.setTools(tools, p.forward)
	}
}

// standalone returns the server of standalone calls, building it once.
func (p *Proxy) standalone() (*Server, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.local == nil && p.localErr == nil {
		if p.Standalone == nil {
			p.localErr = errors.New("no standalone server")
		} else {
			p.local, p.closeLoc, p.localErr = p.Standalone()
		}
	}
	return p.local, p.localErr
}

// setTools makes tools the client's tool list, with handler for each;
// nothing happens (no notification) when the set is the same.
func (p *Proxy) setTools(tools []*sdk.Tool, handler func(name string) sdk.ToolHandler) {
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	key, _ := json.Marshal(tools)
	p.mu.Lock()
	defer p.mu.Unlock()
	if string(key) == p.toolsKey {
		return
	}
	p.toolsKey = string(key)
	present := map[string]bool{}
	for _, t := range tools {
		present[t.Name] = true
		p.srv.AddTool(t, handler(t.Name))
	}
	var gone []string
	for name := range p.names {
		if !present[name] {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		p.srv.RemoveTools(gone...)
	}
	p.names = present
}

// forward is the handler of every tool the client sees.
func (p *Proxy) forward(name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if r := p.attached(ctx); r != nil {
			params := &sdk.CallToolParams{Name: name}
			if req.Params != nil {
				params.Meta = req.Params.Meta
				params.Arguments = req.Params.Arguments
				if len(req.Params.Arguments) == 0 {
					params.Arguments = json.RawMessage("{}")
				}
			}
			res, err := r.cs.CallTool(ctx, params)
			if err == nil {
				return res, nil
			}
			if ctx.Err() != nil {
				return nil, err
			}
			select {
			case <-r.done:
			default:
				if !errors.Is(err, sdk.ErrConnectionClosed) && !errors.Is(err, io.EOF) {
					return nil, err // the session's own answer (an unknown tool, …)
				}
			}
			p.detach(r)
			next := "later calls get an error until an editor opens the folder again"
			if p.Fallback {
				next = "later calls run standalone on " + p.Dir + " (the disk, not the editor's buffers)"
			}
			return errorResult(fmt.Sprintf("the editor closed while %s ran (editor session pid %d): its outcome is unknown, so check the files (or the command's effects) before retrying; %s", name, r.lk.PID, next)), nil
		}
		if p.Fallback {
			local, err := p.standalone()
			if err != nil {
				return errorResult(fmt.Sprintf("no editor session is running for %s, and serving it standalone failed: %v", p.Dir, err)), nil
			}
			if _, ok := local.reg.Get(name); !ok {
				return errorResult(fmt.Sprintf("%s is a tool of the editor session, which has ended; it is not available standalone", name)), nil
			}
			return local.handler(name)(ctx, req)
		}
		return errorResult(fmt.Sprintf("no editor is running: no editor session has a workspace folder containing %s; ask the user to open it in the editor (or to restart agentls mcp with --fallback to work on the disk without one)", p.Dir)), nil
	}
}

func errorResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: true}
}

func (p *Proxy) notef(format string, args ...any) {
	if p.Notef != nil {
		p.Notef(format, args...)
	}
}

// close ends the attachment and the standalone server.
func (p *Proxy) close() {
	p.mu.Lock()
	p.closed = true
	r, closeLoc := p.remote, p.closeLoc
	p.remote = nil
	p.mu.Unlock()
	if r != nil {
		r.cs.Close()
		<-r.done
	}
	if closeLoc != nil {
		closeLoc()
	}
}
