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
)

// TestAttachIgnoresPlantedLock: a lock file planted beside the real one,
// naming a deeper folder (so it would win) and a live pid, points at a
// socket that another process serves. The attaching client checks the
// socket's peer (SO_PEERCRED) before it sends a token, ignores that lock,
// attaches to the real session, and the planted socket never sees a
// token.
func TestAttachIgnoresPlantedLock(t *testing.T) {
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	folder := t.TempDir()
	os.WriteFile(filepath.Join(folder, "f.txt"), []byte("the real session\n"), 0o644)
	sub := filepath.Join(folder, "sub")
	os.Mkdir(sub, 0o755)
	real := listen(t, folder)

	// The impostor: a socket in the same private directory, served by this
	// process, in a lock that claims pid 1 (alive, and not us).
	dir := filepath.Dir(real.Socket())
	sock := filepath.Join(dir, "impostor.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Chmod(sock, 0o600)
	got := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			got <- line
			c.Close()
		}
	}()
	resolved, _ := filepath.EvalSymlinks(sub)
	lock, _ := json.Marshal(mcp.Lock{PID: 1, WorkspaceFolders: []string{resolved}, Socket: sock, Token: "planted", Version: "test"})
	if err := os.WriteFile(filepath.Join(dir, "agentls-planted.json"), lock, 0o600); err != nil {
		t.Fatal(err)
	}

	lk, f, err := mcp.Find(sub)
	if err != nil || lk.Socket != real.Socket() {
		t.Fatalf("Find(sub) = %s (%s), %v; want the real session %s", lk.Socket, f, err, real.Socket())
	}
	cs := proxyClient(t, &mcp.Proxy{Dir: sub, Version: "test"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: json.RawMessage(`{"path":"f.txt"}`)})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "the real session") {
		t.Fatalf("read_file through attach: %v %+v", err, res)
	}
	for {
		select {
		case line := <-got:
			if strings.Contains(line, "token") {
				t.Errorf("the planted socket was sent %q", line)
			}
			continue
		default:
		}
		break
	}
}
