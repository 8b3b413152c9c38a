//go:build unix

package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRootHandle: the workspace's one hold on its folder serves reads,
// walks, readlink and writes, with openat2 and without (os.Root and openat
// one component at a time): symlinks that stay inside are followed where a
// path was named (Read, a walk's start), none where a walk found the path
// (ReadRaw), one that leads out never; a folder deleted and made again
// under the same path is opened again at the next use.
func TestRootHandle(t *testing.T) {
	withOpenat2(t, func(t *testing.T) {
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(base, "root")
		writeFile(t, filepath.Join(base, "out", "x"), "OUTSIDE")
		writeFile(t, filepath.Join(root, "d", "x"), "inside")
		symlink(t, "d", filepath.Join(root, "inlink"))
		symlink(t, "../out", filepath.Join(root, "outlink"))
		symlink(t, "x", filepath.Join(root, "d", "alias"))
		w := newWS(t, root)
		if c, err := w.Read(filepath.Join(root, "inlink", "alias"), 0); err != nil || string(c.Data) != "inside" {
			t.Errorf("Read through inside links: %q, %v", c.Data, err)
		}
		if c, err := w.Read(filepath.Join(root, "outlink", "x"), 0); !errors.Is(err, ErrOutside) {
			t.Errorf("Read through a link that leads out: %q, %v", c.Data, err)
		}
		if _, _, err := w.ReadRaw(filepath.Join(root, "d", "alias")); err == nil || !strings.Contains(err.Error(), "symlink") {
			t.Errorf("ReadRaw of a symlink: %v", err)
		}
		if data, _, err := w.ReadRaw(filepath.Join(root, "d", "x")); err != nil || string(data) != "inside" {
			t.Errorf("ReadRaw: %q, %v", data, err)
		}
		var got []string
		if err := w.Walk(context.Background(), "inlink", WalkOptions{}, func(e WalkEntry) error {
			got = append(got, e.Rel)
			return nil
		}); err != nil || !slices.Equal(got, []string{"inlink/alias", "inlink/x"}) {
			t.Errorf("walk from an inside link: %q, %v", got, err)
		}
		if err := w.Walk(context.Background(), filepath.Join(root, "outlink"), WalkOptions{}, func(WalkEntry) error { return nil }); err == nil {
			t.Error("walk from a link that leads out succeeded")
		}
		if target, err := w.Readlink(filepath.Join(root, "inlink")); err != nil || target != "d" {
			t.Errorf("Readlink: %q, %v", target, err)
		}
		r := w.NewFileReader()
		defer r.Close()
		if data, _, err := r.Read(root, "d/x", 0, nil); err != nil || string(data) != "inside" {
			t.Errorf("reader: %q, %v", data, err)
		}

		// The folder replaced under the same path: the next use opens it anew.
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(root, "d", "x"), "new folder")
		if c, err := w.Read(filepath.Join(root, "d", "x"), 0); err != nil || string(c.Data) != "new folder" {
			t.Errorf("Read after the folder was replaced: %q, %v", c.Data, err)
		}
		r2 := w.NewFileReader()
		defer r2.Close()
		if data, _, err := r2.Read(root, "d/x", 0, nil); err != nil || string(data) != "new folder" {
			t.Errorf("reader after the folder was replaced: %q, %v", data, err)
		}
		if err := w.atomicWrite(filepath.Join(root, "d", "y"), []byte("written"), 0); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(root, "d", "y")); err != nil || string(b) != "written" {
			t.Errorf("write after the folder was replaced: %q, %v", b, err)
		}
	})
}

// TestOpenReadsBeneath: opening a buffer reads its disk copy (for its
// format and whether it is dirty) beneath the folder like every read: a
// file reached through a link that leads out counts as not on disk.
func TestOpenReadsBeneath(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	writeFile(t, filepath.Join(base, "out", "x"), "OUTSIDE\n")
	writeFile(t, filepath.Join(root, "in.txt"), "inside\n")
	symlink(t, "../out", filepath.Join(root, "outlink"))
	w := newWS(t, root)
	w.Open(filepath.Join(root, "in.txt"), 1, "inside\n")
	w.Open(filepath.Join(root, "outlink", "x"), 1, "OUTSIDE\n")
	if b, _ := w.Buffer(filepath.Join(root, "in.txt")); b.Dirty {
		t.Error("a buffer equal to its file inside is dirty")
	}
	if b, _ := w.Buffer(filepath.Join(root, "outlink", "x")); !b.Dirty {
		t.Error("the file outside was read to compare the buffer with")
	}
}
