package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// walkList walks dir and returns the entries' Rel, directories with a "/".
func walkList(t *testing.T, w *Workspace, dir string, opts WalkOptions) []string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	err := w.Walk(context.Background(), dir, opts, func(e WalkEntry) error {
		name := e.Rel
		if e.IsDir {
			name += "/"
		}
		mu.Lock()
		got = append(got, name)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func wantList(t *testing.T, root string) []string {
	data, err := os.ReadFile(filepath.Join(root, "want.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

func TestWalkIgnore(t *testing.T) {
	root := extract(t, "ignore")
	w := newWS(t, root)
	want := wantList(t, root)

	got := walkList(t, w, "", WalkOptions{})
	if !slices.Equal(got, want) {
		t.Errorf("sequential walk:\n got %q\nwant %q", got, want)
	}
	for _, n := range []int{2, 8} {
		got := walkList(t, w, "", WalkOptions{Parallel: n, NoStat: true})
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("parallel %d walk:\n got %q\nwant %q", n, got, want)
		}
	}

	// Walking a subdirectory applies the ignore files above it.
	got = walkList(t, w, "pkg", WalkOptions{})
	wantPkg := []string{"pkg/keep.dat", "pkg/keep.log", "pkg/keep.tmp", "pkg/keepdir/", "pkg/keepdir/keep.txt"}
	if !slices.Equal(got, wantPkg) {
		t.Errorf("walk of pkg:\n got %q\nwant %q", got, wantPkg)
	}

	// Hidden: dot files appear, .git never does.
	got = walkList(t, w, "", WalkOptions{Hidden: true})
	for _, p := range []string{".gitignore", ".ignore", "pkg/.gitignore"} {
		if !slices.Contains(got, p) {
			t.Errorf("Hidden walk lacks %s", p)
		}
	}
	for _, p := range got {
		if strings.HasPrefix(p, ".git/") || strings.Contains(p, "drop") && !strings.HasPrefix(p, ".hidden") {
			t.Errorf("Hidden walk has %s", p)
		}
	}

	// IncludeIgnored: everything but hidden names and .git.
	got = walkList(t, w, "", WalkOptions{IncludeIgnored: true})
	for _, p := range []string{"drop.log", "build/drop.o", "node_modules/pkg/drop.js", "pkg/sub/drop.txt", "excluded-by-info/drop.txt"} {
		if !slices.Contains(got, p) {
			t.Errorf("IncludeIgnored walk lacks %s", p)
		}
	}
}

func TestIgnored(t *testing.T) {
	root := extract(t, "ignore")
	w := newWS(t, root)
	for _, c := range []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{"keep.txt", false, false},
		{"drop.log", false, true},
		{"keep-important.log", false, false},
		{"build", true, true},
		{"build/drop.o", false, true}, // under an ignored directory
		{"build/x/y.go", false, true},
		{"src/build/keep.go", false, false},
		{"pkg/keep.log", false, false},
		{"pkg/sub/anything", false, true},
		{"pkg/drop.dat", false, true},
		{"excluded-by-info/drop.txt", false, true},
		{"drop-by-dotignore.txt", false, true},
		{"keep-via-ignore.log", false, false},
		{"docs/a/b/generated", true, true},
		{".git/config", false, true},
		{".hidden-drop.txt", false, false}, // hidden, not ignored
	} {
		if got := w.Ignored(filepath.Join(root, filepath.FromSlash(c.rel)), c.isDir); got != c.want {
			t.Errorf("Ignored(%s) = %v, want %v", c.rel, got, c.want)
		}
	}
}

// TestIgnoreMatchesGit builds a repository with tricky ignore rules and
// checks that the walk (Hidden, no .ignore files) lists exactly the files
// that `git ls-files --others --exclude-standard` lists.
func TestIgnoreMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	git("init", "-q")
	files := map[string]string{
		".gitignore": strings.Join([]string{
			"*.o", "!keep.o", "/anchored", "dironly/", "a/**/z", "**/deep", "x/*/y",
			"[abc]?.c", "[!d]x.h", "q\\*", "sp\\ ace", "trail   ", "#comment", "\\#hash",
			"*.tmp", "!*.tmp/", "lit/eral", "doc/**", "!doc/keep", "mid**dle", "log[0-9].txt",
			"**/foo/bar", "**/foo2/bar", "one/**/two/**/three",
		}, "\n"),
		".git/info/exclude":     "info-ex\n",
		"sub/.gitignore":        "!*.o\nlocal\n/only-here\n*.txt\n!keep*.txt\n",
		"sub/deeper/.gitignore": "!local\n",
	}
	paths := []string{
		"a.o", "keep.o", "sub/b.o", "anchored", "sub/anchored", "dironly/f", "sub/dironly/f", "dironly-file",
		"a/z", "a/b/z", "a/b/c/z", "b/a/z", "deep", "x/deep", "x/y/deep/f", "x/1/y", "x/1/2/y", "x/yy",
		"ab.c", "abc.c", "zz.c", "ax.h", "dx.h", "q*", "qq", "sp ace", "trail", "#hash", "#comment",
		"t.tmp", "d.tmp/f", "lit/eral", "sub/lit/eral", "doc/a", "doc/keep", "doc/x/keep", "middle", "mid-x-dle",
		"log1.txt", "logx.txt", "info-ex", "sub/info-ex", "sub/local", "sub/deeper/local", "sub/only-here",
		"sub/x/only-here", "sub/anchored", "sub/lit/eral", "sub/a/b/z", "sub/x/1/y", "sub/doc/a", "sub/a.txt", "sub/keep1.txt", "sub/deeper/keep2.txt", "foo/bar", "z/foo/bar",
		"foo2/bar/baz", "one/two/three", "one/a/two/b/three", "one/two/x", "ümlaut.o", "plain",
		".hidden", ".hdir/file",
	}
	for p, data := range files {
		paths = append(paths, p)
		writeFile(t, filepath.Join(root, p), data)
	}
	for _, p := range paths {
		if _, ok := files[p]; !ok {
			writeFile(t, filepath.Join(root, p), "x")
		}
	}
	want := strings.Split(strings.TrimSpace(git("-c", "core.quotePath=false", "ls-files", "-z", "--others", "--exclude-standard")), "\x00")
	want = slices.DeleteFunc(want, func(s string) bool { return s == "" })
	slices.Sort(want)
	if len(want) < 20 || len(want) > len(paths)-20 {
		t.Fatalf("git lists %d of %d paths; the rules should keep and drop many", len(want), len(paths))
	}
	t.Logf("git lists %d of %d paths", len(want), len(paths))

	w := newWS(t, root)
	var got []string
	err = w.Walk(context.Background(), "", WalkOptions{Hidden: true}, func(e WalkEntry) error {
		if !e.IsDir {
			got = append(got, e.Rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		for _, p := range got {
			if !slices.Contains(want, p) {
				t.Errorf("walk lists %s, git ignores it", p)
			}
		}
		for _, p := range want {
			if !slices.Contains(got, p) {
				t.Errorf("git lists %s, walk ignores it", p)
			}
		}
	}
	// A workspace opened on a subfolder of the repository obeys the ignore
	// files above it, anchored patterns included.
	sub := newWS(t, filepath.Join(root, "sub"))
	var gotSub []string
	if err := sub.Walk(context.Background(), "", WalkOptions{Hidden: true}, func(e WalkEntry) error {
		if !e.IsDir {
			gotSub = append(gotSub, e.Rel)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(gotSub)
	var wantSub []string
	for _, p := range want {
		if rest, ok := strings.CutPrefix(p, "sub/"); ok {
			wantSub = append(wantSub, rest)
		}
	}
	if !slices.Equal(gotSub, wantSub) {
		t.Errorf("walk of a workspace at sub/:\n got %q\nwant %q", gotSub, wantSub)
	}

	// Ignored agrees with the walk for every path.
	for _, p := range paths {
		abs := filepath.Join(root, p)
		if strings.HasPrefix(p, ".git/") {
			continue
		}
		if ign, listed := w.Ignored(abs, false), slices.Contains(want, p); ign == listed {
			t.Errorf("Ignored(%s) = %v but git lists it: %v", p, ign, listed)
		}
	}
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWalkControl(t *testing.T) {
	root := extract(t, "ignore")
	w := newWS(t, root)
	ctx := context.Background()

	// SkipDir on a directory skips its contents.
	got := []string{}
	err := w.Walk(ctx, "", WalkOptions{}, func(e WalkEntry) error {
		got = append(got, e.Rel)
		if e.IsDir && e.Rel == "pkg" {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil || slices.Contains(got, "pkg/keep.log") || !slices.Contains(got, "src/keep.go") {
		t.Errorf("SkipDir: %v, %q", err, got)
	}

	for _, par := range []int{0, 4} {
		// SkipAll ends the walk without an error.
		n := atomic.Int32{}
		err = w.Walk(ctx, "", WalkOptions{Parallel: par}, func(e WalkEntry) error {
			n.Add(1)
			return fs.SkipAll
		})
		if err != nil || n.Load() < 1 {
			t.Errorf("parallel %d: SkipAll: %v after %d", par, err, n.Load())
		}
		// Any other error ends it and comes back.
		boom := errors.New("boom")
		err = w.Walk(ctx, "", WalkOptions{Parallel: par}, func(e WalkEntry) error {
			if e.Rel == "src/keep.go" {
				return boom
			}
			return nil
		})
		if !errors.Is(err, boom) {
			t.Errorf("parallel %d: fn error: %v", par, err)
		}
		// A cancelled context ends it.
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		err = w.Walk(cctx, "", WalkOptions{Parallel: par}, func(WalkEntry) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("parallel %d: cancelled: %v", par, err)
		}
	}

	// Walk is confined and wants a directory.
	if err := w.Walk(ctx, "..", WalkOptions{}, func(WalkEntry) error { return nil }); !errors.Is(err, ErrOutside) {
		t.Errorf("walk ..: %v", err)
	}
	if err := w.Walk(ctx, "keep.txt", WalkOptions{}, func(WalkEntry) error { return nil }); err == nil {
		t.Error("walk of a file must fail")
	}
}

func TestWalkSymlinksNotFollowed(t *testing.T) {
	w := newWS(t, t.TempDir())
	root := w.Root()
	writeFile(t, filepath.Join(root, "d", "f.txt"), "x")
	symlink(t, "d", filepath.Join(root, "dlink"))
	symlink(t, ".", filepath.Join(root, "d", "loop"))
	got := walkList(t, w, "", WalkOptions{})
	want := []string{"d/", "d/f.txt", "d/loop", "dlink"}
	if !slices.Equal(got, want) {
		t.Errorf("walk = %q, want %q", got, want)
	}
	var e WalkEntry
	_ = w.Walk(context.Background(), "", WalkOptions{}, func(x WalkEntry) error {
		if x.Rel == "d/f.txt" {
			e = x
		}
		return nil
	})
	if e.Size != 1 || e.ModTime.IsZero() || !e.Mode.IsRegular() || e.Name() != "f.txt" {
		t.Errorf("entry info = %+v", e)
	}
}

func TestWildmatch(t *testing.T) {
	for _, c := range []struct {
		pat, text string
		want      bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "a/b.go", false},
		{"a/*/c", "a/b/c", true},
		{"a/*/c", "a/b/x/c", false},
		{"a/**/c", "a/c", true},
		{"a/**/c", "a/b/x/c", true},
		{"**/c", "c", true},
		{"**/c", "x/y/c", true},
		{"a/**", "a/b/c", true},
		{"a/**", "a", false},
		{"a**b", "axxb", true},
		{"a**b", "ax/xb", false},
		{"?", "é", true},
		{"[a-c]x", "bx", true},
		{"[!a-c]x", "bx", false},
		{"[^a-c]x", "dx", true},
		{"[]]", "]", true},
		{"[[:digit:]]", "5", true},
		{"[[:alpha:]]", "5", false},
		{"\\*", "*", true},
		{"\\*", "x", false},
		{"[a", "a", false},
		{"a?c", "a/c", false},
	} {
		if got := wildmatch(c.pat, 0, c.text); got != c.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", c.pat, c.text, got, c.want)
		}
	}
}

// BenchmarkWalkGOROOT walks Go's source tree (about 11k files) the way
// grep does: parallel, no stat. Compare with `rg --files $(go env GOROOT)/src`.
func BenchmarkWalkGOROOT(b *testing.B) {
	if testing.Short() {
		b.Skip("walks GOROOT/src")
	}
	src := filepath.Join(build.Default.GOROOT, "src")
	if _, err := os.Stat(src); err != nil {
		b.Skip(err)
	}
	w, err := New(src)
	if err != nil {
		b.Fatal(err)
	}
	for _, opts := range []WalkOptions{
		{Parallel: runtime.GOMAXPROCS(0), NoStat: true},
		{Parallel: runtime.GOMAXPROCS(0)},
		{},
	} {
		b.Run(fmt.Sprintf("parallel=%d,stat=%v", opts.Parallel, !opts.NoStat), func(b *testing.B) {
			var files atomic.Int64
			for b.Loop() {
				files.Store(0)
				err := w.Walk(context.Background(), "", opts, func(e WalkEntry) error {
					if !e.IsDir {
						files.Add(1)
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(files.Load()), "files")
		})
	}
}

// TestReadDirMatchesPortable holds the getdents reader to os.ReadDir.
func TestReadDirMatchesPortable(t *testing.T) {
	root := extract(t, "ignore")
	for i := range 300 { // more than one getdents buffer
		writeFile(t, filepath.Join(root, "many", fmt.Sprintf("file-with-a-longish-name-%04d.txt", i)), "")
	}
	symlink(t, "keep.txt", filepath.Join(root, "link"))
	writeFile(t, filepath.Join(root, "many", ".ignore"), "*.tmp\n")
	writeFile(t, filepath.Join(root, "many", "run.sh"), "#!/bin/sh\n")
	os.Chmod(filepath.Join(root, "many", "run.sh"), 0o755|fs.ModeSetuid|fs.ModeSticky)
	os.Mkdir(filepath.Join(root, "many", "sticky"), 0o1777)
	mkfifo(filepath.Join(root, "many", "fifo"))
	defer setRawFileCalls(setRawFileCalls(false))
	for _, raw := range []bool{false, true} {
		setRawFileCalls(raw) // the ordinary system calls, then the raw ones
		readDirsMatchPortable(t, root)
	}
	var s dirScratch
	if err := readDir(&s, filepath.Join(root, "keep.txt"), "", true); err == nil {
		t.Error("readDir of a file must fail")
	}
}

func readDirsMatchPortable(t *testing.T, root string) {
	t.Helper()
	for _, dir := range []string{root, filepath.Join(root, "many"), filepath.Join(root, "pkg")} {
		fast := dirScratch{ignores: true, stat: true, hidden: true}
		slow := fast
		if err := readDir(&fast, dir, "", true); err != nil {
			t.Fatal(err)
		}
		if err := readDirPortable(&slow, dir); err != nil {
			t.Fatal(err)
		}
		fast.sortEnts()
		slow.sortEnts()
		list := func(s *dirScratch) []string {
			var out []string
			for _, e := range s.ents {
				out = append(out, fmt.Sprintf("%s %v %v | %v %v %v %d", s.name(e), e.typ, e.known, e.statted, e.mode, e.size, e.mtime))
			}
			return out
		}
		if a, b := list(&fast), list(&slow); !slices.Equal(a, b) {
			t.Errorf("%s:\n readDir %q\nportable %q", dir, a, b)
		}
		if !bytes.Equal(fast.gitignore, slow.gitignore) || !bytes.Equal(fast.ignore, slow.ignore) ||
			(fast.gitignore == nil) != (slow.gitignore == nil) || (fast.ignore == nil) != (slow.ignore == nil) {
			t.Errorf("%s: ignore files: readDir %q %q, portable %q %q", dir, fast.gitignore, fast.ignore, slow.gitignore, slow.ignore)
		}
		if dir == root && fast.gitignore == nil || dir == filepath.Join(root, "many") && string(fast.ignore) != "*.tmp\n" {
			t.Errorf("%s: ignore files not read: %q %q", dir, fast.gitignore, fast.ignore)
		}
	}
}
