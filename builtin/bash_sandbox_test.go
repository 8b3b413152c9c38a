package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/shell"
	"github.com/agentls/agentls/workspace"
)

const sandboxSecret = "s3cr3t-sandbox-77e1"

// sandboxSession is a bash session over a workspace with a denied .env, a
// git directory, and a sibling directory outside it; it skips the test when
// bubblewrap is not usable.
func sandboxSession(t *testing.T, settings string, ask func(context.Context, string) (bool, error)) (context.Context, *workspace.Session, string) {
	t.Helper()
	if err := shell.Probe(""); err != nil {
		t.Skipf("bubblewrap is not usable here: %v", err)
	}
	ctx, s := bashSession(t, settings, ask)
	writeWS(t, s, ".env", "TOKEN="+sandboxSecret+"\n")
	writeWS(t, s, ".git/config", "[core]\n\trepositoryformatversion = 0\n")
	writeWS(t, s, ".git/hooks/pre-commit", "#!/bin/sh\n")
	outside := t.TempDir()
	return ctx, s, outside
}

func allowAll(context.Context, string) (bool, error) { return true, nil }

// listen starts a loopback listener that counts connections.
func listen(t *testing.T) (port int, conns func() int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := make(chan struct{}, 64)
	done := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n <- struct{}{}
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, func() int { return len(n) }
}

func TestBashReadOnlyCommandsRunReadOnly(t *testing.T) {
	ctx, s, outside := sandboxSession(t, "", neverAsk(t))
	outside = filepath.Join(outside, "sub")
	// cat is read-only, so it runs without asking, in the read-only
	// sandbox: the denied file reads as empty.
	// A hard link to it under another name reads as empty too.
	if err := os.Link(filepath.Join(s.WS.Root(), ".env"), filepath.Join(s.WS.Root(), "env.txt")); err != nil {
		t.Fatal(err)
	}
	out := mustExec(t, ctx, "bash", map[string]any{"command": "cat .env env.txt; wc -c < .env; wc -c < env.txt; ls " + outside + " || echo no-outside-tmp"})
	wantOut(t, out, "0\n0\n", "no-outside-tmp") // the host's /tmp is not visible
	if strings.Contains(out, sandboxSecret) {
		t.Errorf("a read-only command printed a denied file: %s", out)
	}
	// Read-only commands see a private /tmp as TMPDIR, and HOME-side caches there.
	if out := mustExec(t, ctx, "bash", map[string]any{"command": "cat .git/config"}); strings.Contains(out, "repositoryformatversion") {
		t.Errorf("a read-only command read .git/config (on the secrets deny list): %s", out)
	}
	out = mustExec(t, ctx, "bash", map[string]any{"command": `echo "$TMPDIR $GOCACHE"`})
	wantOut(t, out, "/tmp /tmp/.cache/go-build")
	if _, err := os.Stat(filepath.Join(s.WS.Root(), ".env")); err != nil {
		t.Error(err)
	}
}

