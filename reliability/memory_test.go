//go:build linux

package reliability

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxCallRSS is the most memory one tool call may take, whatever the size
// of the files it meets (issue #21).
const maxCallRSS = 200 << 20

// sparseFile makes a file of size bytes at p that starts with head and is
// a hole after it (no disk space, reads as NUL bytes).
func sparseFile(t *testing.T, p, head string, size int64) {
	t.Helper()
	if err := os.WriteFile(p, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, size); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
}

// callRSS runs `agentls call -C root tool args` as a child process and
// returns its output and its peak resident set size. The child is started
// by a small python3 process that forks it (a plain fork, so that the
// child's ru_maxrss starts from python's few MB: a child this test process
// started directly would count this process's own peak, which under -race
// is hundreds of MB) and reports RUSAGE_CHILDREN. The child runs under a
// 4 GB address-space limit, so that a regression fails this test instead
// of exhausting the machine.
func callRSS(t *testing.T, root, tool string, args map[string]any) (string, int64) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is needed to measure a child's peak RSS")
	}
	bin := agentlsBinary(t)
	var argv []string
	for k, v := range args {
		argv = append(argv, fmt.Sprintf("%q:%s", k, jsonOf(v)))
	}
	const measure = `import resource, subprocess, sys
def limit():
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
p = subprocess.run(sys.argv[1:], preexec_fn=limit, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.buffer.write(p.stdout)
sys.stderr.write("maxrss %d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(p.returncode)
`
	cmd := exec.Command(py, "-c", measure, bin, "call", "-C", root, tool, "{"+strings.Join(argv, ",")+"}")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(t.TempDir(), "cache"))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	var kb int64
	report := stderr.String()
	i := strings.LastIndex(report, "maxrss ")
	if i < 0 {
		t.Fatalf("no peak RSS from the measuring process: %q", report)
	}
	if _, err := fmt.Sscanf(report[i:], "maxrss %d", &kb); err != nil {
		t.Fatalf("no peak RSS from the measuring process: %q", stderr.String())
	}
	return stdout.String(), kb << 10 // kilobytes on Linux
}

func jsonOf(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprint(v)
}

// TestMemoryBounded: a windowed read_file of a 2 GB file, grep over two
// 2 GB sparse files and one that starts as text, and grep over a file a
// writer keeps growing each stay under maxCallRSS (before: 2 GB, 4.1 GB,
// 8.3 GB and growing), and answer.
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads gigabytes of sparse files")
	}
	root := tempRoot(t)
	var head strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&head, "line %d of the log, with the word needle\n", i)
	}
	const gb2 = 2 << 30
	sparseFile(t, filepath.Join(root, "big.log"), head.String(), gb2)
	sparseFile(t, filepath.Join(root, "disk1.img"), "", gb2)
	sparseFile(t, filepath.Join(root, "disk2.img"), "", gb2)
	writeFiles(t, root, map[string]string{"small.txt": "a needle here\n"})

	check := func(what, out string, rss int64, want string) {
		t.Helper()
		t.Logf("%s: peak RSS %.1f MB", what, float64(rss)/(1<<20))
		if rss > maxCallRSS {
			t.Errorf("%s: peak RSS %d MB, over %d MB", what, rss>>20, maxCallRSS>>20)
		}
		if strings.Contains(out, "fatal error") || strings.Contains(out, "out of memory") {
			t.Errorf("%s: the call crashed: %s", what, short(out, 300))
		} else if !strings.Contains(out, want) {
			t.Errorf("%s: output %q lacks %q", what, short(out, 300), want)
		}
	}

	out, rss := callRSS(t, root, "read_file", map[string]any{"path": "big.log", "offset": 11, "limit": 5})
	check("read_file big.log offset 11 limit 5", out, rss, "11→line 11 of the log")
	// The window reaches the 2 GB line of NUL bytes after the text: it is
	// cut, not held.
	out, rss = callRSS(t, root, "read_file", map[string]any{"path": "big.log", "offset": 299, "limit": 5})
	check("read_file big.log offset 299 (into a 2 GB line)", out, rss, "[line cut:")
	out, rss = callRSS(t, root, "grep", map[string]any{"pattern": "needle"})
	check("grep needle over 3 files of 2 GB", out, rss, "small.txt:1:a needle here")
	out, rss = callRSS(t, root, "grep", map[string]any{"pattern": "needle", "path": "big.log", "output_mode": "count"})
	check("grep -c needle big.log", out, rss, "")

	// A file a writer keeps growing (by holes of 256 MB, up to 64 GB)
	// while grep reads it: grep reads the size it saw and answers.
	// It starts at 64 MB, so that it grows while grep reads it.
	grow := filepath.Join(root, "grow.log")
	sparseFile(t, grow, head.String(), 64<<20)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for size := int64(64 << 20); ctx.Err() == nil && size < 64<<30; size += 256 << 20 {
			if os.Truncate(grow, size) != nil {
				return
			}
		}
	}()
	out, rss = callRSS(t, root, "grep", map[string]any{"pattern": "needle", "path": "grow.log", "output_mode": "count"})
	cancel()
	<-done
	check("grep on a growing file", out, rss, "")
}

