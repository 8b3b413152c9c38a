package codeindex

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/workspace"
)

// TestForSession: the index of a session follows its editor buffers
// (workspace Open, Change, Close) and writes made through the workspace.
func TestForSession(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\nfunc A() {}\n"), 0o644)
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := workspace.NewSession(ws, workspace.DiskEditor{WS: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ix := For(sess, Options{NoCache: true})
	if For(sess) != ix {
		t.Fatal("For made a second index")
	}
	if err := ix.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(ws.Root(), "a.go")
	ws.Open(abs, 1, "package p\nfunc A() {}\nfunc Typed() {}\n")
	if len(ix.Definition("Typed", "")) != 1 {
		t.Error("didOpen not seen")
	}
	ws.Change(abs, 2, "package p\nfunc Renamed() {}\n")
	if len(ix.Definition("Typed", "")) != 0 || len(ix.Definition("Renamed", "")) != 1 {
		t.Error("didChange not seen")
	}
	ws.Close(abs)
	if len(ix.Definition("Renamed", "")) != 0 || len(ix.Definition("A", "")) != 1 || ix.OpenBuffers() != 0 {
		t.Error("didClose did not go back to the disk")
	}
	os.WriteFile(abs, []byte("package p\nfunc Written() {}\n"), 0o644)
	ws.NotifyChanged(abs)
	if len(ix.Definition("Written", "")) != 1 {
		t.Error("a write notified through the workspace not seen")
	}
}
