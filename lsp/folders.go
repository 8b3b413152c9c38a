package lsp

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

// Folder is one workspace folder of the session: its workspace, the agent
// session that travels with every tool call, and the folder's registry.
type Folder struct {
	srv     *Server
	URI     string
	Name    string
	WS      *workspace.Workspace
	Session *workspace.Session

	reg      atomic.Pointer[registry.Registry]
	settings atomic.Pointer[settings]
	cfgSeq   atomic.Uint64

	allowMu sync.Mutex
	allowed map[string]bool // "Allow for this session" answers, by tool name or question

	closers []func()
	ready   chan struct{} // closed when the folder's leftover temp files are cleaned
	opened  atomic.Bool   // the extensions know the folder: settings changes go to them
}

// Log is the server's logger.
func (f *Folder) Log() *slog.Logger { return f.srv.log }

// ClientWatchesFiles reports whether the client said it can watch files
// for the server (dynamic registration of workspace/didChangeWatchedFiles),
// so that changes on disk arrive as notifications; otherwise an extension
// that follows the disk watches it itself.
func (f *Folder) ClientWatchesFiles() bool {
	f.srv.mu.Lock()
	defer f.srv.mu.Unlock()
	return f.srv.client.watchedFilesDynam
}

// waitReady waits until the folder's start-up cleaning is done.
func (f *Folder) waitReady(ctx context.Context) error {
	select {
	case <-f.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Registry is the folder's current tool registry.
func (f *Folder) Registry() *registry.Registry { return f.reg.Load() }

func (f *Folder) currentSettings() settings { return *f.settings.Load() }

// addFolder starts a session for wf; a folder that cannot be opened is
// reported to the user and skipped.
func (s *Server) addFolder(wf workspaceFolder) {
	path, ok := uriToPath(wf.URI)
	if !ok {
		s.showMessage(1, "agentls: workspace folder %s is not a file URI; it is ignored", wf.URI)
		return
	}
	s.mu.Lock()
	for _, f := range s.folders {
		if f.URI == wf.URI {
			s.mu.Unlock()
			return
		}
	}
	global := s.global
	s.mu.Unlock()

	ws, err := workspace.New(path)
	if err != nil {
		s.showMessage(1, "agentls: cannot open workspace folder %s: %v", path, err)
		return
	}
	f := &Folder{srv: s, URI: wf.URI, Name: wf.Name, WS: ws, allowed: make(map[string]bool), ready: make(chan struct{})}
	sess, err := workspace.NewSession(ws, &editor{s: s, f: f}, workspace.NewReadTracker())
	if err != nil {
		s.showMessage(1, "agentls: cannot start a session for %s: %v", path, err)
		return
	}
	f.Session = sess
	sess.Ask = func(ctx context.Context, question string) (bool, error) { return s.askSession(ctx, f, question) }
	s.applySettings(f, global)

	s.mu.Lock()
	s.folders = append(s.folders, f)
	// Documents opened before this folder now belong to it too.
	var opened []document
	for _, d := range s.docs {
		if d.path != "" && ws.Contains(d.path) {
			d.folders = append(d.folders, f)
			opened = append(opened, *d)
		}
	}
	s.mu.Unlock()
	for _, d := range opened {
		ws.Open(d.path, d.version, d.text)
	}
	// Temp files of writes a crash interrupted are removed in the
	// background (a walk of the whole folder); tool calls wait for it, so
	// that it never takes the temp file of a write in progress.
	root := ws.Root()
	s.goOwned(func() {
		defer close(f.ready)
		workspace.CleanTemp(root)
	})
	for _, ext := range s.opts.Extensions {
		if closed := ext.FolderOpened(f); closed != nil {
			f.closers = append(f.closers, closed)
		}
	}
	f.opened.Store(true)
	s.settingsChanged(f, f.currentSettings())
	s.log.Info("folder added", "uri", f.URI, "root", ws.Root())
}

// removeFolder ends the folder's session.
func (s *Server) removeFolder(uri string) {
	s.mu.Lock()
	i := slices.IndexFunc(s.folders, func(f *Folder) bool { return f.URI == uri })
	if i < 0 {
		s.mu.Unlock()
		return
	}
	f := s.folders[i]
	s.folders = slices.Delete(s.folders, i, i+1)
	for _, d := range s.docs {
		d.folders = slices.DeleteFunc(d.folders, func(g *Folder) bool { return g == f })
	}
	s.mu.Unlock()
	s.closeFolder(f)
}

func (s *Server) closeFolder(f *Folder) {
	for _, c := range slices.Backward(f.closers) {
		c()
	}
	if err := f.Session.Close(); err != nil {
		s.log.Info("closing session", "uri", f.URI, "err", err)
	}
	s.log.Info("folder closed", "uri", f.URI)
}

func (s *Server) closeFolders() {
	s.mu.Lock()
	folders := s.folders
	s.folders = nil
	s.mu.Unlock()
	for _, f := range folders {
		s.closeFolder(f)
	}
}

// foldersForLocked lists every folder containing path. s.mu must be held.
func (s *Server) foldersForLocked(path string) []*Folder {
	var out []*Folder
	for _, f := range s.folders {
		if f.WS.Contains(path) {
			out = append(out, f)
		}
	}
	return out
}

// folderForLocked is the innermost folder containing path. s.mu must be held.
func (s *Server) folderForLocked(path string) *Folder {
	var best *Folder
	for _, f := range s.folders {
		if f.WS.Contains(path) && (best == nil || len(f.WS.Root()) > len(best.WS.Root())) {
			best = f
		}
	}
	return best
}

// Folders lists the open folders in the order they were added.
func (s *Server) Folders() []*Folder {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.folders)
}

// route picks the folder for a command: the folder named by workspace (a
// folder URI), else the innermost folder containing pathArg when it is
// absolute, else the first folder. ok is false only when workspace names
// no open folder.
func (s *Server) route(workspaceURI, pathArg string) (f *Folder, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if workspaceURI != "" {
		want := strings.TrimSuffix(workspaceURI, "/")
		wantPath, isFile := uriToPath(workspaceURI)
		for _, f := range s.folders {
			if strings.TrimSuffix(f.URI, "/") == want {
				return f, true
			}
			if isFile && f.WS.Root() == wantPath {
				return f, true
			}
		}
		return nil, false
	}
	if pathArg != "" {
		if p, isURI := uriToPath(pathArg); isURI {
			pathArg = p
		}
		if filepath.IsAbs(pathArg) {
			if f := s.folderForLocked(pathArg); f != nil {
				return f, true
			}
		}
	}
	if len(s.folders) > 0 {
		return s.folders[0], true
	}
	return nil, true
}

func (s *Server) didChangeWorkspaceFolders(raw json.RawMessage) {
	var p struct {
		Event struct {
			Added   []workspaceFolder `json:"added"`
			Removed []workspaceFolder `json:"removed"`
		} `json:"event"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		s.log.Info("bad didChangeWorkspaceFolders", "err", err)
		return
	}
	for _, wf := range p.Event.Removed {
		s.removeFolder(wf.URI)
	}
	s.mu.Lock()
	pull := s.client.configuration
	s.mu.Unlock()
	for _, wf := range p.Event.Added {
		s.addFolder(wf)
		if pull {
			s.mu.Lock()
			var f *Folder
			if i := slices.IndexFunc(s.folders, func(f *Folder) bool { return f.URI == wf.URI }); i >= 0 {
				f = s.folders[i]
			}
			s.mu.Unlock()
			if f != nil {
				s.pullSettings(f)
			}
		}
	}
}

// applySettings makes st the folder's settings. The folder keeps one
// registry for its whole life (plugin tools live in it too): a change of
// tools.disabled removes and re-adds built-ins in place, which changes its
// revision and digest. Extensions that watch settings are told.
func (s *Server) applySettings(f *Folder, st settings) {
	if s.opts.Settings != nil {
		raw, problems := s.opts.Settings(f.WS.Root(), st.Raw)
		for _, msg := range problems {
			s.showMessage(2, "agentls settings: %s", msg)
		}
		// The editor's own problems were shown when it sent them.
		_, shown := parseSettings(st.Raw, s.log)
		merged, all := parseSettings(raw, s.log)
		for _, msg := range all {
			if !slices.Contains(shown, msg) {
				s.showMessage(2, "agentls settings: %s", msg)
			}
		}
		st = merged
	}
	old := f.settings.Load()
	if f.reg.Load() == nil {
		reg, err := registry.NewBuiltinFor(s.clientCaps().features(), st.Disabled...)
		if err != nil {
			s.showMessage(2, "agentls: %v", err)
		}
		f.reg.Store(reg)
	} else if !slices.Equal(old.Disabled, st.Disabled) {
		s.updateDisabled(f.reg.Load(), old.Disabled, st.Disabled)
	}
	f.settings.Store(&st)
	if err := f.Session.SetSettings(st.Raw); err != nil {
		s.showMessage(2, "agentls: %v", err)
	}
	if f.opened.Load() {
		s.settingsChanged(f, st)
	}
}

// settingsChanged tells the extensions and the client that f's settings
// took effect.
func (s *Server) settingsChanged(f *Folder, st settings) {
	for _, ext := range s.opts.Extensions {
		if w, ok := ext.(SettingsWatcher); ok {
			w.SettingsChanged(f, st.Raw)
		}
	}
	s.conn.Notify("window/logMessage", protocol.LogMessageParams{Type: protocol.MessageTypeLog, Message: "agentls: settings applied to " + f.URI})
}

// updateDisabled removes the built-ins newly in disabled and re-adds those
// no longer in it.
func (s *Server) updateDisabled(reg *registry.Registry, was, now []string) {
	var unknown []string
	for _, name := range now {
		if slices.Contains(was, name) {
			continue
		}
		if _, ok := registry.LookupBuiltin(name); !ok {
			unknown = append(unknown, name)
			continue
		}
		reg.Remove(name)
	}
	for _, name := range was {
		if slices.Contains(now, name) {
			continue
		}
		if t, ok := registry.LookupBuiltin(name); ok {
			if f := registry.Requires(t); f != "" && !slices.Contains(s.clientCaps().features(), f) {
				continue
			}
			if err := reg.Add(t); err != nil {
				s.log.Error("re-adding a built-in", "tool", name, "err", err)
			}
		}
	}
	if len(unknown) > 0 {
		s.showMessage(2, "agentls: tools.disabled names tools that are not built-ins: %s", strings.Join(unknown, ", "))
	}
}
