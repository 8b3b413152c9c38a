package mcp

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

// An editor session (agentls serve) listens on a Unix socket so that
// `agentls mcp --attach` can run MCP inside it. There is deliberately no TCP
// listener: a local web page can open a WebSocket or a fetch to a loopback
// port, but not to a Unix socket. The socket and its lock file live in a
// per-user 0700 directory, are 0600, and a connection must present the
// session's random token in its first line before anything else happens.

// Lock is the lock file written beside each session's socket.
type Lock struct {
	PID              int      `json:"pid"`
	WorkspaceFolders []string `json:"workspaceFolders"`
	Socket           string   `json:"socket"`
	Token            string   `json:"token"`
	Version          string   `json:"version"`

	path string // the lock file itself
}

// hello is the first line an attaching client sends; welcome the answer.
type hello struct {
	Token string `json:"token"`
	Dir   string `json:"dir"` // the client's working directory: picks the folder
}

type welcome struct {
	OK     bool   `json:"ok"`
	Folder string `json:"folder,omitempty"`
	Error  string `json:"error,omitempty"`
}

// SocketDir returns the per-user directory of session sockets, creating it
// 0700: $XDG_RUNTIME_DIR/agentls, else agentls-<uid> under the temp dir. A
// directory that exists with looser permissions or another owner is refused.
func SocketDir() (string, error) {
	var dir string
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		dir = filepath.Join(rt, "agentls")
	} else {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("agentls-%d", os.Getuid()))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("session directory: %w", err)
	}
	if err := checkPrivate(dir, true); err != nil {
		return "", err
	}
	return dir, nil
}

// checkPrivate refuses a path not owned by this user or readable by others
// (a directory must be 0700, a file or socket 0600).
func checkPrivate(path string, isDir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: cannot check its owner", path)
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to this user: refusing it", path, st.Uid)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink: refusing it", path)
	}
	want := fs.FileMode(0o600)
	if isDir {
		want = 0o700
	}
	if perm := fi.Mode().Perm(); perm&^want != 0 {
		return fmt.Errorf("%s has mode %#o, looser than %#o: refusing it", path, perm, want)
	}
	return nil
}

// Resolver finds the session an attaching client runs in: the registry and
// a fresh *workspace.Session (its own read-before-write tracking) of the
// folder that contains dir. The listener closes the session when the
// connection ends.
type Resolver func(dir string) (Attachment, error)

// Attachment is what an attached connection runs in.
type Attachment struct {
	Registry *registry.Registry
	Session  *workspace.Session
	Gate     Gate // the editor's approval gate; nil lets every call run
}

// Listener accepts attaching MCP clients for one editor session.
type Listener struct {
	ln      net.Listener
	lock    Lock
	resolve Resolver
	log     *slog.Logger

	// ctx ends every attached connection's calls when the session closes.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
	conns  map[net.Conn]struct{}
}

// Listen creates the socket and the lock file and serves attaching clients
// in the background until Close. folders are the session's workspace folder
// paths (kept current with SetFolders).
func Listen(folders []string, version string, resolve Resolver, log *slog.Logger) (*Listener, error) {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dir, err := SocketDir()
	if err != nil {
		return nil, err
	}
	CleanStale(dir)
	var tok [32]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, fmt.Errorf("session token: %w", err)
	}
	pid := os.Getpid()
	sock := filepath.Join(dir, fmt.Sprintf("agentls-%d.sock", pid))
	_ = os.Remove(sock)
	// The umask makes the socket 0600 from its creation: no window in which
	// another user could connect before the chmod.
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", sock)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("session socket: %w", err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("session socket: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Listener{
		ctx:     ctx,
		cancel:  cancel,
		ln:      ln,
		resolve: resolve,
		log:     log,
		conns:   map[net.Conn]struct{}{},
		lock: Lock{
			PID: pid, WorkspaceFolders: append([]string(nil), folders...), Socket: sock,
			Token: hex.EncodeToString(tok[:]), Version: version,
			path: filepath.Join(dir, fmt.Sprintf("agentls-%d.json", pid)),
		},
	}
	if err := l.writeLock(); err != nil {
		cancel()
		ln.Close()
		os.Remove(sock)
		return nil, err
	}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

// Socket is the path of the listening socket.
func (l *Listener) Socket() string { return l.lock.Socket }

// SetFolders rewrites the lock file with the session's current folders.
func (l *Listener) SetFolders(folders []string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.lock.WorkspaceFolders = append([]string(nil), folders...)
	return l.writeLockLocked()
}

func (l *Listener) writeLock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writeLockLocked()
}

func (l *Listener) writeLockLocked() error {
	data, err := json.MarshalIndent(l.lock, "", "  ")
	if err != nil {
		return err
	}
	if err := workspace.AtomicWrite(l.lock.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("session lock file: %w", err)
	}
	return os.Chmod(l.lock.path, 0o600)
}

// Close stops accepting, ends every attached connection, waits for them,
// and removes the socket and the lock file.
func (l *Listener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	err := l.ln.Close()
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	// Then the calls in flight end: their clients have seen the connection
	// close, not a result (the editor closed while they ran).
	l.cancel()
	l.wg.Wait()
	os.Remove(l.lock.Socket)
	os.Remove(l.lock.path)
	return err
}

func (l *Listener) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			c.Close()
			return
		}
		l.conns[c] = struct{}{}
		l.wg.Add(1)
		l.mu.Unlock()
		go func() {
			defer l.wg.Done()
			l.serve(c)
			l.mu.Lock()
			delete(l.conns, c)
			l.mu.Unlock()
			c.Close()
		}()
	}
}

