//go:build unix

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withOpenat2 runs fn once with openat2 (where the system has it) and once
// opening one component at a time, each with the ordinary system calls
// and with the raw ones (UseRawFileCalls).
func withOpenat2(t *testing.T, fn func(t *testing.T)) {
	for _, no := range []bool{false, true} {
		for _, raw := range []bool{false, true} {
			name := "openat2"
			if no {
				name = "openat"
			}
			if raw {
				name += "/raw"
			}
			t.Run(name, func(t *testing.T) {
				old := noOpenat2.Load()
				noOpenat2.Store(no)
				oldRaw := setRawFileCalls(raw)
				t.Cleanup(func() {
					noOpenat2.Store(old)
					setRawFileCalls(oldRaw)
				})
				fn(t)
			})
		}
	}
}

func TestFileReaderRefusesOutside(t *testing.T) {
	withOpenat2(t, func(t *testing.T) {
		base := t.TempDir()
		ws := filepath.Join(base, "ws")
		os.MkdirAll(filepath.Join(ws, "d"), 0o755)
		os.MkdirAll(filepath.Join(base, "out"), 0o755)
		os.WriteFile(filepath.Join(base, "out", "x"), []byte("OUTSIDE"), 0o644)
		os.WriteFile(filepath.Join(ws, "d", "x"), []byte("inside"), 0o644)
		os.Symlink("d", filepath.Join(ws, "inlink"))
		os.Symlink("../out", filepath.Join(ws, "outlink"))
		os.Symlink("../out/x", filepath.Join(ws, "d", "filelink"))
		d := NewFileReader()
		defer d.Close()
		for _, rel := range []string{"../out/x", "d/../../out/x", "./d/x", "d//x", "/d/x", "inlink/x", "outlink/x", "d/filelink", ""} {
			if data, err := d.ReadAt(ws, rel, 0, nil); err == nil {
				t.Errorf("%q read: %q", rel, data)
			}
			if _, _, ok := d.Stat(ws, rel); ok {
				t.Errorf("%q statted", rel)
			}
		}
		data, mtime, err := d.Read(ws, "d/x", 0, nil)
		if err != nil || string(data) != "inside" || mtime == 0 {
			t.Fatalf("Read d/x: %q %d %v", data, mtime, err)
		}
	})
}

// A directory swapped for a symlink leading out after a path was found
// (the check-then-use race, made deterministic) reads nothing outside.
func TestFileReaderSwappedDirectory(t *testing.T) {
	withOpenat2(t, func(t *testing.T) {
		base := t.TempDir()
		ws := filepath.Join(base, "ws")
		for rel, text := range map[string]string{"ws/a/b/f.txt": "INSIDE", "out/b/f.txt": "OUTSIDE"} {
			os.MkdirAll(filepath.Dir(filepath.Join(base, rel)), 0o755)
			os.WriteFile(filepath.Join(base, rel), []byte(text), 0o644)
		}
		d := NewFileReader()
		defer d.Close()
		if data, err := d.ReadAt(ws, "a/b/f.txt", 0, nil); err != nil || string(data) != "INSIDE" {
			t.Fatalf("before the swap: %q %v", data, err)
		}
		d.Close() // no cached directory descriptor: the lookup happens after the swap
		os.Rename(filepath.Join(ws, "a"), filepath.Join(ws, "a.moved"))
		os.Symlink("../out", filepath.Join(ws, "a"))
		if data, err := d.ReadAt(ws, "a/b/f.txt", 0, nil); err == nil || strings.Contains(string(data), "OUTSIDE") {
			t.Fatalf("after the swap: %q %v", data, err)
		}
		if _, _, err := d.Read(ws, "a/b/f.txt", 0, nil); err == nil {
			t.Fatal("Read followed the swapped directory")
		}
	})
}

func TestFileReaderLimits(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "big"), make([]byte, 1000), 0o644)
	os.Mkdir(filepath.Join(ws, "dir"), 0o755)
	d := NewFileReader()
	defer d.Close()
	if _, _, err := d.Read(ws, "big", 999, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	if data, _, err := d.Read(ws, "big", 1000, make([]byte, 10)); err != nil || len(data) != 1000 {
		t.Errorf("at the limit: %d %v", len(data), err)
	}
	if _, _, err := d.Read(ws, "dir", 0, nil); err == nil {
		t.Error("read a directory")
	}
}

// TestFileReaderGrowingFile: a file that a writer grows after the reader
// looked at its size is read as the prefix it had then — by ReadAt,
// ReadHead and Read alike — however much it grows (here 1 MiB, past the
// first read buffer).
func TestFileReaderGrowingFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log.txt")
	const first = "first line\n"
	grow := []byte(strings.Repeat("grown meanwhile\n", 1<<16))
	testHookStat = func() {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		f.Write(grow)
	}
	t.Cleanup(func() { testHookStat = nil })
	d := NewFileReader()
	defer d.Close()
	for name, read := range map[string]func() ([]byte, error){
		"ReadAt": func() ([]byte, error) { return d.ReadAt(dir, "log.txt", int64(len(first)), nil) },
		"ReadHead": func() ([]byte, error) {
			data, more, err := d.ReadHead(dir, "log.txt", int64(len(first)), 8<<20, nil)
			if more {
				t.Errorf("ReadHead: more")
			}
			return data, err
		},
		"Read": func() ([]byte, error) {
			data, _, err := d.Read(dir, "log.txt", 0, nil)
			return data, err
		},
	} {
		if err := os.WriteFile(p, []byte(first), 0o644); err != nil {
			t.Fatal(err)
		}
		data, err := read()
		if err != nil || string(data) != first {
			t.Errorf("%s of a growing file: %d bytes (%q…), %v; want the %d it had", name, len(data), data[:min(len(data), 30)], err, len(first))
		}
	}
}
