//go:build unix

package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// TestPrefaultKeepsContents: prefaulting pages that hold data (the part of
// a buffer a read already filled, and the neighbours of its first and last
// pages) leaves the data as it was, and a reader prefaults a buffer once.
func TestPrefaultKeepsContents(t *testing.T) {
	b := make([]byte, 3<<16+123)
	for i := range b {
		b[i] = byte(i*7 + 1)
	}
	want := bytes.Clone(b)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	prefaultPages(base+5, base+uintptr(len(b))-9)
	if !bytes.Equal(b, want) {
		t.Fatal("prefaultPages changed the buffer's contents")
	}

	dir := t.TempDir()
	text := bytes.Repeat([]byte("line of text\n"), 20000) // 260 kB
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	d := NewFileReader()
	defer d.Close()
	buf := make([]byte, 0, 1<<20)
	for range 2 {
		got, err := d.ReadAt(dir, "f.txt", int64(len(text)), buf)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, text) {
			t.Fatalf("read %d bytes, not the file's %d", len(got), len(text))
		}
		if d.faultedBase != base0(buf) || d.faultedLen != len(text) {
			t.Errorf("prefaulted %x+%d, want the buffer %x+%d", d.faultedBase, d.faultedLen, base0(buf), len(text))
		}
	}
}

func base0(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
