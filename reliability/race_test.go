//go:build linux

package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// swapper exchanges two names (a directory and a symlink) again and again
// with renameat2(RENAME_EXCHANGE), so that at any moment one of them is the
// directory and the other the link, until stop is called.
type swapper struct {
	stop  func()
	swaps atomic.Int64
}

func startSwapper(t *testing.T, a, b string) *swapper {
	t.Helper()
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("renameat2(RENAME_EXCHANGE) unavailable: %v", err)
	}
	sw := &swapper{}
	var wg sync.WaitGroup
	var done atomic.Bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			if unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) == nil {
				sw.swaps.Add(1)
			}
		}
	}()
	sw.stop = func() { done.Store(true); wg.Wait() }
	t.Cleanup(sw.stop)
	return sw
}

func raceRounds() int {
	if testing.Short() {
		return 40
	}
	return 300
}

// TestEscapeSymlinkSwapRace: a directory of the workspace is swapped with a
// symlink to a directory outside while tools use paths through it. The
// check (Resolve) and the use (open, create, rename, remove) are separate
// system calls; whatever the interleaving, nothing outside may be read or
// changed.
func TestEscapeSymlinkSwapRace(t *testing.T) {
	swapRace(t, false)
}

// TestEscapeSymlinkSwapRaceGrep is the same race for grep, whose files
// are listed by a walk (or the resident file table) and read later: a
// directory swapped for a symlink between the walk and the read must not
// make grep print an outside file's lines (textsearch opens every file
// beneath a descriptor of the folder, never by its absolute path).
func TestEscapeSymlinkSwapRaceGrep(t *testing.T) {
	swapRace(t, true)
}

func swapRace(t *testing.T, grep bool) {
	f := newEscapeFixture(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	writeFiles(t, f.ws, map[string]string{"race/f.txt": "inside CANARY\n", "race/nb.ipynb": notebookJSON})
	if err := os.Symlink("../canary/dir", filepath.Join(f.ws, "race.alt")); err != nil {
		t.Skip(err)
	}
	before := f.outsideSnapshot(t)
	s := startServer(t, f.ws, nil)
	sw := startSwapper(t, filepath.Join(f.ws, "race"), filepath.Join(f.ws, "race.alt"))
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "race/f.txt"}},
		{"write_file", map[string]any{"path": "race/f.txt", "content": "PWNED CANARY\n"}},
		{"read_file", map[string]any{"path": "race/f.txt"}},
		{"edit_file", map[string]any{"path": "race/f.txt", "old_string": "CANARY", "new_string": "CANARY"}},
		{"edit_file", map[string]any{"path": "race/f.txt", "old_string": "CANARY", "new_string": "PWNED-CANARY"}},
		{"write_file", map[string]any{"path": "race/new.txt", "content": "PWNED"}},
		{"read_file", map[string]any{"path": "race/nb.ipynb"}},
		{"notebook_edit", map[string]any{"path": "race/nb.ipynb", "cell_number": 0, "new_source": "PWNED"}},
		{"move_file", map[string]any{"source": "race/new.txt", "destination": "race/moved.txt", "overwrite": true}},
		{"move_file", map[string]any{"source": "race/f.txt", "destination": "outside-moved.txt", "overwrite": true}},
		{"move_file", map[string]any{"source": "victim.txt", "destination": "race/victim.txt", "overwrite": true}},
		{"delete_file", map[string]any{"path": "race/moved.txt"}},
		{"delete_file", map[string]any{"path": "race/victim.txt"}},
		{"ls", map[string]any{"path": "race"}},
		{"glob", map[string]any{"pattern": "race/*"}},
		{"code_index", map[string]any{"action": "outline", "path": "race/f.txt"}},
	}
	if grep {
		calls = calls[:0]
		for range 4 {
			calls = append(calls, []struct {
				tool string
				args map[string]any
			}{
				{"grep", map[string]any{"pattern": "CANARY.7f3a9", "path": "race"}},
				{"grep", map[string]any{"pattern": "CANARY.7f3a9", "path": "race/f.txt"}},
				{"grep", map[string]any{"pattern": "CANARY.7f3a9"}},
			}...)
		}
	}
	leaks := map[string]int{}
	for round := range raceRounds() {
		for _, c := range calls {
			r := s.call(c.tool, c.args)
			if strings.Contains(r.Content, marker) {
				leaks[c.tool]++
				if leaks[c.tool] == 1 {
					t.Errorf("round %d: %s %v read outside: %s", round, c.tool, c.args, short(r.Content, 200))
				}
			}
		}
		// Put back what the calls moved, so that every round starts alike.
		writeFiles(t, f.ws, map[string]string{"victim.txt": "victim CANARY\n"})
		if d := diffSnapshots(before, f.outsideSnapshot(t)); len(d) > 0 {
			sw.stop()
			t.Fatalf("round %d changed the outside:\n%s", round, strings.Join(d, "\n"))
		}
	}
	sw.stop()
	t.Logf("%d rounds, %d swaps; leaks by tool: %v", raceRounds(), sw.swaps.Load(), leaks)
}

