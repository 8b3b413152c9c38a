package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	_ "github.com/agentls/agentls/builtin"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/internal/wire"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

// testTool is a tool the tests control.
type testTool struct {
	name     string
	readOnly bool
	exec     func(ctx context.Context, args json.RawMessage) (string, error)
}

func (t testTool) Name() string            { return t.name }
func (t testTool) Description() string     { return "test tool " + t.name }
func (t testTool) Schema() json.RawMessage { return nil }
func (t testTool) ReadOnly() bool          { return t.readOnly }
func (t testTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	return t.exec(ctx, args)
}

// gate lets a test hold a tool call until it says so.
type gate struct {
	mu      sync.Mutex
	started chan struct{}
	release chan struct{}
}

var block gate

func (g *gate) reset() (started, release chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.started, g.release = make(chan struct{}, 16), make(chan struct{})
	return g.started, g.release
}

func (g *gate) chans() (chan struct{}, chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.started, g.release
}

func init() {
	block.reset()
	registry.RegisterBuiltin(testTool{name: "zz_block", readOnly: true, exec: func(ctx context.Context, _ json.RawMessage) (string, error) {
		started, release := block.chans()
		started <- struct{}{}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-release:
			return "released", nil
		}
	}})
	registry.RegisterBuiltin(testTool{name: "zz_progress", readOnly: true, exec: func(ctx context.Context, _ json.RawMessage) (string, error) {
		report := workspace.ProgressFrom(ctx)
		report("line 1")
		report("line 2")
		return "done", nil
	}})
	registry.RegisterBuiltin(testTool{name: "zz_touch", exec: func(ctx context.Context, args json.RawMessage) (string, error) {
		return "touched " + string(args), nil
	}})
	registry.RegisterBuiltin(testTool{name: "zz_ask", exec: func(ctx context.Context, args json.RawMessage) (string, error) {
		s, err := workspace.From(ctx)
		if err != nil {
			return "", err
		}
		if s.Ask == nil {
			return "", errors.New("nobody to ask")
		}
		ok, err := s.Ask(ctx, "Run `make deploy`?")
		if err != nil {
			return "", err
		}
		if !ok {
			return "", errors.New("denied")
		}
		return "ran", nil
	}})
}

// panicky is the tests' extension: a method that panics, an echo command,
// a position seam method, and it reports folders and settings.
type panicky struct {
	folders  chan *lsp.Folder
	settings chan string
}

func (p panicky) SettingsChanged(f *lsp.Folder, raw json.RawMessage) {
	select {
	case p.settings <- string(raw):
	default:
	}
}

func (panicky) Capabilities(caps *protocol.ServerCapabilities) {
	caps.Experimental = map[string]any{"test": true}
}
func (panicky) Commands() map[string]lsp.CommandFunc {
	return map[string]lsp.CommandFunc{"test.echo": func(ctx context.Context, f *lsp.Folder, arg json.RawMessage) (any, error) {
		uri := ""
		if f != nil {
			uri = f.URI
		}
		return map[string]any{"folder": uri, "arg": arg}, nil
	}}
}
func (panicky) Methods() map[string]lsp.MethodFunc {
	return map[string]lsp.MethodFunc{
		"test/panic": func(context.Context, *lsp.Server, json.RawMessage) (any, error) {
			panic("boom")
		},
		// test/offset answers the byte offset of a position in an open
		// document, and the position of that offset: the navigation seam.
		"test/offset": func(_ context.Context, s *lsp.Server, raw json.RawMessage) (any, error) {
			var p struct {
				URI      string       `json:"uri"`
				Position lsp.Position `json:"position"`
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, lsp.InvalidParams("%v", err)
			}
			d, ok := s.Document(p.URI)
			if !ok {
				return nil, lsp.InvalidParams("%s is not open", p.URI)
			}
			off := s.Offset(d.Text, p.Position)
			return map[string]any{"offset": off, "position": s.Position(d.Text, off), "version": d.Version}, nil
		},
	}
}
func (p panicky) FolderOpened(f *lsp.Folder) func() {
	if p.folders != nil {
		p.folders <- f
	}
	return nil
}

type session struct {
	*lsptest.Editor
	t        testing.TB
	root     string
	folders  chan *lsp.Folder
	settings chan string // what the extension's SettingsChanged got
	srv      *lsp.Server
}

// start runs a server with opts against a fresh fake editor; root is a
// temporary folder with files (relative path → content).
func start(t *testing.T, opts lsp.Options, files map[string]string) *session {
	return startTB(t, opts, files)
}

func startB(b *testing.B, files map[string]string) *session {
	return startTB(b, lsp.Options{}, files)
}

func startTB(t testing.TB, opts lsp.Options, files map[string]string) *session {
	t.Helper()
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	folders := make(chan *lsp.Folder, 8)
	settings := make(chan string, 64)
	opts.Extensions = append(opts.Extensions, panicky{folders: folders, settings: settings})
	srv := lsp.New(opts)
	e := lsptest.New(t, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
		return srv.Run(ctx, r, w, c)
	})
	return &session{Editor: e, t: t, root: root, folders: folders, settings: settings, srv: srv}
}

func (s *session) path(rel string) string { return filepath.Join(s.root, filepath.FromSlash(rel)) }

func (s *session) folder() *lsp.Folder {
	s.t.Helper()
	select {
	case f := <-s.folders:
		return f
	case <-time.After(lsptest.Timeout):
		s.t.Fatal("no folder opened")
		return nil
	}
}

func (s *session) disk(rel string) string {
	s.t.Helper()
	b, err := os.ReadFile(s.path(rel))
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

func code(err error) int64 {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return 0
}

func mustContain(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s = %q, want it to contain %q", what, got, w)
		}
	}
}
