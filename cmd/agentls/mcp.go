package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const mcpSynopsis = "[--dir DIR] [--settings JSON] [--attach [--fallback]] [--list]"

const mcpHelp = `Serves the agentls tools over MCP (newline-delimited JSON-RPC) on stdin/stdout.

Standalone (the default), the tools act on DIR with the disk as the only editor;
read-before-write applies per connection. With --attach, the calls run inside
the running editor session (agentls serve) whose workspace folder contains DIR:
unsaved buffers are read, edits go through the editor and its approvals.
--attach outlives the editor: a call in flight when it quits gets an error
result saying so; while no editor runs, calls run standalone on DIR with
--fallback and get an error result without it (decided per call); an editor
that opens the folder later is attached at the next call, and the tool list
follows. --list shows the sessions one can attach to.

Standalone, settings come from the user's file $XDG_CONFIG_HOME/agentls/settings.json
(~/.config/agentls/settings.json; the keys of the editor's "agentls" section),
then --settings, which wins; DIR's own .agentls/settings.json may only tighten
them. A command outside bash.allow is put to the user through the MCP client
when it offers elicitation (Allow, Allow for this session, Deny); otherwise it
is refused with the line to add to the settings file. Example file:
  {"bash": {"allow": ["go test", "make"], "sandbox": "bwrap"}}

Setup for common MCP clients:
  claude mcp add agentls -- agentls mcp --attach --fallback
  codex:  [mcp_servers.agentls] command = "agentls", args = ["mcp", "--attach", "--fallback"]
  gemini: "mcpServers": {"agentls": {"command": "agentls", "args": ["mcp", "--attach", "--fallback"]}}`

func runMCP(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	workspace.CleanStaleSessionDirs()
	return runMCPEnv(&env{ctx: ctx, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, args)
}

func runMCPEnv(e *env, args []string) int {
	fs := newFlags(e, "mcp", mcpSynopsis, mcpHelp)
	dir := fs.String("dir", ".", "the workspace `folder` (standalone), or where to look for an editor session (--attach)")
	attach := fs.Bool("attach", false, "run inside the editor session whose folder contains DIR")
	fallback := fs.Bool("fallback", false, "with --attach: serve DIR standalone when no editor session matches")
	list := fs.Bool("list", false, "list the editor sessions one can attach to, and exit")
	settingsArg := fs.String("settings", "", "standalone: the agentls settings as a JSON `object`, over the user's settings file (e.g. {\"bash\":{\"allow\":[\"go test\"]}})")
	pos, code := parseArgs(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(e, "mcp", mcpSynopsis, "unexpected argument %q", pos[0])
	}
	if *list {
		return listSessions(e)
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return usageError(e, "mcp", mcpSynopsis, "--dir %s: %v", *dir, err)
	}
	if *attach && !*fallback && *settingsArg != "" {
		return usageError(e, "mcp", mcpSynopsis, "--settings applies to standalone calls; with --attach the editor's settings hold (add --fallback to use it when no editor runs)")
	}
	if *attach {
		return serveAttached(e, abs, *fallback, *settingsArg)
	}
	return serveStandalone(e, abs, *settingsArg)
}

// serveAttached serves the client through a proxy that runs each call in
// the editor session of abs, whenever there is one.
func serveAttached(e *env, dir string, fallback bool, settingsArg string) int {
	var settings json.RawMessage
	if fallback {
		// A bad settings file is reported now, not at the first call.
		var err error
		if settings, err = commandSettings(e, "mcp", dir, settingsArg, nil); err != nil {
			fmt.Fprintf(e.stderr, "agentls mcp: %v\n", err)
			return exitUsage
		}
	}
	p := &mcp.Proxy{
		Dir:      dir,
		Fallback: fallback,
		Version:  versionString(),
		Notef:    func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) },
		Standalone: func() (*mcp.Server, func(), error) {
			return newStandalone(dir, settings)
		},
	}
	if _, _, err := mcp.Find(dir); err != nil {
		if fallback {
			fmt.Fprintf(e.stderr, "agentls mcp: %v; serving %s standalone until an editor opens it\n", err, dir)
		} else {
			fmt.Fprintf(e.stderr, "agentls mcp: %v; calls get an error until an editor opens it (--fallback serves the folder standalone meanwhile)\n", err)
		}
	}
	if err := p.Run(e.ctx, &sdk.IOTransport{Reader: readCloser{e.stdin}, Writer: writeCloser{e.stdout}}); err != nil &&
		!errors.Is(err, context.Canceled) && !isEOF(err) {
		fmt.Fprintf(e.stderr, "agentls mcp: %v\n", err)
		return exitError
	}
	return exitOK
}

// newStandalone builds the server of a standalone session on dir with
// settings (already layered); close ends the session.
func newStandalone(dir string, settings json.RawMessage) (*mcp.Server, func(), error) {
	ws, err := workspace.New(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("--dir %s: %w", dir, err)
	}
	workspace.CleanTemp(ws.Root())
	reg, err := registry.NewBuiltin(disabledTools(settings)...)
	if err != nil {
		return nil, nil, err
	}
	sess, err := workspace.NewSession(ws, workspace.DiskEditor{WS: ws}, workspace.NewReadTracker())
	if err != nil {
		return nil, nil, err
	}
	if err := sess.SetSettings(settings); err != nil {
		sess.Close()
		return nil, nil, fmt.Errorf("settings: %w", err)
	}
	srv := mcp.NewServer(reg, sess, versionString(), nil)
	srv.AskThroughClient()
	return srv, func() { sess.Close() }, nil
}

func serveStandalone(e *env, dir, settingsArg string) int {
	if _, err := workspace.New(dir); err != nil {
		return usageError(e, "mcp", mcpSynopsis, "--dir %s: %v", dir, err)
	}
	settings, err := commandSettings(e, "mcp", dir, settingsArg, nil)
	if err != nil {
		fmt.Fprintf(e.stderr, "agentls mcp: %v\n", err)
		return exitUsage
	}
	srv, closeSess, err := newStandalone(dir, settings)
	if err != nil {
		fmt.Fprintf(e.stderr, "agentls mcp: %v\n", err)
		return exitError
	}
	defer closeSess()
	if err := srv.Run(e.ctx, &sdk.IOTransport{Reader: readCloser{e.stdin}, Writer: writeCloser{e.stdout}}); err != nil &&
		!errors.Is(err, context.Canceled) && !isEOF(err) {
		fmt.Fprintf(e.stderr, "agentls mcp: %v\n", err)
		return exitError
	}
	return exitOK
}

func listSessions(e *env) int {
	locks, err := mcp.Sessions()
	if err != nil {
		fmt.Fprintf(e.stderr, "agentls mcp: %v\n", err)
		return exitError
	}
	if len(locks) == 0 {
		fmt.Fprintln(e.stdout, "no running editor sessions (an editor starts one with agentls serve)")
		return exitOK
	}
	for _, lk := range locks {
		fmt.Fprintf(e.stdout, "pid %d  agentls %s\n", lk.PID, lk.Version)
		for _, f := range lk.WorkspaceFolders {
			fmt.Fprintf(e.stdout, "  %s\n", f)
		}
	}
	return exitOK
}
