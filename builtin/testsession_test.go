package builtin

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

// newTestSession builds a workspace in a temporary directory from a txtar
// archive (each file of the archive becomes a file of the workspace) and
// returns a context carrying a session over it: the disk as the editor and
// the read-before-write rule on. Tests of any tool in this package may use
// it. The session is closed when the test ends.
func newTestSession(t testing.TB, archive string) (context.Context, *workspace.Session) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range txtar.Parse([]byte(archive)).Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := workspace.NewSession(ws, workspace.DiskEditor{WS: ws}, workspace.NewReadTracker())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return workspace.WithSession(context.Background(), s), s
}

// testdataArchive returns testdata/name.
func testdataArchive(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// execTool runs the built-in name with args (a JSON string, or any value to
// marshal), straight through Execute.
func execTool(t testing.TB, ctx context.Context, name string, args any) (string, error) {
	t.Helper()
	tool, ok := registry.LookupBuiltin(name)
	if !ok {
		t.Fatalf("no built-in %s", name)
	}
	var raw json.RawMessage
	switch a := args.(type) {
	case string:
		raw = json.RawMessage(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	return tool.Execute(ctx, raw)
}

// mustExec is execTool that fails the test on an error.
func mustExec(t testing.TB, ctx context.Context, name string, args any) string {
	t.Helper()
	out, err := execTool(t, ctx, name, args)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return out
}

// wantErr runs a tool that must fail, with a message containing each of
// want.
func wantErr(t testing.TB, ctx context.Context, name string, args any, want ...string) string {
	t.Helper()
	out, err := execTool(t, ctx, name, args)
	if err == nil {
		t.Fatalf("%s %v succeeded, want an error; result:\n%s", name, args, out)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s %v: error %q does not contain %q", name, args, err, w)
		}
	}
	return err.Error()
}

// wantOut checks that out contains each of want.
func wantOut(t testing.TB, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("result does not contain %q; result:\n%s", w, out)
		}
	}
}

// readWS returns the bytes of a workspace file.
func readWS(t testing.TB, s *workspace.Session, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.WS.Root(), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeWS writes a workspace file, creating its directory.
func writeWS(t testing.TB, s *workspace.Session, rel, data string) {
	t.Helper()
	p := filepath.Join(s.WS.Root(), filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot describes every entry under dir (not following symlinks): its
// kind, mode and content, so that a later snapshot shows any change.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		v := info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		m[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sessionTemp is the session's TempDir.
func sessionTemp(t testing.TB, s *workspace.Session) string {
	t.Helper()
	dir, err := s.TempDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
