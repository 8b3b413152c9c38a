package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A Session is one agent's view of one workspace folder: LSP has one per
// folder, MCP one per connection, the command line one per call. It travels
// in the context of every tool call (WithSession, From).
type Session struct {
	WS     *Workspace
	Editor Editor
	// Reads enforces read-before-write; nil turns the rule off (the command
	// line, where each call is its own session).
	Reads *ReadTracker
	// Ask puts a yes/no question to the user (approvals); nil when nobody
	// can be asked.
	Ask func(ctx context.Context, question string) (bool, error)
	// Settings is the client's "agentls" configuration object (may be nil).
	// Set it with SetSettings once the session is in use: tools read it
	// concurrently, and SetSettings also applies the settings that belong
	// to the workspace (secrets.deny).
	Settings json.RawMessage

	parent *Session // set by Derive: attachments are the parent's

	settingsMu sync.RWMutex // guards Settings after NewSession

	mu       sync.Mutex
	attached map[any]any
	order    []any // attachment keys in creation order
	closed   bool
	// tempDir is the session's private temporary folder (see TempDir):
	// made on first use when hasTemp, removed by Close.
	hasTemp bool
	tempDir string
}

// NewSession makes a session over ws writing through ed (DiskEditor{ws}
// when nil), with a private TempDir.
func NewSession(ws *Workspace, ed Editor, reads *ReadTracker) (*Session, error) {
	if ws == nil {
		return nil, errors.New("new session: no workspace")
	}
	if ed == nil {
		ed = DiskEditor{WS: ws}
	}
	return &Session{WS: ws, Editor: ed, Reads: reads, hasTemp: true, attached: map[any]any{}}, nil
}

// TempDir returns the session's private temporary folder, which Close
// removes with everything in it. It is made on first use (most sessions,
// a one-shot grep, never need one, and making and removing a folder in
// the system's temporary directory costs a fresh process ~0.3 ms); "" for
// a Session not made by NewSession or Derive.
func (s *Session) TempDir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !s.hasTemp:
		return "", nil
	case s.closed:
		return "", errors.New("session temp dir: the session is closed")
	case s.tempDir != "":
		return s.tempDir, nil
	}
	dir, err := mkSessionDir()
	if err != nil {
		return "", fmt.Errorf("session temp dir: %w", err)
	}
	s.tempDir = dir
	return dir, nil
}

// Derive returns a session that shares s's workspace, editor, approvals,
// settings and attachments (code index, search tables, background jobs)
// but tracks its own reads: a second agent attached to the same editor
// session (MCP --attach) must read a file itself before editing it. Its
// Close removes only its own TempDir; the attachments stay with s.
func (s *Session) Derive(reads *ReadTracker) (*Session, error) {
	root := s
	for root.parent != nil {
		root = root.parent
	}
	s.settingsMu.RLock()
	settings := s.Settings
	s.settingsMu.RUnlock()
	return &Session{WS: s.WS, Editor: s.Editor, Reads: reads, hasTemp: true, Ask: s.Ask, Settings: settings, parent: root}, nil
}

// SetSettings replaces the session's settings (the client's "agentls"
// object; nil for none) and applies the workspace's own settings from it:
// "secrets.deny", a list of gitignore-style patterns added to DefaultDeny
// ("!pattern" allows a name again). A value of the wrong type is reported
// in the error and leaves the deny list as it was; the other settings are
// taken all the same. Safe to call while tools run.
func (s *Session) SetSettings(raw json.RawMessage) error {
	s.settingsMu.Lock()
	s.Settings = raw
	s.settingsMu.Unlock()
	var deny []string
	if raw, ok := lookupSetting(raw, "secrets.deny"); ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &deny); err != nil {
			return fmt.Errorf("setting secrets.deny must be a list of path patterns (like [\"*.secret\", \"!.env.example\"]): %s", bytes.TrimSpace(raw))
		}
	}
	s.WS.SetDeny(deny)
	return nil
}

// Setting decodes the setting at dottedKey ("bash.allow",
// "webFetch.allowPrivate") of s.Settings into dst. Keys are looked up as
// nested objects; a literal dotted key ({"bash.allow": …}) is found too.
// It reports false when the key is absent or does not decode into dst.
func (s *Session) Setting(dottedKey string, dst any) bool {
	s.settingsMu.RLock()
	settings := s.Settings
	s.settingsMu.RUnlock()
	if len(settings) == 0 {
		return false
	}
	raw, ok := lookupSetting(settings, dottedKey)
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return false
	}
	return json.Unmarshal(raw, dst) == nil
}

func lookupSetting(obj json.RawMessage, key string) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return nil, false
	}
	if v, ok := m[key]; ok {
		return v, true
	}
	// Try every split point: "a.b.c" as a → "b.c", then "a.b" → "c".
	for i := 0; i < len(key); i++ {
		if key[i] != '.' {
			continue
		}
		if v, ok := m[key[:i]]; ok {
			if r, ok := lookupSetting(v, key[i+1:]); ok {
				return r, true
			}
		}
	}
	return nil, false
}