// serve authenticates one connection and runs MCP on it.
func (l *Listener) serve(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReaderSize(c, 4096)
	line, err := br.ReadSlice('\n')
	if err != nil {
		if !errors.Is(err, io.EOF) { // EOF: a client checking who serves the socket
			l.log.Warn("attach: no hello", "err", err)
		}
		return
	}
	var h hello
	if err := json.Unmarshal(line, &h); err != nil || subtle.ConstantTimeCompare([]byte(h.Token), []byte(l.lock.Token)) != 1 {
		writeWelcome(c, welcome{Error: "authentication failed: wrong token"})
		l.log.Warn("attach: refused a connection with a wrong token")
		return
	}
	a, err := l.resolve(h.Dir)
	if err != nil {
		writeWelcome(c, welcome{Error: err.Error()})
		return
	}
	sess := a.Session
	defer sess.Close()
	if err := writeWelcome(c, welcome{OK: true, Folder: sess.WS.Root()}); err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	srv := NewServer(a.Registry, sess, l.lock.Version, l.log)
	srv.SetGate(a.Gate)
	if err := srv.ServeStream(l.ctx, io.NopCloser(br), c); err != nil && !errors.Is(err, io.EOF) {
		l.log.Info("attach: connection ended", "err", err)
	}
}

func writeWelcome(w io.Writer, m welcome) error {
	data, _ := json.Marshal(m)
	_, err := w.Write(append(data, '\n'))
	return err
}

// pidAlive reports whether a process with pid exists.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// CleanStale removes lock files (and their sockets) of sessions whose
// process is gone.
func CleanStale(dir string) {
	locks, _ := readLocks(dir)
	for _, lk := range locks {
		if !pidAlive(lk.PID) {
			os.Remove(lk.path)
			if lk.Socket != "" && filepath.Dir(lk.Socket) == dir {
				os.Remove(lk.Socket)
			}
		}
	}
}

func readLocks(dir string) ([]Lock, error) {
	names, err := filepath.Glob(filepath.Join(dir, "agentls-*.json"))
	if err != nil {
		return nil, err
	}
	var out []Lock
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		var lk Lock
		if json.Unmarshal(data, &lk) != nil {
			os.Remove(name) // unreadable: not a lock we can ever use
			continue
		}
		lk.path = name
		out = append(out, lk)
	}
	return out, nil
}

// Sessions lists the live editor sessions one can attach to, removing the
// lock files of dead ones and skipping any whose files are not private.
func Sessions() ([]Lock, error) {
	dir, err := SocketDir()
	if err != nil {
		return nil, err
	}
	CleanStale(dir)
	locks, err := readLocks(dir)
	if err != nil {
		return nil, err
	}
	var out []Lock
	for _, lk := range locks {
		if checkPrivate(lk.path, false) != nil || checkPrivate(lk.Socket, false) != nil {
			continue
		}
		out = append(out, lk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out, nil
}

// ErrNoSession means no running editor session has a folder containing the
// directory.
var ErrNoSession = errors.New("no running editor session has a workspace folder containing this directory")

// Find returns the session whose workspace folder contains dir (the
// deepest such folder when several do). A lock file whose socket is not
// served by the process it names (SO_PEERCRED: our uid, the lock's pid) is
// ignored, so a planted lock cannot win.
func Find(dir string) (Lock, string, error) {
	locks, err := Sessions()
	if err != nil {
		return Lock{}, "", err
	}
	dir = filepath.Clean(dir)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	var best Lock
	bestFolder := ""
	for _, lk := range locks {
		for _, f := range lk.WorkspaceFolders {
			if within(f, dir) && len(f) > len(bestFolder) && peerServes(lk) {
				best, bestFolder = lk, f
			}
		}
	}
	if bestFolder == "" {
		return Lock{}, "", fmt.Errorf("%w (%s)", ErrNoSession, dir)
	}
	return best, bestFolder, nil
}

// peerServes connects to lk's socket and checks its peer (checkPeer)
// without sending anything.
func peerServes(lk Lock) bool {
	c, err := net.DialTimeout("unix", lk.Socket, 5*time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	return checkPeer(c, lk) == nil
}

// within reports whether path is root or inside it, component-wise.
func within(root, path string) bool {
	root = filepath.Clean(root)
	if path == root {
		return true
	}
	return strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// dial connects to the editor session lk and authenticates; the session
// answers with the workspace folder the connection runs in. After it, the
// connection speaks MCP; br holds what the session sent after its welcome.
func dial(ctx context.Context, lk Lock, dir string) (c net.Conn, br *bufio.Reader, folder string, err error) {
	if err := checkPrivate(lk.Socket, false); err != nil {
		return nil, nil, "", err
	}
	var d net.Dialer
	c, err = d.DialContext(ctx, "unix", lk.Socket)
	if err != nil {
		return nil, nil, "", fmt.Errorf("connecting to the editor session (pid %d): %w", lk.PID, err)
	}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	// The token goes only to the process the lock file names.
	if err := checkPeer(c, lk); err != nil {
		return nil, nil, "", err
	}
	data, _ := json.Marshal(hello{Token: lk.Token, Dir: dir})
	if _, err := c.Write(append(data, '\n')); err != nil {
		return nil, nil, "", err
	}
	br = bufio.NewReader(c)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, nil, "", fmt.Errorf("the editor session (pid %d) closed the connection: %w", lk.PID, err)
	}
	var w welcome
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, nil, "", fmt.Errorf("the editor session (pid %d) answered garbage: %w", lk.PID, err)
	}
	if !w.OK {
		return nil, nil, "", fmt.Errorf("the editor session (pid %d) refused: %s", lk.PID, w.Error)
	}
	return c, br, w.Folder, nil
}
