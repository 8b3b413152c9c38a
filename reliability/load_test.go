package reliability

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/agentls/agentls/lsp/lsptest"
)

// children counts this process's child processes.
func children() int {
	n := 0
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		n += len(strings.Fields(string(b)))
	}
	return n
}

// settle waits (bounded) until the goroutine count is at most want, and
// returns the last count: goroutines of a closed connection end soon after
// it closes, not at the instant.
func settle(want int) int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		runtime.Gosched()
		time.Sleep(5 * time.Millisecond)
	}
}

// randomEdit is a random edit of text in UTF-16 positions: an insertion
// (sometimes of several lines, of CJK or emoji), a deletion within a line,
// or a replacement across lines. Large texts get deletions, so the text
// stays around maxLen.
func randomEdit(rng *rand.Rand, text string, maxLen int) lsptest.TextEdit {
	lines := strings.Split(text, "\n")
	pos := func() lsptest.Position {
		l := rng.IntN(len(lines))
		runes := []rune(lines[l])
		k := rng.IntN(len(runes) + 1)
		return lsptest.Position{Line: uint32(l), Character: uint32(len(utf16.Encode(runes[:k])))}
	}
	inserts := []string{"x", "ab", "\n", "é", "日本", "🙂", "line\nnext ", "\t", "über\n", "z"}
	a, b := pos(), pos()
	if b.Line < a.Line || b.Line == a.Line && b.Character < a.Character {
		a, b = b, a
	}
	switch r := rng.IntN(10); {
	case len(text) > maxLen || r < 3:
		if b.Line > a.Line+3 { // keep deletions small: to the end of a's line
			b = lsptest.Position{Line: a.Line, Character: uint32(len(utf16.Encode([]rune(lines[a.Line]))))}
		}
		return lsptest.TextEdit{Range: lsptest.Range{Start: a, End: b}}
	case r < 5:
		if b.Line > a.Line+2 {
			b = a
		}
		return lsptest.TextEdit{Range: lsptest.Range{Start: a, End: b}, NewText: inserts[rng.IntN(len(inserts))]}
	default:
		return lsptest.TextEdit{Range: lsptest.Range{Start: a, End: a}, NewText: inserts[rng.IntN(len(inserts))]}
	}
}

// bufferText rebuilds a file's text from read_file's numbered lines.
func bufferText(t *testing.T, s *server, rel string) string {
	t.Helper()
	r := s.call("read_file", map[string]any{"path": rel, "limit": 1000000})
	if r.IsError {
		t.Fatalf("read_file %s: %s", rel, r.Content)
	}
	var lines []string
	for _, l := range strings.Split(r.Content, "\n") {
		_, text, ok := strings.Cut(l, "→")
		if !ok {
			break // a trailer
		}
		lines = append(lines, text)
	}
	return strings.Join(lines, "\n")
}

