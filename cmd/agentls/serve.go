package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/nav"
	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/shell"
	"github.com/agentls/agentls/workspace"
)

const serveSynopsis = "[--stdio] [--log FILE] [--log-level LEVEL]"

const serveHelp = `Runs the agentls language server on stdin/stdout (editors start it this way;
vscode-languageclient passes --stdio). Nothing but the protocol is written to
stdout; --log writes a structured log (JSON lines) to FILE, otherwise warnings
go to stderr. The wire contract is docs/PROTOCOL.md.

While it runs, the session listens on a private Unix socket so that
"agentls mcp --attach" can use the same buffers and tools.`

func runServe(args []string) int {
	e := &env{ctx: context.Background(), stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	fs := newFlags(e, "serve", serveSynopsis, serveHelp)
	fs.Bool("stdio", true, "speak LSP on stdin/stdout (the only transport; accepted for vscode-languageclient)")
	logPath := fs.String("log", "", "write a structured log to `FILE`")
	level := fs.String("log-level", "info", "log `LEVEL` for --log: debug, info, warn or error")
	// help is written to stderr: stdout belongs to the protocol.
	pos, code := parseArgs(&env{ctx: e.ctx, stdin: e.stdin, stdout: os.Stderr, stderr: os.Stderr}, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(e, "serve", serveSynopsis, "unexpected argument %q", pos[0])
	}

	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return usageError(e, "serve", serveSynopsis, "--log-level %q: use debug, info, warn or error", *level)
	}
	var logger *slog.Logger
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintf(os.Stderr, "agentls serve: --log: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		logger = slog.New(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: lvl}))
	} else {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}

	// SIGHUP too: editors send it when they quit (Emacs does).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	workspace.CleanStaleSessionDirs()

	code = serveLSPStopping(ctx, logger, os.Stdin, os.Stdout, nopCloser{}, shell.KillAllNow)
	// Background shells of every session were ended with their sessions;
	// this catches any process still alive (a foreground command of a
	// cancelled call, a signal during shutdown).
	shell.KillAll()
	logger.Info("exit", "status", code)
	return code
}

// serveLSP runs one LSP connection with everything the binary adds to the
// server: the MCP attach socket, plugin MCP servers, navigation.
func serveLSP(ctx context.Context, logger *slog.Logger, r io.Reader, w io.Writer, c io.Closer) int {
	return serveLSPStopping(ctx, logger, r, w, c, nil)
}

