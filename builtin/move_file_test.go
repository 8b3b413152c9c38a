package builtin

import (
	"os"
	"path/filepath"
	"testing"
)

func exists(t *testing.T, root, rel string) bool {
	t.Helper()
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil
}

func TestMoveFile(t *testing.T) {
	ctx, s := newTestSession(t, testdataArchive(t, "files.txtar"))
	root := s.WS.Root()
	mustExec(t, ctx, "read_file", `{"path":"main.go"}`)
	out := mustExec(t, ctx, "move_file", `{"source":"main.go","destination":"cmd/app/main.go"}`)
	wantOut(t, out, "Moved main.go → cmd/app/main.go.")
	if exists(t, root, "main.go") || !exists(t, root, "cmd/app/main.go") {
		t.Fatal("file not moved")
	}
	// It was read before the move: it can be edited under its new name.
	mustExec(t, ctx, "edit_file", `{"path":"cmd/app/main.go","old_string":"hello","new_string":"moved"}`)

	// An existing destination needs overwrite.
	wantErr(t, ctx, "move_file", `{"source":"docs/readme.md","destination":"cmd/app/main.go"}`, "cmd/app/main.go already exists; pass overwrite: true")
	out = mustExec(t, ctx, "move_file", `{"source":"docs/readme.md","destination":"cmd/app/main.go","overwrite":true}`)
	wantOut(t, out, "Moved docs/readme.md → cmd/app/main.go, replacing the file that was there.")
	if got := readWS(t, s, "cmd/app/main.go"); got != "# Docs\n" {
		t.Errorf("destination = %q", got)
	}
	// The replaced file's read state is gone with it.
	wantErr(t, ctx, "edit_file", `{"path":"cmd/app/main.go","old_string":"Docs","new_string":"D"}`, "read cmd/app/main.go before editing it")

	// Directories move with everything in them.
	out = mustExec(t, ctx, "move_file", `{"source":"util","destination":"pkg/util"}`)
	wantOut(t, out, "Moved directory util/ → pkg/util/.")
	if !exists(t, root, "pkg/util/deep/deeper/leaf.go") || exists(t, root, "util") {
		t.Error("directory not moved")
	}
	wantErr(t, ctx, "move_file", `{"source":"pkg","destination":"pkg/inner"}`, "into itself")
	wantErr(t, ctx, "move_file", `{"source":"cmd/app/main.go","destination":"pkg"}`, "pkg is an existing directory")
	wantErr(t, ctx, "move_file", `{"source":"pkg","destination":"cmd/app/main.go","overwrite":true}`, "a directory cannot replace it")
	wantErr(t, ctx, "move_file", `{"source":"nope","destination":"x"}`, "nope does not exist")
	// A destination ending in / is a directory to move into, made if need be.
	wantOut(t, mustExec(t, ctx, "move_file", `{"source":"pkg/util/dup.go","destination":"lib/"}`), "Moved pkg/util/dup.go → lib/dup.go.")
	wantOut(t, mustExec(t, ctx, "move_file", `{"source":"lib","destination":"pkg/"}`), "Moved directory lib/ → pkg/lib/.")
	if !exists(t, root, "pkg/lib/dup.go") {
		t.Error("pkg/lib/dup.go missing")
	}
	wantErr(t, ctx, "move_file", `{"source":"pkg","destination":"pkg"}`, "source and destination are both pkg")
	wantErr(t, ctx, "move_file", `{"source":".","destination":"x"}`, "workspace root")
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	writeWS(t, s, ".git/HEAD", "ref: refs/heads/main\n")
	wantErr(t, ctx, "move_file", `{"source":".git/HEAD","destination":"HEAD"}`, ".git")
	wantErr(t, ctx, "move_file", `{"source":"pkg/util/dup.go","destination":".git/dup.go"}`, ".git")
	wantErr(t, ctx, "move_file", `{"source":".git","destination":"git"}`, ".git")
}

func TestDeleteFile(t *testing.T) {
	ctx, s := newTestSession(t, testdataArchive(t, "files.txtar"))
	root := s.WS.Root()
	out := mustExec(t, ctx, "delete_file", `{"path":"main.go"}`)
	wantOut(t, out, "Deleted main.go.\n--- a/main.go\n+++ b/main.go\n@@ -1,7 +0,0 @@\n-package main")
	if exists(t, root, "main.go") {
		t.Error("main.go still there")
	}
	wantErr(t, ctx, "delete_file", `{"path":"util"}`, "util is a directory with 3 entries; pass recursive: true")
	out = mustExec(t, ctx, "delete_file", `{"path":"util","recursive":true}`)
	wantOut(t, out, "Deleted directory util/ and the 3 files in it.")
	if exists(t, root, "util") {
		t.Error("util still there")
	}
	wantErr(t, ctx, "delete_file", `{"path":"util"}`, "util does not exist")
	wantErr(t, ctx, "delete_file", `{"path":".","recursive":true}`, "workspace root")
	wantErr(t, ctx, "delete_file", `{"path":"","recursive":true}`, "workspace root")
	os.MkdirAll(filepath.Join(root, ".git/objects"), 0o755)
	wantErr(t, ctx, "delete_file", `{"path":".git","recursive":true}`, ".git")
	wantErr(t, ctx, "delete_file", `{"path":".git/objects","recursive":true}`, ".git")
	// A nested repository is not taken down with its parent directory.
	os.MkdirAll(filepath.Join(root, "vendor/lib/.git"), 0o755)
	writeWS(t, s, "vendor/lib/a.go", "package lib\n")
	wantErr(t, ctx, "delete_file", `{"path":"vendor","recursive":true}`, "vendor contains a git repository (vendor/lib/.git)")
	if !exists(t, root, "vendor/lib/a.go") {
		t.Error("vendor was partly deleted")
	}
	// A symlink is deleted, not what it points to.
	os.Symlink("docs/readme.md", filepath.Join(root, "link.md"))
	mustExec(t, ctx, "delete_file", `{"path":"link.md"}`)
	if exists(t, root, "link.md") || !exists(t, root, "docs/readme.md") {
		t.Error("symlink delete went wrong")
	}
	// A deleted file that was read must be read again once recreated.
	mustExec(t, ctx, "read_file", `{"path":"docs/readme.md"}`)
	mustExec(t, ctx, "delete_file", `{"path":"docs/readme.md"}`)
	writeWS(t, s, "docs/readme.md", "# Docs\n")
	wantErr(t, ctx, "edit_file", `{"path":"docs/readme.md","old_string":"Docs","new_string":"D"}`, "read docs/readme.md before editing it")
}
