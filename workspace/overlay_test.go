package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestOverlay(t *testing.T) {
	w := newWS(t, t.TempDir())
	p := filepath.Join(w.Root(), "a.txt")
	if err := os.WriteFile(p, []byte("\xEF\xBB\xBFdisk\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var events []string
	cancel := w.OnChange(func(path string) { events = append(events, path) })

	w.Open(p, 1, "disk\r\n")
	b, ok := w.Buffer(p)
	if !ok || b.Version != 1 || b.Dirty {
		t.Fatalf("after Open: %+v, %v (same text as disk must not be dirty)", b, ok)
	}
	w.Change(p, 2, "typed\n")
	if b, _ := w.Buffer(p); !b.Dirty || b.Text != "typed\n" {
		t.Errorf("after Change: %+v", b)
	}
	f, err := w.ReadFile("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !f.FromBuffer || f.Version != 2 || f.Text != "typed\n" || !f.Format.BOM {
		t.Errorf("ReadFile from buffer = %+v (must keep the disk's BOM in Format)", f)
	}
	raw, fromBuf, _ := w.ReadRaw(p)
	if !fromBuf || string(raw) != "typed\n" {
		t.Errorf("ReadRaw = %q, %v", raw, fromBuf)
	}
	w.Change(p, 3, "disk\n") // typed back to the disk text
	if b, _ := w.Buffer(p); b.Dirty {
		t.Error("buffer equal to disk text must not be dirty")
	}
	w.Change(p, 4, "saved\n")
	w.Saved(p)
	if b, _ := w.Buffer(p); b.Dirty {
		t.Error("after Saved: dirty")
	}
	w.Close(p)
	if _, ok := w.Buffer(p); ok {
		t.Error("after Close: still open")
	}
	if f, _ := w.ReadFile("a.txt"); f.FromBuffer || f.Text != "disk\n" {
		t.Errorf("after Close: ReadFile = %+v", f)
	}
	cancel()
	w.Open(p, 5, "x")
	if len(events) != 6 {
		t.Errorf("OnChange events = %d, want 6 (Open, 3×Change, Saved, Close; none after cancel)", len(events))
	}

	// A buffer for a file not on disk is dirty.
	n := filepath.Join(w.Root(), "new.txt")
	w.Open(n, 1, "")
	if b, _ := w.Buffer(n); !b.Dirty {
		t.Error("new file buffer must be dirty")
	}
	if got := w.Buffers(); len(got) != 2 || got[0].Path != p || got[1].Path != n {
		t.Errorf("Buffers = %+v", got)
	}
}

func TestWaitVersion(t *testing.T) {
	w := newWS(t, t.TempDir())
	p := filepath.Join(w.Root(), "a.txt")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.WaitVersion(ctx, p, 3) }()
	w.Open(p, 1, "a")
	w.Change(p, 2, "b")
	w.Change(p, 3, "c")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := w.WaitVersion(ctx, p, 2); err != nil {
		t.Errorf("already past: %v", err)
	}
	short, cancel2 := context.WithCancel(ctx)
	cancel2()
	if err := w.WaitVersion(short, p, 9); err == nil {
		t.Error("cancelled wait must fail")
	}
}

// TestOverlayConcurrent runs editors, readers and walkers at once; run it
// with -race.
func TestOverlayConcurrent(t *testing.T) {
	w := newWS(t, t.TempDir())
	const files, versions = 8, 200
	paths := make([]string, files)
	for i := range paths {
		paths[i] = filepath.Join(w.Root(), fmt.Sprintf("f%d.txt", i))
		if err := os.WriteFile(paths[i], []byte("disk\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var notified atomic.Int64
	defer w.OnChange(func(string) { notified.Add(1) })()
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Go(func() {
			w.Open(p, 0, "v0\n")
			for v := int32(1); v <= versions; v++ {
				w.Change(p, v, fmt.Sprintf("v%d\n", v))
			}
			if i%2 == 0 {
				w.Close(p)
			}
		})
		wg.Go(func() {
			last := int32(-1)
			for range versions {
				f, err := w.ReadFile(p)
				if err != nil {
					t.Error(err)
					return
				}
				if f.FromBuffer {
					if f.Version < last || f.Text != fmt.Sprintf("v%d\n", f.Version) {
						t.Errorf("torn read: version %d after %d, text %q", f.Version, last, f.Text)
						return
					}
					last = f.Version
				}
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			_ = w.Buffers()
			_ = w.Walk(context.Background(), "", WalkOptions{Parallel: 3}, func(e WalkEntry) error {
				_, _, err := w.ReadRaw(e.Abs)
				return err
			})
		}
	})
	wg.Wait()
	if got := len(w.Buffers()); got != files/2 {
		t.Errorf("%d buffers open, want %d", got, files/2)
	}
	if want := int64(files*(versions+1) + files/2); notified.Load() != want {
		t.Errorf("notified %d times, want %d", notified.Load(), want)
	}
}

// EditsSince gives the edits between a version a reader saw and the
// buffer now, and says when it cannot (a whole-text change, a version it
// never saw, a history cut at its limit).
func TestEditsSince(t *testing.T) {
	w := newWS(t, t.TempDir())
	p := filepath.Join(w.Root(), "a.go")
	w.Open(p, 1, "abc")
	w.ChangeEdits(p, 2, "aXbc", []Edit{{1, 1, "X"}})
	w.ChangeEdits(p, 5, "aXc!", []Edit{{2, 3, ""}, {3, 3, "!"}})
	b, _ := w.Buffer(p)
	opening := b.Opening
	apply := func(text string, edits []Edit) string {
		for _, e := range edits {
			text = text[:e.Start] + e.New + text[e.End:]
		}
		return text
	}
	for _, tc := range []struct {
		since int32
		from  string
		ok    bool
	}{{1, "abc", true}, {2, "aXbc", true}, {5, "aXc!", true}, {3, "", false}} {
		b, edits, ok := w.EditsSince(p, opening, tc.since)
		if ok != tc.ok || b.Version != 5 {
			t.Fatalf("since %d: ok %v version %d, want ok %v version 5", tc.since, ok, b.Version, tc.ok)
		}
		if ok && apply(tc.from, edits) != b.Text {
			t.Errorf("since %d: edits %v turn %q into %q, not %q", tc.since, edits, tc.from, apply(tc.from, edits), b.Text)
		}
	}
	w.Change(p, 6, "whole")
	if _, _, ok := w.EditsSince(p, opening, 5); ok {
		t.Error("edits known across a whole-text change")
	}
	for v := int32(7); v < 7+maxHistChanges+5; v++ {
		w.ChangeEdits(p, v, "whole", []Edit{})
	}
	if _, _, ok := w.EditsSince(p, opening, 7); ok {
		t.Error("edits known past the history limit")
	}
	if _, _, ok := w.EditsSince(p, opening, 7+5); !ok {
		t.Error("edits of the last changes not known")
	}
	w.Close(p)
	w.Open(p, 7+5, "reopened")
	w.ChangeEdits(p, 7+6, "reopened!", []Edit{{8, 8, "!"}})
	if _, _, ok := w.EditsSince(p, opening, 7+5); ok {
		t.Error("edits of another opening")
	}
	if _, _, ok := w.EditsSince(filepath.Join(w.Root(), "b.go"), 0, 0); ok {
		t.Error("edits of a buffer that is not open")
	}
}
