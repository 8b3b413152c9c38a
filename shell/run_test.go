package shell

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func testSpec(t *testing.T, script string) Spec {
	t.Helper()
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	return Spec{Script: script, Dir: dir, Env: Environ(tmp), Timeout: 30 * time.Second, Grace: 300 * time.Millisecond}
}

func TestRunExitStatusAndOutput(t *testing.T) {
	t.Setenv("AGENTLS_SECRET", "x")
	spec := testSpec(t, `echo out; echo err >&2; pwd; echo "$TERM $TMPDIR"; exit 3`)
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.Signal != "" || res.Status() != "exit status 3" {
		t.Errorf("status = %q (%+v)", res.Status(), res)
	}
	want := "out\nerr\n" + spec.Dir + "\ndumb " + filepath.Join(spec.Dir, "tmp") + "\n"
	if res.Output != want {
		t.Errorf("output = %q, want %q", res.Output, want)
	}
	for _, kv := range spec.Env {
		if strings.HasPrefix(kv, "AGENTLS_") {
			t.Errorf("environment keeps %s", kv)
		}
	}
}

func TestEnvironPath(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:.::bin:/bin:node_modules/.bin")
	for _, kv := range Environ("/tmp/x") {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok && v != "/usr/bin:/bin" {
			t.Errorf("PATH = %q, want only the absolute entries", v)
		}
	}
}

func TestRunStdinIsDevNull(t *testing.T) {
	res, err := Run(context.Background(), testSpec(t, `cat; echo end`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "end\n" || res.ExitCode != 0 {
		t.Errorf("got %q %s", res.Output, res.Status())
	}
}

func TestRunStreams(t *testing.T) {
	spec := testSpec(t, `for i in 1 2 3; do echo line $i; done`)
	var mu sync.Mutex
	var streamed strings.Builder
	spec.Stream = func(b []byte) {
		mu.Lock()
		streamed.Write(b)
		mu.Unlock()
	}
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if streamed.String() != res.Output || res.Output != "line 1\nline 2\nline 3\n" {
		t.Errorf("streamed %q, output %q", streamed.String(), res.Output)
	}
}

func TestRunCapsOutput(t *testing.T) {
	t.Parallel() // waits on the clock, not the CPU
	// 200,000 lines of 8 bytes: far more than MaxOutputChars.
	res, err := Run(context.Background(), testSpec(t, `seq -f '%07g' 1 200000`))
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(res.Output)); n > MaxOutputChars+200 {
		t.Fatalf("output has %d characters", n)
	}
	if !strings.HasPrefix(res.Output, "0000001\n0000002\n") || !strings.HasSuffix(res.Output, "0199999\n0200000\n") {
		t.Errorf("head or tail missing: %q … %q", res.Output[:40], res.Output[len(res.Output)-40:])
	}
	if !strings.Contains(res.Output, "bytes (") || !strings.Contains(res.Output, "lines) of output cut") {
		t.Errorf("no note of the cut")
	}
}

func TestCapText(t *testing.T) {
	s := strings.Repeat("é", 50) + strings.Repeat("x\n", 50) + strings.Repeat("ü", 50)
	got := capText(s, 100)
	if !strings.HasPrefix(got, strings.Repeat("é", 50)) || !strings.HasSuffix(got, strings.Repeat("ü", 50)) {
		t.Errorf("capText = %q", got)
	}
	if !strings.Contains(got, "[… 100 bytes (50 lines) of output cut …]") {
		t.Errorf("capText note wrong: %q", got)
	}
	if capText("short", 100) != "short" {
		t.Error("short text changed")
	}
}

// stubbornScript starts two children and a grandchild that ignore SIGTERM,
// prints their pids, and waits.
const stubbornScript = `
echo pgid $$
trap '' TERM
sleep 1000 & echo $!
( trap '' TERM; sleep 1000 & echo $!; wait ) &
echo ready
wait
`

// groupMembers lists the processes (zombies included) whose process group
// is pgid, from /proc.
func groupMembers(t *testing.T, pgid int) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) {
			out = append(out, e.Name()+" "+fields[0])
		}
	}
	return out
}