// Attach returns the session's object for key, calling create the first
// time (a shell job manager, a code index); create runs under the
// session's lock and must not call Attach. Objects that implement
// io.Closer are closed by Close, newest first. After Close, Attach returns
// a fresh object that it has already closed, so nothing outlives the
// session.
func (s *Session) Attach(key any, create func() any) any {
	if s.parent != nil {
		return s.parent.Attach(key, create)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.attached[key]; ok {
		return v
	}
	v := create()
	if s.closed {
		if c, ok := v.(io.Closer); ok {
			c.Close()
		}
		return v
	}
	if s.attached == nil {
		s.attached = map[any]any{}
	}
	s.attached[key] = v
	s.order = append(s.order, key)
	return v
}

// Close closes the attachments that implement io.Closer (newest first) and
// removes the TempDir if one was made. Only the first call does anything.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	order, attached, tempDir := s.order, s.attached, s.tempDir
	s.order, s.attached = nil, nil
	s.mu.Unlock()
	var errs []error
	for i := len(order) - 1; i >= 0; i-- {
		if c, ok := attached[order[i]].(io.Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if tempDir != "" {
		if err := os.RemoveAll(tempDir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

type sessionKey struct{}
type progressKey struct{}

// WithSession returns ctx carrying s.
func WithSession(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// From returns the session in ctx, or an error the model can act on.
func From(ctx context.Context) (*Session, error) {
	if s, ok := ctx.Value(sessionKey{}).(*Session); ok && s != nil {
		return s, nil
	}
	return nil, errors.New("no workspace folder: open a folder first")
}

// WithProgress returns ctx carrying a progress reporter for one call (the
// LSP side sends $/progress for the call's workDoneToken).
func WithProgress(ctx context.Context, fn func(msg string)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ProgressFrom returns the call's progress reporter; never nil.
func ProgressFrom(ctx context.Context) func(msg string) {
	if fn, ok := ctx.Value(progressKey{}).(func(string)); ok && fn != nil {
		return fn
	}
	return func(string) {}
}

// A ReadTracker remembers what the agent last read of each file, so that
// a write tool can refuse a file the agent has not read, or one that
// changed since (the user typed in its buffer, or it changed on disk).
// Write tools call CheckFresh before writing and MarkRead with the file as
// written afterwards; read tools call MarkRead. Safe for concurrent use.
type ReadTracker struct {
	mu    sync.Mutex
	reads map[string]readState
}

type readState struct {
	fromBuffer bool
	version    int32
	hash       [32]byte // File.Hash
	textHash   [32]byte // sha256 of File.Text
}

// NewReadTracker returns an empty tracker.
func NewReadTracker() *ReadTracker { return &ReadTracker{reads: map[string]readState{}} }

// MarkRead records that the agent has seen f.
func (t *ReadTracker) MarkRead(f *File) {
	st := readState{fromBuffer: f.FromBuffer, version: f.Version, hash: f.Hash, textHash: sha256.Sum256([]byte(f.Text))}
	t.mu.Lock()
	t.reads[f.Abs] = st
	t.mu.Unlock()
}

// CheckFresh returns nil when the agent's last read of cur.Abs still
// describes cur. Otherwise the error says what happened and what to do:
// "read <rel> before editing it…" or "<rel> changed since you read it
// (buffer edited|changed on disk); read it again…". A file whose text is
// what the agent read is fresh even if the buffer version moved (a save,
// an undo back) or the file was opened or closed in the editor.
func (t *ReadTracker) CheckFresh(cur *File) error {
	t.mu.Lock()
	st, ok := t.reads[cur.Abs]
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("read %s before editing it: use read_file first, so the edit is based on its current content", cur.Rel)
	}
	switch {
	case st.fromBuffer && cur.FromBuffer && st.version == cur.Version:
		return nil
	case !st.fromBuffer && !cur.FromBuffer && st.hash == cur.Hash:
		return nil
	}
	if sha256.Sum256([]byte(cur.Text)) == st.textHash {
		return nil
	}
	why := "changed on disk"
	if cur.FromBuffer {
		why = "buffer edited"
	}
	return fmt.Errorf("%s changed since you read it (%s); read it again before editing", cur.Rel, why)
}

// Paths lists the files read (or written) so far, absolute, sorted.
func (t *ReadTracker) Paths() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.reads))
	for p := range t.reads {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Forget drops what is known about abs (after a delete or a rename).
func (t *ReadTracker) Forget(abs string) {
	t.mu.Lock()
	delete(t.reads, abs)
	t.mu.Unlock()
}

type pathLock struct {
	mu   sync.Mutex
	refs int
}

// LockPath serialises writes of one file: it blocks while another caller
// holds abs and returns the function that releases it. Write tools hold it
// from CheckFresh through the write.
func (w *Workspace) LockPath(abs string) (unlock func()) {
	abs = filepath.Clean(abs)
	w.locksMu.Lock()
	l := w.locks[abs]
	if l == nil {
		l = &pathLock{}
		w.locks[abs] = l
	}
	l.refs++
	w.locksMu.Unlock()
	l.mu.Lock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Unlock()
			w.locksMu.Lock()
			l.refs--
			if l.refs == 0 {
				delete(w.locks, abs)
			}
			w.locksMu.Unlock()
		})
	}
}

// sessionDirPrefix starts the name of every session's TempDir, which goes
// on with the pid of the process that owns it: agentls-session-<pid>-*.
const sessionDirPrefix = "agentls-session-"

func mkSessionDir() (string, error) {
	return os.MkdirTemp("", sessionDirPrefix+strconv.Itoa(os.Getpid())+"-*")
}

// CleanStaleSessionDirs removes the session TempDirs (agentls-session-<pid>-*
// in the temp directory) that belong to this user and whose owning process
// is gone: a server killed with SIGKILL could not remove its own. A start
// calls it; a directory of a live process, another user's, or one whose
// name carries no pid is left alone.
func CleanStaleSessionDirs() {
	tmp := os.TempDir()
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), sessionDirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		p := filepath.Join(tmp, e.Name())
		if ownedByUs(p) {
			os.RemoveAll(p)
		}
	}
}
