package codeindex

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/workspace"
)

// A change of the secrets deny list reaches an index that is built: files
// now denied leave it at once, files allowed again come back.
func TestDenyListChange(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"main.go":       "package main\n\nfunc Visible() {}\n",
		"conf/creds.go": "package conf\n\nfunc SecretFunc() {}\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	updated := make(chan string, 16)
	ix := New(ws, Options{NoCache: true, Workers: 2})
	ix.onUpdate = func(rel string) { updated <- rel }
	t.Cleanup(func() { ix.Close() })
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	found := func(name string) bool { return len(ix.Definition(name, "")) > 0 }
	if !found("SecretFunc") || !found("Visible") {
		t.Fatal("the build missed a file")
	}

	ws.SetDeny([]string{"conf/"})
	if found("SecretFunc") || len(ix.Search(SearchQuery{Query: "Secret"})) > 0 {
		t.Error("a file denied after the build is still in the index")
	}
	if _, ok := ix.Outline("conf/creds.go"); ok {
		t.Error("outline of a denied file")
	}
	if !found("Visible") {
		t.Error("a file that is not denied left the index")
	}
	<-updated // the walk that follows the change
	if found("SecretFunc") {
		t.Error("the walk after the change indexed a denied file")
	}
	// A denied file that changes on disk stays out.
	ix.FileChanged(filepath.Join(dir, "conf", "creds.go"))
	if found("SecretFunc") {
		t.Error("FileChanged indexed a denied file")
	}

	ws.SetDeny(nil)
	ix.Status() // a query notices the change
	for rel := range updated {
		if rel == "." {
			break
		}
	}
	if !found("SecretFunc") {
		t.Error("a file allowed again did not come back")
	}
}
