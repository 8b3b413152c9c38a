//go:build linux

package reliability

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// procsWith lists the pids whose command line contains marker.
func procsWith(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), marker) {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
				continue // a zombie: dead, waiting for its parent
			}
			out = append(out, pid)
		}
	}
	return out
}

// waitProcs waits (bounded) until n processes carry marker.
func waitProcs(t *testing.T, marker string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(procsWith(marker)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the commands marked %s did not start", marker)
		}
		time.Sleep(10 * time.Millisecond) // polling /proc: nothing to wait on
	}
}

// TestExitKillsProcesses: a server with a foreground bash command running
// and a background job is ended by each way an editor ends it — shutdown
// (then exit), SIGTERM, SIGHUP (Emacs sends it when it quits), its input
// closed — and no process of either command survives: on shutdown none
// is left when the answer comes, since a client kills its server right
// after exit.
func TestExitKillsProcesses(t *testing.T) {
	bin := agentlsBinary(t)
	for _, how := range []string{"shutdown", "SIGTERM", "SIGHUP", "stdin closed"} {
		t.Run(how, func(t *testing.T) {
			p := startProcWith(t, bin, tempRoot(t), map[string]any{"clientConfirms": true, "bash": map[string]any{"sandbox": "off"}})

			marker := fmt.Sprintf("%d", 700000+os.Getpid()%10000*10+len(how))
			bg := p.callTool("bash", map[string]any{"command": "sleep " + marker + "1", "run_in_background": true})
			if bg.Error != nil || strings.Contains(string(bg.Result), `"isError":true`) {
				t.Fatalf("background job: %s", bg.raw)
			}
			args, _ := json.Marshal(map[string]any{"command": "agentls.callTool", "arguments": []any{map[string]any{
				"name": "bash", "arguments": map[string]any{"command": "sleep " + marker + "2; true"}}}})
			p.writeFrame(`{"jsonrpc":"2.0","id":"fg","method":"workspace/executeCommand","params":` + string(args) + `}`)
			waitProcs(t, "sleep "+marker, 2)

			switch how {
			case "shutdown":
				m := p.request("shutdown", nil)
				if m.Error != nil {
					t.Fatalf("shutdown: %s", m.raw)
				}
				if left := procsWith("sleep " + marker); len(left) > 0 {
					t.Errorf("shutdown answered with the commands still running: pids %v", left)
				}
				p.writeFrame(`{"jsonrpc":"2.0","method":"exit"}`)
			case "SIGTERM":
				p.cmd.Process.Signal(syscall.SIGTERM)
			case "SIGHUP":
				p.cmd.Process.Signal(syscall.SIGHUP)
			case "stdin closed":
				p.w.Close()
			}
			// The server ends on its own (within the test's bound).
			exited := make(chan error, 1)
			go func() { exited <- p.cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("the server did not exit after %s; stderr:\n%s", how, p.stderr.String())
			}
			if left := procsWith("sleep " + marker); len(left) > 0 {
				for _, pid := range left {
					syscall.Kill(pid, syscall.SIGKILL)
				}
				t.Errorf("after %s, commands survived the server: pids %v", how, left)
			}
		})
	}
}

// TestStaleSessionDirsRemoved: the session temp directory of a server
// killed with SIGKILL (its pid gone) is removed when the next server
// starts; one of a live process stays.
func TestStaleSessionDirsRemoved(t *testing.T) {
	bin := agentlsBinary(t)
	tmp := t.TempDir()
	// A pid that is surely gone: a child that has exited and been reaped.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(tmp, fmt.Sprintf("agentls-session-%d-123", dead.Process.Pid))
	live := filepath.Join(tmp, fmt.Sprintf("agentls-session-%d-456", os.Getpid()))
	other := filepath.Join(tmp, "agentls-session-789") // the old naming: no pid
	for _, d := range []string{stale, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "x"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "serve", "--stdio")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	cmd.Stdin = strings.NewReader("") // ends at once
	if out, err := cmd.CombinedOutput(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%v: %s", err, out)
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("the session dir of a dead server is still there")
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}