// TestEscapeSymlinkSwapRaceLsLink is the swap race for what ls prints of a
// symlink, its target: the walk lists the directory beneath the root, and
// the target must be read beneath the root too (workspace.Readlink), not
// with os.Readlink(abs), which follows a directory above the link swapped
// for a symlink since and prints the target of a link outside.
func TestEscapeSymlinkSwapRaceLsLink(t *testing.T) {
	f := newEscapeFixture(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	writeFiles(t, f.ws, map[string]string{"race/f.txt": "inside\n"})
	for link, target := range map[string]string{
		filepath.Join(f.ws, "race", "lnk"):    "inside-target",
		filepath.Join(f.canary, "dir", "lnk"): marker + "-target",
		filepath.Join(f.ws, "race.alt"):       "../canary/dir",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Skip(err)
		}
	}
	s := startServer(t, f.ws, nil)
	sw := startSwapper(t, filepath.Join(f.ws, "race"), filepath.Join(f.ws, "race.alt"))
	leaks := 0
	for round := range 4 * raceRounds() {
		for _, args := range []map[string]any{{"path": "race"}, {}} {
			r := s.call("ls", args)
			if strings.Contains(r.Content, marker) {
				leaks++
				if leaks == 1 {
					t.Errorf("round %d: ls %v printed an outside link's target: %s", round, args, short(r.Content, 200))
				}
			}
		}
	}
	sw.stop()
	t.Logf("%d rounds, %d swaps; %d leaks", 4*raceRounds(), sw.swaps.Load(), leaks)
}

// TestEscapeSymlinkSwapRaceCodeIndex is the swap race for the code index.
// It read the files its walk listed by absolute path (extractor.read,
// readDisk for the text of search results, references and the map), so a
// directory swapped for a symlink since the walk made it index and print
// an outside file in about half of the rounds; it reads through
// workspace.FileReader, beneath the folder, now.
func TestEscapeSymlinkSwapRaceCodeIndex(t *testing.T) {
	f := newEscapeFixture(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	writeFiles(t, f.ws, map[string]string{
		"race/a.go": "package race\n\n// Target is inside.\nfunc Target() {}\n\nfunc use() { Target() }\n",
	})
	writeFiles(t, f.base, map[string]string{
		"canary/dir/a.go": "package race\n\n// " + marker + "\nfunc Target() { Target() } // " + marker + "\n\nfunc Canary7f3a9() { Target() } // " + marker + "\n",
	})
	if err := os.Symlink("../canary/dir", filepath.Join(f.ws, "race.alt")); err != nil {
		t.Skip(err)
	}
	s := startServer(t, f.ws, nil)
	// Indexed before the swapping starts (a call waits for the build), so
	// that the index holds race/a.go whatever the walk would have met.
	if r := s.call("code_index", map[string]any{"action": "search", "query": "Target"}); !strings.Contains(r.Content, "race/a.go") {
		t.Fatalf("race/a.go is not indexed: %s", short(r.Content, 300))
	}
	sw := startSwapper(t, filepath.Join(f.ws, "race"), filepath.Join(f.ws, "race.alt"))
	calls := []map[string]any{
		{"action": "search", "query": "Target"},
		{"action": "search", "query": "Canary7f3a9"},
		{"action": "references", "query": "Target"},
		{"action": "outline", "path": "race/a.go"},
		{"action": "map"},
	}
	leaks := map[string]int{}
	for round := range raceRounds() {
		for _, args := range calls {
			r := s.call("code_index", args)
			if strings.Contains(r.Content, marker) { // the outside file's lines carry it
				a := args["action"].(string)
				leaks[a]++
				if leaks[a] == 1 {
					t.Errorf("round %d: code_index %v printed an outside file: %s", round, args, short(r.Content, 300))
				}
			}
		}
	}
	sw.stop()
	t.Logf("%d rounds, %d swaps; leaks by action: %v", raceRounds(), sw.swaps.Load(), leaks)
}

// TestEscapeRecursiveDeleteRace: while delete_file removes a large tree, a
// directory in it is swapped with a symlink to a directory outside. The
// outside directory and its files must survive.
func TestEscapeRecursiveDeleteRace(t *testing.T) {
	f := newEscapeFixture(t)
	before := f.outsideSnapshot(t)
	s := startServer(t, f.ws, nil)
	rounds := 8
	if testing.Short() {
		rounds = 3
	}
	for round := range rounds {
		files := map[string]string{}
		for i := range 60 {
			for j := range 5 {
				files[fmt.Sprintf("tree/d%02d/sub/f%d.txt", i, j)] = "x"
			}
		}
		writeFiles(t, f.ws, files)
		// Swap a directory near the end of the walk and one near the start.
		for _, d := range []string{"d01", "d58"} {
			if err := os.Symlink("../../canary/dir", filepath.Join(f.ws, "tree", d+".alt")); err != nil {
				t.Fatal(err)
			}
		}
		sw1 := startSwapper(t, filepath.Join(f.ws, "tree", "d01"), filepath.Join(f.ws, "tree", "d01.alt"))
		sw2 := startSwapper(t, filepath.Join(f.ws, "tree", "d58", "sub"), filepath.Join(f.ws, "tree", "d58.alt"))
		r := s.call("delete_file", map[string]any{"path": "tree", "recursive": true})
		sw1.stop()
		sw2.stop()
		if d := diffSnapshots(before, f.outsideSnapshot(t)); len(d) > 0 {
			t.Fatalf("round %d: delete_file tree (%s) changed the outside:\n%s", round, short(r.Content, 200), strings.Join(d, "\n"))
		}
		os.RemoveAll(filepath.Join(f.ws, "tree"))
	}
}
