package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/lsp/lsptest"
)

// attachSetup gives an attach test its own runtime and cache directories
// (XDG_RUNTIME_DIR holds the lock files), a folder, and the fake editor
// whose session the server of this binary serves in process.
func attachSetup(t *testing.T) (runtime, root string, e *lsptest.Editor) {
	t.Helper()
	runtime = t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root = t.TempDir()
	logger := slog.New(slog.DiscardHandler)
	e = lsptest.New(t, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
		return serveLSP(ctx, logger, r, w, c)
	})
	return runtime, root, e
}

// attachAgent waits for the editor session's lock file, then connects
// `agentls mcp --attach --dir root` as an MCP client; the session closes
// with the test.
func attachAgent(t *testing.T, ctx context.Context, e *lsptest.Editor, runtime, root string) *sdk.ClientSession {
	t.Helper()
	e.WaitFor("the attach lock file", func() bool {
		m, _ := filepath.Glob(filepath.Join(runtime, "agentls", "agentls-*.json"))
		return len(m) == 1
	})
	cmd := agentlsCmd(t, "mcp", "--attach", "--dir", root)
	cmd.Env = append(cmd.Env, "XDG_RUNTIME_DIR="+runtime)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
