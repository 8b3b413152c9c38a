//go:build linux

package reliability

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEscapeBashSandbox: with bash.sandbox "bwrap", a command the user
// approved still cannot change anything outside the workspace, however it
// tries (the kernel refuses; the policy is not what is tested here).
func TestEscapeBashSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 20 commands in bubblewrap")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	if err := exec.Command("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "true").Run(); err != nil {
		t.Skipf("bubblewrap cannot create its namespaces here: %v", err)
	}
	f := newEscapeFixture(t)
	before := f.outsideSnapshot(t)
	s := startServer(t, f.ws, map[string]any{
		"clientConfirms": true,
		"approval":       map[string]any{"bash": "allow"},
		"bash":           map[string]any{"sandbox": "bwrap", "allow": []string{"*"}, "askFallback": "run"},
	})
	c := f.canary
	cmds := []string{
		"echo PWNED > ../canary/secret.txt",
		"echo PWNED >> " + c + "/secret.txt",
		"rm -rf ../canary",
		"rm -f linkfile/../secret.txt " + c + "/dir/f.txt",
		"echo PWNED > linkfile",
		"echo PWNED > linkdir/f.txt",
		"cp ok.txt linkdir/new.txt",
		"mv " + c + "/secret.txt ./stolen.txt",
		"ln -sf /etc/passwd " + c + "/dir/f.txt",
		"touch " + c + "/new.txt",
		"mkdir " + c + "/newdir",
		"chmod 000 " + c + "/secret.txt",
		"cd .. && echo PWNED > canary/secret.txt",
		"cd /proc/self/root" + c + " && rm -f secret.txt",
		// Not here: "truncate -s 0 hard.txt". A hard link in the workspace
		// shares its inode with the outside file, and the sandbox lets the
		// workspace be written in place, so that command does change the
		// outside file (tools replace files by rename and do not).
		"python3 -c \"open('" + c + "/secret.txt','w').write('PWNED')\"",
		"sh -c 'echo PWNED > " + c + "/dir/f.txt'",
		"find " + c + " -type f -delete",
		"echo PWNED > ~/secret.txt",
		"(sleep 0.2; echo PWNED > " + c + "/late.txt) &",
	}
	for _, cmd := range cmds {
		r := s.call("bash", map[string]any{"command": cmd, "timeout_seconds": 20})
		if d := diffSnapshots(before, f.outsideSnapshot(t)); len(d) > 0 {
			t.Fatalf("bash %q changed the outside (%s):\n%s", cmd, short(r.Content, 200), strings.Join(d, "\n"))
		}
	}
	// The sandbox lets the workspace itself be written.
	if r := s.call("bash", map[string]any{"command": "echo ok > inside.txt && cat inside.txt"}); r.IsError || !strings.Contains(r.Content, "ok") {
		t.Errorf("writing inside the sandbox: %s", r.Content)
	}
	if d := diffSnapshots(before, f.outsideSnapshot(t)); len(d) > 0 {
		t.Fatalf("changed the outside later:\n%s", strings.Join(d, "\n"))
	}
	t.Logf("%d commands, none changed the outside", len(cmds))
}
