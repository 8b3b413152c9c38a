package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadLines: a window is read line by line from disk, with line
// endings and a BOM taken off, long lines cut to keep characters with
// their full length, the total known only when the end was reached.
func TestReadLines(t *testing.T) {
	root := t.TempDir()
	w := newWS(t, root)
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := strings.Repeat("é", 70000) // longer than the read buffer
	write("a.txt", "\xEF\xBB\xBFone\r\ntwo\n"+long+"\r\nfour\nfive")
	write("bin.txt", "x\x00y\n")
	write("u16.txt", "\xFF\xFEa\x00")
	write("nl.txt", "a\nb\n")

	win, err := w.ReadLines("a.txt", 0, 2, 10, 1<<20)
	if err != nil || len(win.Lines) != 2 || win.Lines[0] != (Line{"one", 3}) || win.Lines[1] != (Line{"two", 3}) || win.Total != -1 {
		t.Errorf("window 0-2 = %+v, %v", win, err)
	}
	win, err = w.ReadLines("a.txt", 2, 10, 10, 1<<20)
	if err != nil || len(win.Lines) != 3 || win.Lines[0] != (Line{strings.Repeat("é", 10), 70000}) ||
		win.Lines[1] != (Line{"four", 4}) || win.Lines[2] != (Line{"five", 4}) || win.Total != 5 {
		t.Errorf("window 2- = %+v, %v", win, err)
	}
	if win, err := w.ReadLines("nl.txt", 1, 5, 10, 1<<20); err != nil || len(win.Lines) != 1 || win.Total != 2 {
		t.Errorf("nl.txt = %+v, %v", win, err)
	}
	if win, err := w.ReadLines("nl.txt", 0, 2, 10, 1<<20); err != nil || win.Total != 2 {
		t.Errorf("nl.txt whole = %+v, %v", win, err)
	}
	if _, err := w.ReadLines("bin.txt", 0, 2, 10, 1<<20); !errors.Is(err, ErrBinary) {
		t.Errorf("binary: %v", err)
	}
	if _, err := w.ReadLines("u16.txt", 0, 2, 10, 1<<20); err == nil || !strings.Contains(err.Error(), "UTF-16") {
		t.Errorf("UTF-16: %v", err)
	}
	if _, err := w.ReadLines("missing.txt", 0, 2, 10, 1<<20); !errors.Is(err, ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
