package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/mcp"
	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

// listen starts an attach listener for one folder whose sessions write to
// disk (the LSP server passes sessions with its own editor instead).
func listen(t *testing.T, folder string) *mcp.Listener {
	t.Helper()
	ws, err := workspace.New(folder)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(dir string) (mcp.Attachment, error) {
		sess, err := workspace.NewSession(ws, workspace.DiskEditor{WS: ws}, workspace.NewReadTracker())
		return mcp.Attachment{Registry: reg, Session: sess}, err
	}
	l, err := mcp.Listen([]string{ws.Root()}, "test", resolve, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestAttach(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	folder := t.TempDir()
	os.WriteFile(filepath.Join(folder, "f.txt"), []byte("hello attach\n"), 0o644)
	l := listen(t, folder)

	fi, err := os.Stat(l.Socket())
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Fatalf("socket mode %#o, want 0600", perm)
	}
	sessions, err := mcp.Sessions()
	if err != nil || len(sessions) != 1 {
		t.Fatalf("Sessions: %v %v", sessions, err)
	}
	sub := filepath.Join(folder, "sub")
	os.Mkdir(sub, 0o755)
	_, got, err := mcp.Find(sub)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := filepath.EvalSymlinks(folder); got != r {
		t.Fatalf("Find: folder %q, want %q", got, r)
	}
	if _, _, err := mcp.Find(t.TempDir()); err == nil {
		t.Fatal("Find matched a directory outside every folder")
	}

	// An MCP client through the attaching proxy.
	cs := proxyClient(t, &mcp.Proxy{Dir: sub, Version: "test"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: json.RawMessage(`{"path":"f.txt"}`)})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "hello attach") {
		t.Fatalf("read_file through attach: %v %+v", err, res)
	}
}

func TestAttachRefusesWrongToken(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	l := listen(t, t.TempDir())
	c, err := net.Dial("unix", l.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte(`{"token":"not-the-token","dir":"/"}` + "\n"))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, "wrong token") || strings.Contains(line, `"ok":true`) {
		t.Fatalf("answer to a wrong token: %s", line)
	}
}

func TestStaleAndLooseLocks(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir, err := mcp.SocketDir()
	if err != nil {
		t.Fatal(err)
	}
	// A lock file of a dead pid is removed.
	dead := filepath.Join(dir, "agentls-999999999.json")
	os.WriteFile(dead, []byte(`{"pid":999999999,"workspaceFolders":["/"],"socket":"`+filepath.Join(dir, "agentls-999999999.sock")+`","token":"x"}`), 0o600)
	if s, _ := mcp.Sessions(); len(s) != 0 {
		t.Fatalf("a dead session is listed: %+v", s)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatal("the stale lock file was not removed")
	}
	// A live session whose socket is readable by others is not offered.
	l := listen(t, t.TempDir())
	os.Chmod(l.Socket(), 0o666)
	if s, _ := mcp.Sessions(); len(s) != 0 {
		t.Fatalf("a session with a loose socket is listed: %+v", s)
	}
	// And the session directory itself must be private.
	os.Chmod(dir, 0o755)
	if _, err := mcp.SocketDir(); err == nil || !strings.Contains(err.Error(), "looser") {
		t.Fatalf("a loose session directory was accepted: %v", err)
	}
	os.Chmod(dir, 0o700)
}
