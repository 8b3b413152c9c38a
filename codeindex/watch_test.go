package codeindex

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentls/agentls/workspace"
)

// TestWatchDisk: files written, created in a new directory and removed
// behind the index's back reach it through fsnotify.
func TestWatchDisk(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\nfunc A() {}\n"), 0o644)
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	updates := make(chan string, 100)
	ix := New(ws, Options{NoCache: true, Workers: 1})
	ix.onUpdate = func(p string) { updates <- p }
	defer ix.Close()
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := ix.WatchDisk(); err != nil {
		t.Fatal(err)
	}
	// waitFor reads updates until cond holds (bounded).
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for !cond() {
			select {
			case <-updates:
			case <-deadline:
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\nfunc B() {}\n"), 0o644)
	waitFor("B", func() bool { return len(ix.Definition("B", "")) == 1 && len(ix.Definition("A", "")) == 0 })
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	waitFor("sub watched", func() bool { return true })
	os.WriteFile(filepath.Join(dir, "sub", "c.go"), []byte("package sub\nfunc C() {}\n"), 0o644)
	waitFor("C", func() bool { return len(ix.Definition("C", "")) == 1 })
	os.Remove(filepath.Join(dir, "a.go"))
	waitFor("B removed", func() bool { return len(ix.Definition("B", "")) == 0 })
}
