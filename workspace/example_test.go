package workspace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/workspace"
)

// The cycle every editing tool goes through: resolve, lock, read the merged
// view, check the read-before-write rule, write through the session's
// editor, and count what was written as read.
func Example_editCycle() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\r\nworld\r\n"), 0o644)

	ws, _ := workspace.New(dir)
	s, _ := workspace.NewSession(ws, workspace.DiskEditor{WS: ws}, workspace.NewReadTracker())
	defer s.Close()
	ctx := workspace.WithSession(context.Background(), s)

	edit := func(ctx context.Context, path, old, new string) error {
		s, err := workspace.From(ctx)
		if err != nil {
			return err
		}
		abs, _, err := s.WS.ResolveWrite(path)
		if err != nil {
			return err
		}
		defer s.WS.LockPath(abs)()
		f, err := s.WS.ReadFile(abs)
		if err != nil {
			return err
		}
		if err := s.Reads.CheckFresh(f); err != nil {
			return err
		}
		req := workspace.WriteRequest{Abs: abs, Text: strings.Replace(f.Text, old, new, 1), Format: f.Format, Version: -1}
		if f.FromBuffer {
			req.Version = f.Version
		}
		if _, err := s.Editor.Write(ctx, req); err != nil {
			return err
		}
		if f, err := s.WS.ReadFile(abs); err == nil && f.Text == req.Text {
			s.Reads.MarkRead(f)
		}
		return nil
	}

	fmt.Println(edit(ctx, "notes.txt", "world", "there"))
	f, _ := ws.ReadFile("notes.txt")
	s.Reads.MarkRead(f) // what read_file does
	fmt.Println(edit(ctx, "notes.txt", "world", "there"))
	fmt.Println(edit(ctx, "../elsewhere.txt", "a", "b") != nil)
	raw, _ := os.ReadFile(filepath.Join(dir, "notes.txt"))
	fmt.Printf("%q\n", raw)
	// Output:
	// read notes.txt before editing it: use read_file first, so the edit is based on its current content
	// <nil>
	// true
	// "hello\r\nthere\r\n"
}
