package codeindex

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/workspace"
)

// TestForSeesOpenBuffers: an index made after the editor opened buffers
// (For runs at the first code_index call) indexes them as every other tool
// reads them: the buffer's text in place of its disk file's, and a buffer
// with no file on disk (in a directory on disk or in one only buffers
// make) like a file; closed, the latter is gone.
func TestForSeesOpenBuffers(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\nfunc OnDisk() {}\n"), 0o644)
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	root := ws.Root()
	ws.Open(filepath.Join(root, "a.go"), 1, "package p\nfunc Edited() {}\n")
	ws.Open(filepath.Join(root, "b.go"), 1, "package p\nfunc Unsaved() {}\n")
	ws.Open(filepath.Join(root, "newpkg", "n.go"), 1, "package newpkg\nfunc InNewDir() {}\n")
	sess, err := workspace.NewSession(ws, workspace.DiskEditor{WS: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ix := For(sess, Options{NoCache: true})
	if err := ix.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"Edited": 1, "OnDisk": 0, "Unsaved": 1, "InNewDir": 1} {
		if got := len(ix.Definition(name, "")); got != want {
			t.Errorf("%s: %d definitions, want %d", name, got, want)
		}
	}
	ws.Close(filepath.Join(root, "newpkg", "n.go"))
	ws.Close(filepath.Join(root, "a.go"))
	for name, want := range map[string]int{"Edited": 0, "OnDisk": 1, "InNewDir": 0} {
		if got := len(ix.Definition(name, "")); got != want {
			t.Errorf("after close, %s: %d definitions, want %d", name, got, want)
		}
	}
}
