package main

import (
	"context"
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
the running editor session (agentls serve) whose workspace folder contains the
current directory: unsaved buffers are read, edits go through the editor and
its approvals. --list shows the sessions one can attach to.

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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
	if *attach {
		lk, folder, err := mcp.Find(abs)
		switch {
		case err == nil:
			fmt.Fprintf(e.stderr, "agentls mcp: attached to the editor session pid %d, folder %s\n", lk.PID, folder)
			if err := mcp.Attach(e.ctx, lk, abs, e.stdin, e.stdout); err != nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintf(e.stderr, "agentls mcp: %v\n", err)
				return exitError
			}
			return exitOK
		case errors.Is(err, mcp.ErrNoSession) && *fallback:
			fmt.Fprintf(e.stderr, "agentls mcp: %v; serving %s standalone\n", err, abs)
		default:
			fmt.Fprintf(e.stderr, "agentls mcp: %v\n(start the editor on that folder, or drop --attach to serve the directory standalone, or add --fallback)\n", err)
			return exitError
		}
	}
	return serveStandalone(e, abs, *settingsArg)
}

func serveStandalone(e *env, dir, settingsArg string) int {
	ws, err := workspace.New(dir)
	if err != nil {
		return usageError(e, "mcp", mcpSynopsis, "--dir %s: %v", dir, err)
	}
	settings, err := commandSettings(e, "mcp", ws.Root(), settingsArg, nil)
	if err != nil {
		fmt.Fprintf(e.stderr, "agentls mcp: %v\n", err)
		return exitUsage
	}
	workspace.CleanTemp(ws.Root())
	reg, err := registry.NewBuiltin(disabledTools(settings)...)
	if err != nil {
		fmt.Fprintf(e.stderr, "agentls mcp: %v\n", err)
		return exitError
	}
	sess, err := workspace.NewSession(ws, workspace.DiskEditor{WS: ws}, workspace.NewReadTracker())
	if err != nil {
		fmt.Fprintf(e.stderr, "agentls mcp: %v\n", err)
		return exitError
	}
	defer sess.Close()
	if err := sess.SetSettings(settings); err != nil {
		fmt.Fprintf(e.stderr, "agentls mcp: settings: %v\n", err)
		return exitUsage
	}
	srv := mcp.NewServer(reg, sess, versionString(), nil)
	srv.AskThroughClient()
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
