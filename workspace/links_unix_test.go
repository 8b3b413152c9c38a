//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestDeniedLinkMadeAfterTheWalk: a hard link to a denied file made after
// the set of denied identities was built (and within its time to live) is
// refused at once: its inode changed after the walk began. An ordinary
// file with two links is read, and a reader made without the workspace
// knows no deny list.
func TestDeniedLinkMadeAfterTheWalk(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(from, to string) {
		t.Helper()
		if err := os.Link(filepath.Join(root, from), filepath.Join(root, to)); err != nil {
			t.Skip(err)
		}
	}
	write("a.txt", "plain\n")
	link("a.txt", "b.txt")
	w, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	r := w.NewFileReader()
	defer r.Close()
	if data, err := r.ReadAt(w.Root(), "b.txt", 0, nil); err != nil || string(data) != "plain\n" {
		t.Fatalf("an ordinary file with two links: %q, %v", data, err)
	}
	if w.linked.ids == nil {
		t.Fatal("no set of denied identities after reading a file with two links")
	}
	// Now, well within linkSetTTL: a secret and a link to it.
	w.linked.took = 0 // the walk took no time: a miss may build the set again at once
	write(".env", "TOKEN=x\n")
	link(".env", "c.txt")
	if data, err := r.ReadAt(w.Root(), "c.txt", 0, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a link to .env made after the walk: %q, %v; want it missing", data, err)
	}
	if _, _, ok := r.Stat(w.Root(), "c.txt"); ok {
		t.Errorf("Stat of the link: ok")
	}
	if !w.IsDeniedLink(filepath.Join(root, "c.txt")) || w.IsDeniedLink(filepath.Join(root, "b.txt")) {
		t.Errorf("IsDeniedLink: c.txt %v, b.txt %v", w.IsDeniedLink(filepath.Join(root, "c.txt")), w.IsDeniedLink(filepath.Join(root, "b.txt")))
	}
	plain := NewFileReader()
	defer plain.Close()
	if data, err := plain.ReadAt(w.Root(), "c.txt", 0, nil); err != nil || string(data) != "TOKEN=x\n" {
		t.Errorf("a reader without the workspace: %q, %v", data, err)
	}
}
