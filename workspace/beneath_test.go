package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The use of a path is confined as well as its check: when a directory is
// replaced by a symlink that leads out after Resolve accepted the path (here
// the check is simply skipped), reads, writes and walks beneath the root
// refuse to follow it.
func TestBeneathRootAfterTheCheck(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	writeFile(t, filepath.Join(outside, "f.txt"), "outside")
	writeFile(t, filepath.Join(root, "keep.txt"), "keep")
	symlink(t, outside, filepath.Join(root, "dir")) // "dir" was a directory when it was checked
	w := newWS(t, root)
	through := filepath.Join(root, "dir", "f.txt")

	if _, err := w.Read(through, 0); !errors.Is(err, ErrOutside) {
		t.Errorf("Read through the link: %v", err)
	}
	if _, _, err := w.ReadRaw(through); err == nil {
		t.Error("ReadRaw through the link succeeded")
	}
	if err := w.atomicWrite(through, []byte("PWNED"), 0); err == nil {
		t.Error("atomicWrite through the link succeeded")
	}
	if err := w.atomicWrite(filepath.Join(root, "dir", "new.txt"), []byte("PWNED"), 0); err == nil {
		t.Error("atomicWrite of a new file through the link succeeded")
	}
	symlink(t, "outside-target", filepath.Join(outside, "lnk"))
	if got, err := w.Readlink(filepath.Join(root, "dir", "lnk")); !errors.Is(err, ErrOutside) {
		t.Errorf("Readlink through the link: %q, %v", got, err)
	}
	if runtime.GOOS == "linux" { // elsewhere readDir does not check
		h, err := w.handle()
		if err != nil {
			t.Fatal(err)
		}
		s := dirScratch{root: h}
		if err := readDir(&s, filepath.Join(root, "dir"), root, true); !errors.Is(err, ErrOutside) {
			t.Errorf("readDir through the link: %v", err)
		}
		if err := readDir(&s, filepath.Join(root, "dir"), root, false); !errors.Is(err, ErrOutside) {
			t.Errorf("readDir through the link, not following: %v", err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(b) != "outside" {
		t.Errorf("outside file changed: %q", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 2 {
		t.Errorf("outside directory has %d entries", len(ents))
	}
	// Inside the root, links are followed as before.
	symlink(t, "keep.txt", filepath.Join(root, "alias.txt"))
	if got, err := w.Readlink(filepath.Join(root, "alias.txt")); got != "keep.txt" || err != nil {
		t.Errorf("Readlink alias.txt = %q, %v", got, err)
	}
	if err := w.atomicWrite(filepath.Join(root, "alias.txt"), []byte("new"), 0); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "keep.txt")); string(b) != "new" {
		t.Errorf("write through an inside link: keep.txt = %q", b)
	}
	if st, err := os.Lstat(filepath.Join(root, "alias.txt")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Error("the inside link was not kept")
	}
}

// A directory of the tree swapped for a symlink that leads out after the
// walk listed it as a directory (here: by fn, when the walk reports it and
// before it descends) is not listed: the walk opens it beneath the root.
func TestWalkSwappedSubdirectory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux opens a walk's directories beneath the root")
	}
	for _, parallel := range []int{0, 2} {
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(base, "root")
		writeFile(t, filepath.Join(base, "outside", "b", "secret.txt"), "outside")
		writeFile(t, filepath.Join(root, "a", "b", "inside.txt"), "inside")
		w := newWS(t, root)
		var seen []string
		var mu sync.Mutex
		err = w.Walk(context.Background(), root, WalkOptions{Parallel: parallel}, func(e WalkEntry) error {
			mu.Lock()
			seen = append(seen, e.Rel)
			mu.Unlock()
			if e.Rel == "a" {
				if err := os.Rename(filepath.Join(root, "a"), filepath.Join(base, "a.moved")); err != nil {
					t.Error(err)
				}
				symlink(t, filepath.Join(base, "outside"), filepath.Join(root, "a"))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range seen {
			if strings.Contains(rel, "secret") {
				t.Errorf("parallel %d: the walk listed %s outside the folder: %v", parallel, rel, seen)
			}
		}
	}
}