// serveLSPStopping is serveLSP with the server's Stopping hook: called at
// once on shutdown, exit, a signal or the end of the input (the binary
// passes shell.KillAllNow; tests that run several servers in one process
// pass nil).
func serveLSPStopping(ctx context.Context, logger *slog.Logger, r io.Reader, w io.Writer, c io.Closer, stopping func()) int {
	att := &attachFolders{log: logger, byRoot: map[string]*lsp.Folder{}}
	plugins := &pluginServers{log: logger, running: map[*lsp.Folder]*runningPlugins{}}
	srv := lsp.New(lsp.Options{
		Logger:     logger,
		Version:    versionString(),
		Extensions: []lsp.Extension{att, plugins, &nav.Extension{}},
		Settings:   (&editorSettings{}).layer,
		Stopping:   stopping,
	})
	code := srv.Run(ctx, r, w, c)
	att.close()
	plugins.close()
	return code
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// pluginServers runs each folder's configured MCP servers (the "mcpServers"
// setting) as plugin tools in the folder's registry, restarting them when
// that setting changes.
type pluginServers struct {
	log *slog.Logger

	mu      sync.Mutex
	running map[*lsp.Folder]*runningPlugins
}

type runningPlugins struct {
	config  string // the mcpServers JSON they were started with
	plugins *mcp.Plugins
}

func (p *pluginServers) Capabilities(*protocol.ServerCapabilities) {}
func (p *pluginServers) Commands() map[string]lsp.CommandFunc      { return nil }
func (p *pluginServers) Methods() map[string]lsp.MethodFunc        { return nil }

func (p *pluginServers) FolderOpened(f *lsp.Folder) func() {
	return func() {
		p.mu.Lock()
		r := p.running[f]
		delete(p.running, f)
		p.mu.Unlock()
		if r != nil {
			r.plugins.Close()
		}
	}
}

func (p *pluginServers) SettingsChanged(f *lsp.Folder, raw json.RawMessage) {
	var cfg struct {
		MCPServers map[string]mcp.ServerConfig `json:"mcpServers"`
	}
	json.Unmarshal(raw, &cfg)
	key := ""
	if len(cfg.MCPServers) > 0 {
		b, _ := json.Marshal(cfg.MCPServers) // map keys sorted: a stable key
		key = string(b)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.running[f]
	if (old == nil && key == "") || (old != nil && old.config == key) {
		return
	}
	if old != nil {
		old.plugins.Close() // removes its tools from the registry
		delete(p.running, f)
	}
	if key != "" {
		p.running[f] = &runningPlugins{config: key, plugins: mcp.StartPlugins(f.Registry(), cfg.MCPServers, p.log)}
	}
}

func (p *pluginServers) close() {
	p.mu.Lock()
	running := p.running
	p.running = map[*lsp.Folder]*runningPlugins{}
	p.mu.Unlock()
	for _, r := range running {
		r.plugins.Close()
	}
}

// attachFolders publishes the server's folders on the MCP attach socket
// (agentls mcp --attach): an attached agent runs in the folder's session,
// with its buffers and its editor.
type attachFolders struct {
	log *slog.Logger

	mu     sync.Mutex
	byRoot map[string]*lsp.Folder
	ln     *mcp.Listener
	failed bool
}

func (a *attachFolders) Capabilities(*protocol.ServerCapabilities) {}
func (a *attachFolders) Commands() map[string]lsp.CommandFunc      { return nil }
func (a *attachFolders) Methods() map[string]lsp.MethodFunc        { return nil }

func (a *attachFolders) FolderOpened(f *lsp.Folder) func() {
	root := f.WS.Root()
	a.mu.Lock()
	a.byRoot[root] = f
	a.publishLocked()
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		delete(a.byRoot, root)
		a.publishLocked()
		a.mu.Unlock()
	}
}

func (a *attachFolders) publishLocked() {
	roots := make([]string, 0, len(a.byRoot))
	for r := range a.byRoot {
		roots = append(roots, r)
	}
	if a.ln == nil {
		if a.failed || len(roots) == 0 {
			return
		}
		ln, err := mcp.Listen(roots, versionString(), a.resolve, a.log)
		if err != nil {
			a.failed = true
			a.log.Warn("no MCP attach socket", "err", err)
			return
		}
		a.ln = ln
		return
	}
	if err := a.ln.SetFolders(roots); err != nil {
		a.log.Warn("updating the MCP attach lock", "err", err)
	}
}

// resolve picks the innermost folder containing dir.
func (a *attachFolders) resolve(dir string) (mcp.Attachment, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var best *lsp.Folder
	for root, f := range a.byRoot {
		if f.WS.Contains(dir) || filepath.Clean(dir) == root {
			if best == nil || len(root) > len(best.WS.Root()) {
				best = f
			}
		}
	}
	if best == nil {
		return mcp.Attachment{}, fmt.Errorf("no workspace folder of this editor session contains %s", dir)
	}
	// The attached agent shares the folder's buffers, editor, index and
	// jobs, but must read a file itself before editing it.
	sess, err := best.Session.Derive(workspace.NewReadTracker())
	if err != nil {
		return mcp.Attachment{}, err
	}
	// Its bash asks in the editor even when the client confirms its own
	// agent's calls (clientConfirms): these calls never pass its UI.
	sess.Ask = best.AskAttached
	// Calls pass the same approval gate as the editor's own agent's
	// (agentls.approval settings, prompts in the editor).
	return mcp.Attachment{Registry: best.Registry(), Session: sess, Gate: best.Approve}, nil
}

func (a *attachFolders) close() {
	a.mu.Lock()
	ln := a.ln
	a.ln = nil
	a.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
}

var _ io.Closer = nopCloser{}
