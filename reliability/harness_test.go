package reliability

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	_ "github.com/agentls/agentls/builtin"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

// server is the agentls language server running in process, with the fake
// editor of lsptest on the other end of a pipe.
type server struct {
	*lsptest.Editor
	t    testing.TB
	root string
}

// startServer runs a server and initializes it with root as the only
// workspace folder. Capabilities are VS Code's, but without
// workspace/configuration, so initOptions are the settings.
func startServer(t testing.TB, root string, initOptions any) *server {
	t.Helper()
	e := lsptest.New(t, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
		return lsp.New(lsp.Options{}).Run(ctx, r, w, c)
	})
	caps := lsptest.VSCodeCapabilities()
	delete(caps["workspace"].(map[string]any), "configuration")
	e.Initialize(caps, initOptions, root)
	return &server{Editor: e, t: t, root: root}
}

// call runs one tool and returns its result; a protocol error fails the test.
func (s *server) call(name string, args map[string]any) lsptest.Result {
	s.t.Helper()
	return s.CallTool(name, args)
}

// tempRoot is a new temporary directory with its symlinks resolved.
func tempRoot(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot describes every entry under dir (not following symlinks), except
// the subtrees named in skip (absolute paths): type, mode, size, content
// hash, link target. Modification times are left out on purpose: reading
// does not change them and every change of content or type shows anyway.
func snapshot(t testing.TB, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if slices.Contains(skip, p) {
			return fs.SkipDir
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v %d", info.Mode(), info.Size())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			desc += " " + hex.EncodeToString(sum[:8])
		}
		out[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffSnapshots lists what changed between two snapshots.
func diffSnapshots(before, after map[string]string) []string {
	var out []string
	for p, d := range before {
		if a, ok := after[p]; !ok {
			out = append(out, "removed "+p)
		} else if a != d {
			out = append(out, fmt.Sprintf("changed %s: %s => %s", p, d, a))
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, "created "+p)
		}
	}
	slices.Sort(out)
	return out
}

func short(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// syncBuffer is a bytes.Buffer safe for concurrent writers (a log sink).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