func TestRunTimeoutKillsWholeGroup(t *testing.T) {
	t.Parallel() // waits on the clock, not the CPU
	spec := testSpec(t, stubbornScript)
	spec.Timeout = 500 * time.Millisecond
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Signal != "SIGKILL" {
		t.Errorf("result %s, want killed by SIGKILL after the timeout", res.Status())
	}
	assertNoSurvivors(t, res.Output)
}

func TestRunCancelKillsGroup(t *testing.T) {
	t.Parallel() // waits on the clock, not the CPU
	spec := testSpec(t, stubbornScript)
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	spec.Stream = func(b []byte) {
		if strings.Contains(string(b), "ready") {
			once.Do(cancel)
		}
	}
	res, err := Run(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled {
		t.Fatalf("result %s, want cancelled", res.Status())
	}
	assertNoSurvivors(t, res.Output)
}

// assertNoSurvivors checks that none of the pids printed by stubbornScript
// exists any more, not even as a zombie.
func assertNoSurvivors(t *testing.T, output string) {
	t.Helper()
	n := 0
	for _, line := range strings.Split(output, "\n") {
		if pgid, ok := strings.CutPrefix(line, "pgid "); ok {
			id, _ := strconv.Atoi(pgid)
			if m := groupMembers(t, id); len(m) > 0 {
				t.Errorf("process group %d still has %v", id, m)
			}
			continue
		}
		pid, err := strconv.Atoi(line)
		if err != nil {
			continue
		}
		n++
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			t.Errorf("process %d survives: %s", pid, stat)
		}
	}
	if n != 2 {
		t.Errorf("expected two child pids in %q", output)
	}
}

func TestRunNormalExitEndsLeftovers(t *testing.T) {
	t.Parallel() // waits on the clock, not the CPU
	// The shell exits at once; a child that ignores SIGTERM is left behind
	// and must be ended too.
	spec := testSpec(t, `(trap '' TERM; exec sleep 1000) > /dev/null 2>&1 & echo $!`)
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Errorf("status %s", res.Status())
	}
	pid := strings.TrimSpace(res.Output)
	if stat, err := os.ReadFile("/proc/" + pid + "/stat"); err == nil {
		t.Errorf("leftover %s survives: %s", pid, stat)
	}
}

// TestCaptureMatchesCapText writes texts in uneven chunks: the streaming
// capture must show exactly what capText shows for the whole text.
func TestCaptureMatchesCapText(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 10, 99, 100, 101, 250, 401, 5000} {
		var sb strings.Builder
		for sb.Len() < size {
			switch r.IntN(4) {
			case 0:
				sb.WriteString("\n")
			case 1:
				sb.WriteString("é")
			case 2:
				sb.WriteString("世")
			default:
				sb.WriteString("abc")
			}
		}
		s := sb.String()
		c := newCapture(100)
		for rest := []byte(s); len(rest) > 0; {
			n := min(1+r.IntN(70), len(rest))
			c.Write(rest[:n])
			rest = rest[n:]
		}
		if got, want := c.String(), capText(s, 100); got != want {
			t.Errorf("size %d:\n got %q\nwant %q", size, got, want)
		}
	}
}

// TestSubreaperReapsOrphans: as a subreaper, the test process inherits the
// killed children of the group; they must be reaped, not left as zombies.
func TestSubreaperReapsOrphans(t *testing.T) {
	if err := EnableSubreaper(true); err != nil {
		t.Skipf("no subreaper here: %v", err)
	}
	t.Cleanup(func() { EnableSubreaper(false) })
	spec := testSpec(t, stubbornScript)
	spec.Timeout = 300 * time.Millisecond
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Errorf("result %s", res.Status())
	}
	assertNoSurvivors(t, res.Output)
	if m := groupMembers(t, res.pgid); len(m) > 0 {
		t.Errorf("left in the group: %v", m)
	}
}