func TestBashApprovedCommandsRunWorkspaceWrite(t *testing.T) {
	ctx, s, outside := sandboxSession(t, "", allowAll)
	out := mustExec(t, ctx, "bash", map[string]any{"command": fmt.Sprintf(
		`touch in.txt; touch %s/out.txt; echo x >> .git/hooks/pre-commit; echo x >> .git/config; cat .env; cat .git/config; echo end`, outside)})
	// .git/config is read-only but visible (git push needs its remotes).
	wantOut(t, out, "Read-only file system", "repositoryformatversion", "end")
	if strings.Contains(out, sandboxSecret) {
		t.Errorf("an approved command printed a denied file: %s", out)
	}
	if _, err := os.Stat(filepath.Join(s.WS.Root(), "in.txt")); err != nil {
		t.Errorf("workspace write failed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
		t.Error("the sandbox let a write outside the workspace through")
	}
	if got := readWS(t, s, ".git/hooks/pre-commit"); got != "#!/bin/sh\n" {
		t.Errorf(".git/hooks/pre-commit = %q", got)
	}
	if got := readWS(t, s, ".git/config"); strings.Contains(got, "x") && !strings.Contains(got, "repositoryformatversion") || strings.HasSuffix(got, "x\n") {
		t.Errorf(".git/config = %q", got)
	}
}

func TestBashNetworkSettings(t *testing.T) {
	port, conns := listen(t)
	connect := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo connected || echo no-network`, port)
	for _, c := range []struct {
		settings string
		want     string
	}{
		{``, "connected"},
		{`{"bash":{"network":false}}`, "no-network"},
		{`{"bash":{"sandbox":"strict"}}`, "no-network"},
		{`{"bash":{"sandbox":"strict","network":true}}`, "no-network"},
		{`{"bash":{"sandbox":"bwrap"}}`, "no-network"}, // the old value: strict
	} {
		ctx, _, _ := sandboxSession(t, c.settings, allowAll)
		before := conns()
		out := mustExec(t, ctx, "bash", map[string]any{"command": connect})
		if !strings.Contains(out, c.want) {
			t.Errorf("%s: %s, want %s", c.settings, out, c.want)
		}
		if c.want == "no-network" && conns() != before {
			t.Errorf("%s: the listener saw a connection", c.settings)
		}
	}
	// Input from /dev/tcp is not read-only to the classifier (and the
	// read-only sandbox has no network: shell's TestSandboxNetwork).
	ctx, _, _ := sandboxSession(t, "", nil)
	before := conns()
	wantErr(t, ctx, "bash", map[string]any{"command": fmt.Sprintf("wc -c < /dev/tcp/127.0.0.1/%d", port)}, "needs approval", "outside the workspace")
	if conns() != before {
		t.Error("a command that needed approval connected")
	}
}

func TestBashSandboxOff(t *testing.T) {
	var asked []string
	ctx, s, outside := sandboxSession(t, `{"bash":{"sandbox":"off"}}`, func(_ context.Context, q string) (bool, error) {
		asked = append(asked, q)
		return false, nil
	})
	// Read-only commands run unconfined, except those naming a denied file.
	out := mustExec(t, ctx, "bash", map[string]any{"command": "ls " + outside + "; echo $TMPDIR"})
	wantOut(t, out, filepath.Join(sessionTemp(t, s), "tmp"))
	wantErr(t, ctx, "bash", map[string]any{"command": "cat .env"}, "declined", "secrets deny list")
	wantErr(t, ctx, "bash", map[string]any{"command": "cat " + filepath.Join(s.WS.Root(), ".env")}, "declined")
	wantErr(t, ctx, "bash", map[string]any{"command": "cat < .env"}, "declined")
	wantErr(t, ctx, "bash", map[string]any{"command": "cat .e*"}, "declined")
	wantErr(t, ctx, "bash", map[string]any{"command": "cat {notes.txt,.env}"}, "declined")
	// A hard link to .env under another name.
	if err := os.Link(filepath.Join(s.WS.Root(), ".env"), filepath.Join(s.WS.Root(), "env.txt")); err != nil {
		t.Fatal(err)
	}
	wantErr(t, ctx, "bash", map[string]any{"command": "cat env.txt"}, "declined", "env.txt")
	if len(asked) != 6 {
		t.Errorf("asked %d times, want 6: %q", len(asked), asked)
	}
}

func TestBashWithoutBubblewrap(t *testing.T) {
	cases := map[string]func(t *testing.T) string{
		"bwrapPath to nothing": func(t *testing.T) string {
			return fmt.Sprintf(`{"bash":{"bwrapPath":%q}}`, filepath.Join(t.TempDir(), "no-bwrap"))
		},
		"no bwrap on PATH": func(t *testing.T) string {
			t.Setenv("PATH", t.TempDir())
			return ""
		},
	}
	for name, settings := range cases {
		t.Run(name, func(t *testing.T) {
			ctx, s := newTestSession(t, bashArchive)
			s.Settings = json.RawMessage(settings(t))
			// Nobody to ask: nothing runs, and the first result says why.
			err := wantErr(t, ctx, "bash", map[string]any{"command": "ls"}, "needs approval", "bubblewrap")
			wantOut(t, err, "note: the bash sandbox is unavailable", "apt-get install bubblewrap")
			err = wantErr(t, ctx, "bash", map[string]any{"command": "touch x"}, "needs approval")
			if strings.Contains(err, "note: the bash sandbox") {
				t.Errorf("the note came twice: %s", err)
			}
			if _, err := os.Stat(filepath.Join(s.WS.Root(), "x")); err == nil {
				t.Error("a command ran without approval")
			}
			// With someone to ask, every command asks, read-only ones too.
			var asked []string
			s.Ask = func(_ context.Context, q string) (bool, error) { asked = append(asked, q); return false, nil }
			wantErr(t, ctx, "bash", map[string]any{"command": "echo hi"}, "declined")
			if len(asked) != 1 {
				t.Errorf("asked %q", asked)
			}
		})
	}
	// Only an explicit "off" keeps classifier-only auto-run.
	ctx, s := newTestSession(t, bashArchive)
	s.Settings = json.RawMessage(fmt.Sprintf(`{"bash":{"sandbox":"off","bwrapPath":%q}}`, filepath.Join(t.TempDir(), "no-bwrap")))
	out := mustExec(t, ctx, "bash", map[string]any{"command": "echo hi"})
	wantOut(t, out, "hi")
}

func TestBashBackgroundJobsSandboxed(t *testing.T) {
	ctx, s, outside := sandboxSession(t, `{"bash":{"allow":["touch"]}}`, neverAsk(t))
	run := func(command string) string {
		out := mustExec(t, ctx, "bash", map[string]any{"command": command, "run_in_background": true})
		id := regexp.MustCompile(`shell_\d+`).FindString(out)
		out = mustExec(t, ctx, "wait", map[string]any{"shell_id": id, "timeout_seconds": 30})
		return out
	}
	out := run("cat .env; echo done")
	wantOut(t, out, "exit status 0", "done")
	if strings.Contains(out, sandboxSecret) {
		t.Errorf("a background job printed a denied file: %s", out)
	}
	out = run("touch in.txt " + filepath.Join(outside, "out.txt"))
	wantOut(t, out, "cannot touch")
	if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
		t.Error("a background job wrote outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(s.WS.Root(), "in.txt")); err != nil {
		t.Error(err)
	}
}

func TestBashHostileCorpusWithoutBubblewrap(t *testing.T) {
	// Without a usable sandbox and nobody to ask, not one hostile command
	// runs: each is refused or needs approval.
	ctx, s := newTestSession(t, bashArchive)
	s.Settings = json.RawMessage(fmt.Sprintf(`{"bash":{"askFallback":"deny","bwrapPath":%q}}`, filepath.Join(t.TempDir(), "no-bwrap")))
	f := &hostileFixture{ws: s.WS.Root(), out: t.TempDir(), home: t.TempDir(), port: 9}
	start := time.Now()
	for i, r := range hostileCorpus {
		cmd := f.fill(r.cmd, fmt.Sprintf("PWNED_%d", i))
		out, err := execTool(t, ctx, "bash", map[string]any{"command": cmd})
		if err == nil {
			t.Errorf("%s ran without a sandbox and without approval: %s", cmd, out)
			continue
		}
		if !strings.Contains(err.Error(), "needs approval") && !strings.Contains(err.Error(), "command refused") {
			t.Errorf("%s: %v", cmd, err)
		}
	}
	t.Logf("%d commands decided in %s", len(hostileCorpus), time.Since(start))
}
