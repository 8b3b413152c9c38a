package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type closer struct {
	name   string
	closed *[]string
}

func (c closer) Close() error { *c.closed = append(*c.closed, c.name); return nil }

func TestSession(t *testing.T) {
	w := newWS(t, t.TempDir())
	s, err := NewSession(w, nil, NewReadTracker())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Editor.(DiskEditor); !ok {
		t.Errorf("default editor = %T", s.Editor)
	}
	tmp, err := s.TempDir()
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(tmp); err != nil || !st.IsDir() {
		t.Fatalf("TempDir: %v", err)
	}
	if again, _ := s.TempDir(); again != tmp {
		t.Errorf("TempDir again = %q, want %q", again, tmp)
	}
	writeFile(t, filepath.Join(tmp, "job.out"), "x")

	var closed []string
	a := s.Attach("shells", func() any { return closer{"shells", &closed} })
	b := s.Attach("shells", func() any { t.Error("created twice"); return nil })
	if a != b {
		t.Error("Attach returned a different object")
	}
	s.Attach("index", func() any { return closer{"index", &closed} })
	s.Attach("plain", func() any { return 42 })

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(closed, ",") != "index,shells" {
		t.Errorf("closed %v, want newest first", closed)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("TempDir kept: %v", err)
	}
	if dir, err := s.TempDir(); err == nil {
		t.Errorf("TempDir after Close = %q, want an error", dir)
	}
	if err := s.Close(); err != nil || len(closed) != 2 {
		t.Errorf("second Close: %v, %v", err, closed)
	}
	s.Attach("late", func() any { return closer{"late", &closed} })
	if len(closed) != 3 || closed[2] != "late" {
		t.Errorf("an attachment made after Close must be closed at once: %v", closed)
	}
}

func TestSessionContext(t *testing.T) {
	ctx := context.Background()
	if _, err := From(ctx); err == nil || !strings.Contains(err.Error(), "open a folder") {
		t.Errorf("From without a session: %v", err)
	}
	s := &Session{}
	got, err := From(WithSession(ctx, s))
	if err != nil || got != s {
		t.Errorf("From = %v, %v", got, err)
	}
	ProgressFrom(ctx)("nobody listens") // must not panic
	var msgs []string
	ProgressFrom(WithProgress(ctx, func(m string) { msgs = append(msgs, m) }))("half")
	if len(msgs) != 1 || msgs[0] != "half" {
		t.Errorf("progress = %v", msgs)
	}
}

func TestSetting(t *testing.T) {
	s := &Session{Settings: json.RawMessage(`{
		"bash": {"allow": ["go test"], "timeout": 30},
		"webFetch.allowPrivate": true,
		"tools": {"read_file": {"limit": 10}},
		"off": null
	}`)}
	var allow []string
	if !s.Setting("bash.allow", &allow) || len(allow) != 1 || allow[0] != "go test" {
		t.Errorf("bash.allow = %v", allow)
	}
	var priv bool
	if !s.Setting("webFetch.allowPrivate", &priv) || !priv {
		t.Error("literal dotted key not found")
	}
	var limit int
	if !s.Setting("tools.read_file.limit", &limit) || limit != 10 {
		t.Errorf("nested = %d", limit)
	}
	var n int
	if s.Setting("bash.missing", &n) || s.Setting("off", &n) || s.Setting("bash.allow", &n) {
		t.Error("absent, null or undecodable must be false")
	}
	if (&Session{}).Setting("bash.allow", &allow) {
		t.Error("no settings must be false")
	}
}

// TestReadBeforeWrite walks the rule through the Workspace API the way the
// write tools use it.
func TestReadBeforeWrite(t *testing.T) {
	w := newWS(t, t.TempDir())
	reads := NewReadTracker()
	p := filepath.Join(w.Root(), "a.txt")
	writeFile(t, p, "one\n")

	cur, err := w.ReadFile("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := reads.CheckFresh(cur); err == nil || !strings.Contains(err.Error(), "read a.txt before editing it") {
		t.Errorf("unread: %v", err)
	}
	reads.MarkRead(cur)
	if err := reads.CheckFresh(cur); err != nil {
		t.Errorf("just read: %v", err)
	}

	// Changed on disk behind the agent's back.
	writeFile(t, p, "two\n")
	cur, _ = w.ReadFile("a.txt")
	if err := reads.CheckFresh(cur); err == nil || !strings.Contains(err.Error(), "changed on disk") || !strings.Contains(err.Error(), "read it again") {
		t.Errorf("disk change: %v", err)
	}
	reads.MarkRead(cur)

	// Opened in the editor with the same text: still fresh.
	w.Open(p, 1, "two\n")
	cur, _ = w.ReadFile("a.txt")
	if err := reads.CheckFresh(cur); err != nil {
		t.Errorf("opened unchanged: %v", err)
	}
	// The user types.
	w.Change(p, 2, "two and more\n")
	cur, _ = w.ReadFile("a.txt")
	if err := reads.CheckFresh(cur); err == nil || !strings.Contains(err.Error(), "buffer edited") {
		t.Errorf("buffer change: %v", err)
	}
	reads.MarkRead(cur)
	if err := reads.CheckFresh(cur); err != nil {
		t.Errorf("re-read: %v", err)
	}
	w.Change(p, 3, "two and more\n") // a new version with the same text
	cur, _ = w.ReadFile("a.txt")
	if err := reads.CheckFresh(cur); err != nil {
		t.Errorf("same text, new version: %v", err)
	}
	reads.Forget(p)
	if err := reads.CheckFresh(cur); err == nil {
		t.Error("after Forget: fresh")
	}
}

func TestLockPath(t *testing.T) {
	w := newWS(t, t.TempDir())
	p := filepath.Join(w.Root(), "a")
	var mu sync.Mutex // detects overlap: TryLock fails if two hold the path
	var wg sync.WaitGroup
	var overlap error
	for range 16 {
		wg.Go(func() {
			for range 50 {
				unlock := w.LockPath(p)
				if !mu.TryLock() {
					overlap = errors.New("two writers held the same path")
				} else {
					mu.Unlock()
				}
				unlock()
				unlock() // idempotent
			}
		})
	}
	wg.Wait()
	if overlap != nil {
		t.Error(overlap)
	}
	// Different paths do not block each other.
	u1 := w.LockPath(p)
	u2 := w.LockPath(p + "2")
	u2()
	u1()
	if len(w.locks) != 0 {
		t.Errorf("%d locks left", len(w.locks))
	}
}

func TestDeriveSharesAttachmentsNotReads(t *testing.T) {
	ws, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	parent, err := NewSession(ws, nil, NewReadTracker())
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	type key struct{}
	obj := parent.Attach(key{}, func() any { return new(int) })
	child, err := parent.Derive(NewReadTracker())
	if err != nil {
		t.Fatal(err)
	}
	if got := child.Attach(key{}, func() any { return new(int) }); got != obj {
		t.Fatal("a derived session made its own attachment")
	}
	dir, err := child.TempDir()
	if err != nil {
		t.Fatal(err)
	}
	if parentDir, _ := parent.TempDir(); child.Reads == parent.Reads || dir == parentDir {
		t.Fatal("a derived session shares the read tracker or the temp dir")
	}
	child.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("Close of a derived session left its temp dir")
	}
	if got := parent.Attach(key{}, func() any { return new(int) }); got != obj {
		t.Fatal("Close of a derived session dropped the parent's attachment")
	}
}
