package shell

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sandboxSpec is a spec whose workspace is dir/ws, with a sibling dir/out
// that the sandbox must not write.
func sandboxSpec(t *testing.T, script string) (Spec, string) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	dir := t.TempDir()
	ws, tmp, out := filepath.Join(dir, "ws"), filepath.Join(dir, "tmp"), filepath.Join(dir, "out")
	for _, d := range []string{ws, tmp, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sb := &Sandbox{Writable: []string{ws, tmp}}
	if err := sb.Check(); err != nil {
		t.Fatalf("bubblewrap is installed but does not work here: %v", err)
	}
	return Spec{Script: script, Dir: ws, Env: Environ(tmp), Timeout: 30 * time.Second, Sandbox: sb, Grace: 300 * time.Millisecond}, out
}

func TestSandboxFilesystem(t *testing.T) {
	t.Parallel() // waits on the clock, not the CPU
	spec, out := sandboxSpec(t, "")
	spec.Script = fmt.Sprintf(`touch inside.txt && echo inside ok
touch "$TMPDIR/t" && echo tmp ok
touch %q/outside.txt || echo outside refused`, out)
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"inside ok", "tmp ok", "outside refused"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if _, err := os.Stat(filepath.Join(spec.Dir, "inside.txt")); err != nil {
		t.Errorf("the workspace write did not happen: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "outside.txt")); err == nil {
		t.Error("a write outside the workspace happened")
	}
}

func TestSandboxNetwork(t *testing.T) {
	t.Parallel() // waits on the clock, not the CPU
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	spec, _ := sandboxSpec(t, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo connected || echo refused`, port))
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "refused") || strings.Contains(res.Output, "connected") {
		t.Errorf("output = %q", res.Output)
	}
	// Nothing reached the listener: with an immediate deadline, Accept
	// finds no pending connection.
	l.(*net.TCPListener).SetDeadline(time.Now())
	if c, err := l.Accept(); err == nil {
		c.Close()
		t.Error("the sandboxed command connected to the host's loopback listener")
	}

	// Unsandboxed, the same command connects: the test itself is sound.
	plain := testSpec(t, spec.Script)
	go func() {
		l.(*net.TCPListener).SetDeadline(time.Time{})
		if c, err := l.Accept(); err == nil {
			c.Close()
		}
	}()
	res, err = Run(context.Background(), plain)
	if err != nil || !strings.Contains(res.Output, "connected") {
		t.Errorf("unsandboxed: %q, %v", res.Output, err)
	}
}

func TestSandboxTimeoutKillsEverything(t *testing.T) {
	t.Parallel() // waits on the clock, not the CPU
	spec, _ := sandboxSpec(t, stubbornScript)
	spec.Timeout = 500 * time.Millisecond
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Errorf("result %s", res.Status())
	}
	// Inside the PID namespace the printed pids are the namespace's own;
	// check the host side: no process of the group is left.
	if m := groupMembers(t, res.pgid); len(m) > 0 {
		t.Errorf("left in the group: %v", m)
	}
}

func TestSandboxUnavailable(t *testing.T) {
	spec := testSpec(t, "touch ran")
	spec.Sandbox = &Sandbox{Bwrap: filepath.Join(t.TempDir(), "no-bwrap"), Writable: []string{spec.Dir}}
	_, err := Run(context.Background(), spec)
	if !errors.Is(err, ErrSandboxUnavailable) || !strings.Contains(err.Error(), "did not run") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(spec.Dir, "ran")); err == nil {
		t.Error("the command ran unsandboxed")
	}
	if err := spec.Sandbox.Check(); !errors.Is(err, ErrSandboxUnavailable) {
		t.Errorf("Check = %v", err)
	}
}