// TestLoad runs 1,000 concurrent read-only calls while a stream of 10,000
// didChange notifications edits an open buffer, then edits through the
// tools. No call fails, the server's buffer equals the editor's (no change
// lost or reordered), the heap stays bounded, and after exit no goroutine
// or child process is left.
func TestLoad(t *testing.T) {
	nCalls, nChanges := 1000, 10000
	if testing.Short() {
		nCalls, nChanges = 200, 2000
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := tempRoot(t)
	files := map[string]string{"doc.txt": "first line\nsecond line\n"}
	for i := range 200 {
		files[fmt.Sprintf("pkg%d/file%d.go", i%10, i)] = fmt.Sprintf("package pkg%d\n\n// Func%d does thing %d.\nfunc Func%d() int { return %d }\n", i%10, i, i, i, i)
	}
	writeFiles(t, root, files)

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heapBefore := ms.HeapAlloc
	goBefore, childBefore := runtime.NumGoroutine(), children()
	t.Cleanup(func() { // runs after the editor's own cleanup has closed the pipe
		if n := settle(goBefore); n > goBefore {
			buf := make([]byte, 1<<20)
			t.Errorf("%d goroutines after exit, %d before:\n%s", n, goBefore, buf[:runtime.Stack(buf, true)])
		}
		if n := children(); n > childBefore {
			t.Errorf("%d child processes after exit, %d before", n, childBefore)
		}
	})

	s := startServer(t, root, map[string]any{"approval": map[string]any{"bash": "allow"}, "clientConfirms": true})
	doc := filepath.Join(root, "doc.txt")
	s.Open(doc, files["doc.txt"])

	// A background shell that would outlive the session if exit did not
	// end it.
	if r := s.call("bash", map[string]any{"command": "sleep 300", "run_in_background": true}); r.IsError {
		t.Logf("background bash: %s", short(r.Content, 200))
	}

	readOnly := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "pkg3/file13.go"}},
		{"read_file", map[string]any{"path": "doc.txt"}},
		{"grep", map[string]any{"pattern": "Func1[0-9]"}},
		{"grep", map[string]any{"pattern": "line", "path": "doc.txt"}},
		{"glob", map[string]any{"pattern": "**/*.go"}},
		{"ls", map[string]any{"depth": 2}},
		{"code_index", map[string]any{"action": "search", "query": "Func4"}},
	}
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		latencies []time.Duration
		failures  []string
	)
	start := time.Now()
	for i := range nCalls {
		c := readOnly[i%len(readOnly)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r lsptest.Result
			t0 := time.Now()
			err := s.ExecuteCommand("agentls.callTool", map[string]any{"name": c.tool, "arguments": c.args}, &r)
			d := time.Since(t0)
			mu.Lock()
			defer mu.Unlock()
			latencies = append(latencies, d)
			if err != nil || r.IsError && c.tool != "code_index" {
				failures = append(failures, fmt.Sprintf("%s: %v %s", c.tool, err, short(r.Content, 100)))
			}
		}()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range nChanges {
		text, _, _ := s.Text(doc)
		s.Edit(doc, randomEdit(rng, text, 20000))
	}
	wg.Wait()
	elapsed := time.Since(start)
	if len(failures) > 0 {
		t.Errorf("%d of %d calls failed, e.g. %v", len(failures), nCalls, failures[:min(3, len(failures))])
	}
	slices.Sort(latencies)
	t.Logf("%d read-only calls during %d didChange: %.0f calls/s, p50 %v, p99 %v, max %v",
		nCalls, nChanges, float64(nCalls)/elapsed.Seconds(), latencies[len(latencies)/2], latencies[len(latencies)*99/100], latencies[len(latencies)-1])

	want, version, _ := s.Text(doc)
	s.Sync()
	if got := bufferText(t, s, "doc.txt"); got != strings.TrimSuffix(want, "\n") {
		t.Fatalf("after %d changes (version %d) the server's buffer differs from the editor's:\nserver %q\neditor %q", nChanges, version, short(got, 300), short(want, 300))
	}

	// Then edits: the open buffer (through the editor) and files on disk.
	for i := range 25 {
		s.call("read_file", map[string]any{"path": "doc.txt"})
		marker := "edit-" + strconv.Itoa(i)
		text, _, _ := s.Text(doc)
		firstLine := strings.SplitN(text, "\n", 2)[0]
		if firstLine == "" || strings.Count(text, firstLine) != 1 {
			s.call("write_file", map[string]any{"path": "doc.txt", "content": "unique " + marker + "\n" + text})
			continue
		}
		if r := s.call("edit_file", map[string]any{"path": "doc.txt", "old_string": firstLine, "new_string": firstLine + " " + marker}); r.IsError {
			t.Errorf("edit_file of the open buffer: %s", r.Content)
		}
		rel := fmt.Sprintf("pkg%d/file%d.go", i%10, i)
		s.call("read_file", map[string]any{"path": rel})
		if r := s.call("edit_file", map[string]any{"path": rel, "old_string": fmt.Sprintf("return %d", i), "new_string": "return -1"}); r.IsError {
			t.Errorf("edit_file %s: %s", rel, r.Content)
		}
		if b, _ := os.ReadFile(filepath.Join(root, rel)); !strings.Contains(string(b), "return -1") {
			t.Errorf("%s on disk: %q", rel, b)
		}
	}
	want, _, _ = s.Text(doc)
	s.Sync()
	if got := bufferText(t, s, "doc.txt"); got != strings.TrimSuffix(want, "\n") {
		t.Errorf("after the edits the server's buffer differs from the editor's")
	}

	runtime.GC()
	runtime.ReadMemStats(&ms)
	t.Logf("heap: %d MiB before, %d MiB after; %d goroutines before, %d during; %d children during", heapBefore>>20, ms.HeapAlloc>>20, goBefore, runtime.NumGoroutine(), children())
	if ms.HeapAlloc > heapBefore+256<<20 {
		t.Errorf("heap grew from %d MiB to %d MiB", heapBefore>>20, ms.HeapAlloc>>20)
	}
	if code := s.Shutdown(); code != 0 {
		t.Errorf("exit status %d", code)
	}
}