// TestEditResultOverLimit: an edit_file whose result would be over the size
// of file the tools read is refused, and changes nothing; write_file over a
// file too large to read first is refused too.
func TestEditResultOverLimit(t *testing.T) {
	root := tempRoot(t)
	text := strings.Repeat("abcdefgh\n", 6<<20/9) // 6 MB
	writeFiles(t, root, map[string]string{"six.txt": text, "big.txt": text + text})
	s := startServer(t, root, nil)
	if r := s.call("read_file", map[string]any{"path": "six.txt"}); r.IsError {
		t.Fatal(r.Content)
	}
	r := s.call("edit_file", map[string]any{"path": "six.txt", "old_string": "abcdefgh", "new_string": "abcdefgh abcdefgh", "replace_all": true})
	if !r.IsError || !strings.Contains(r.Content, "over the 10 MiB limit") {
		t.Errorf("edit_file to 13 MB = %q", short(r.Content, 200))
	}
	r = s.call("write_file", map[string]any{"path": "big.txt", "content": "small\n"})
	if !r.IsError || !strings.Contains(r.Content, "big.txt is over the 10 MiB limit") {
		t.Errorf("write_file over 12 MB = %q", short(r.Content, 200))
	}
	for name, want := range map[string]string{"six.txt": text, "big.txt": text + text} {
		if got, _ := os.ReadFile(filepath.Join(root, name)); string(got) != want {
			t.Errorf("%s changed", name)
		}
	}
}

// TestMemoryBoundedLargeText: grep over text files of tens of MB, larger
// than the parts grep holds at once, stays under maxCallRSS and finds
// everything: a multiline pattern that matches across every line end, so
// that every seam between two parts cuts a match (before, each seam lost
// one), a multiline pattern matching every character (before, 1.1 GB: the
// regexp's list of every match of a part), and a UTF-16 file (before, read
// as binary past 8 MiB: no match).
func TestMemoryBoundedLargeText(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 63 MB of text")
	}
	root := tempRoot(t)
	const lines = 1500000
	var b strings.Builder
	b.Grow(lines * 14)
	for i := range lines {
		fmt.Fprintf(&b, "seg %07d A\n", i)
	}
	text := b.String()
	utf16 := make([]byte, 0, 2+2*len(text))
	utf16 = append(utf16, 0xFF, 0xFE)
	for i := 0; i < len(text); i++ { // ASCII: one unit a byte
		utf16 = append(utf16, text[i], 0)
	}
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "wide.txt"), utf16, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		args map[string]any
		want string
	}{
		{"grep -U -c across every line end of 21 MB", map[string]any{"pattern": `A\nseg`, "multiline": true, "path": "big.txt", "output_mode": "count"},
			fmt.Sprintf("big.txt:%d", lines-1)},
		{"grep -U -c with a match at every character of 21 MB", map[string]any{"pattern": `(?s).`, "multiline": true, "path": "big.txt", "output_mode": "count"},
			fmt.Sprintf("big.txt:%d", lines)},
		{"grep -c in 42 MB of UTF-16", map[string]any{"pattern": `seg \d+ A`, "path": "wide.txt", "output_mode": "count"},
			fmt.Sprintf("wide.txt:%d", lines)},
		{"grep in 42 MB of UTF-16, its last line", map[string]any{"pattern": fmt.Sprintf("seg %07d", lines-1), "path": "wide.txt"},
			fmt.Sprintf("wide.txt:%d:seg %07d A", lines, lines-1)},
	} {
		out, rss := callRSS(t, root, "grep", c.args)
		t.Logf("%s: peak RSS %.1f MB", c.what, float64(rss)/(1<<20))
		if rss > maxCallRSS {
			t.Errorf("%s: peak RSS %d MB, over %d MB", c.what, rss>>20, maxCallRSS>>20)
		}
		if strings.TrimSpace(out) != c.want {
			t.Errorf("%s: %q, want %q", c.what, short(out, 300), c.want)
		}
	}
}
