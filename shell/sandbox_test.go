package shell

import (
	"context"
	"errors"
	"fmt"
	"go/build"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sandboxFixture is a workspace dir/ws with a git directory and a secret
// file, a session temp dir dir/tmp, a sibling dir/out the sandbox must not
// write, and a home dir/home holding credential stores.
type sandboxFixture struct {
	ws, tmp, out, home string
}

const fixtureSecret = "s3cr3t-value-4711"

func requireBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	if err := Probe(""); err != nil {
		t.Fatalf("bubblewrap is installed but does not work here: %v", err)
	}
}

func newSandboxFixture(t *testing.T) sandboxFixture {
	t.Helper()
	requireBwrap(t)
	dir := t.TempDir()
	f := sandboxFixture{filepath.Join(dir, "ws"), filepath.Join(dir, "tmp"), filepath.Join(dir, "out"), filepath.Join(dir, "home")}
	files := map[string]string{
		"ws/main.go":                    "package main\n",
		"ws/.env":                       "TOKEN=" + fixtureSecret + "\n",
		"ws/.git/config":                "[core]\n\trepositoryformatversion = 0\n",
		"ws/.git/hooks/pre-commit":      "#!/bin/sh\n",
		"tmp/tmp/.keep":                 "",
		"out/.keep":                     "",
		"home/.ssh/id_ed25519":          fixtureSecret,
		"home/.netrc":                   "machine x password " + fixtureSecret,
		"home/.aws/credentials":         fixtureSecret,
		"home/.docker/config.json":      fixtureSecret,
		"home/.cache/go-build/README":   "cache",
		"home/.config/gcloud/token.txt": fixtureSecret,
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f sandboxFixture) spec(mode Mode, script string) Spec {
	sb := &Sandbox{Mode: mode, Root: f.ws, TempDir: f.tmp, Home: f.home,
		Masked: []string{filepath.Join(f.ws, ".env"), filepath.Join(f.ws, ".git", "config"), filepath.Join(f.ws, "id_rsa_usr")}}
	env := append(Environ(filepath.Join(f.tmp, "tmp")), "GITHUB_TOKEN="+fixtureSecret, "MY_API_KEY="+fixtureSecret, "HOME="+f.home)
	return Spec{Script: script, Dir: f.ws, Env: env, Timeout: 30 * time.Second, Sandbox: sb, Grace: 300 * time.Millisecond}
}

func runSpec(t *testing.T, spec Spec) string {
	t.Helper()
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return res.Output
}

func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func TestSandboxReadOnly(t *testing.T) {
	t.Parallel() // waits on bubblewrap, not the CPU
	f := newSandboxFixture(t)
	marker := filepath.Join("/tmp", fmt.Sprintf("agentls-marker-%d", time.Now().UnixNano()))
	out := runSpec(t, f.spec(ModeReadOnly, fmt.Sprintf(`touch ws.txt 2>/dev/null || echo ws refused
touch %q/o.txt 2>/dev/null || echo out refused
touch %q && echo private tmp ok
echo "tmpdir=$TMPDIR gocache=$GOCACHE"
echo hook 2>/dev/null >> .git/hooks/pre-commit || echo hooks refused
cat main.go`, f.out, marker)))
	wantLines(t, out, "ws refused", "out refused", "private tmp ok", "tmpdir=/tmp gocache=/tmp/", "hooks refused", "package main")
	for _, p := range []string{filepath.Join(f.ws, "ws.txt"), filepath.Join(f.out, "o.txt"), marker} {
		if exists(p) {
			t.Errorf("%s was written", p)
		}
	}
}

func TestSandboxWorkspaceWrite(t *testing.T) {
	t.Parallel()
	f := newSandboxFixture(t)
	out := runSpec(t, f.spec(ModeWorkspaceWrite, fmt.Sprintf(`touch ws.txt && echo ws ok
touch "$TMPDIR/t" && echo tmpdir ok
touch %q/o.txt 2>/dev/null || echo out refused
echo evil 2>/dev/null >> .git/hooks/pre-commit || echo hooks refused
touch .git/hooks/post-checkout 2>/dev/null || echo new hook refused
echo evil 2>/dev/null >> .git/config; cat .git/config
mv .git .git2 2>/dev/null || echo git pinned
touch "$HOME/.cache/go-build/x" && echo cache ok
chmod u+w "$TMPDIR/../.empty" 2>/dev/null; echo fake 2>/dev/null > "$TMPDIR/../.empty" || echo empty kept
echo "env=[$(cat .env)]"`, f.out)))
	wantLines(t, out, "ws ok", "tmpdir ok", "out refused", "hooks refused", "new hook refused", "git pinned", "cache ok", "empty kept", "env=[]")
	if !exists(filepath.Join(f.ws, "ws.txt")) || !exists(filepath.Join(f.tmp, "tmp", "t")) {
		t.Error("the workspace or temp dir write did not happen")
	}
	if exists(filepath.Join(f.out, "o.txt")) || exists(filepath.Join(f.ws, ".git", "hooks", "post-checkout")) {
		t.Error("a write outside the workspace or into .git/hooks happened")
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, ".git", "config")); strings.Contains(string(b), "evil") {
		t.Error(".git/config changed")
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, ".git", "hooks", "pre-commit")); strings.Contains(string(b), "evil") {
		t.Error(".git/hooks changed")
	}
}

func TestSandboxSecretsHidden(t *testing.T) {
	t.Parallel()
	f := newSandboxFixture(t)
	// A denied name that leads out of the workspace does not hide its target.
	if err := os.Symlink("/usr", filepath.Join(f.ws, "id_rsa_usr")); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{ModeReadOnly, ModeWorkspaceWrite} {
		out := runSpec(t, f.spec(mode, `cat .env .git/config ~/.ssh/id_ed25519 ~/.netrc ~/.aws/credentials ~/.docker/config.json ~/.config/gcloud/token.txt 2>&1
env; ls -a ~/.ssh; cat main.go; echo done`))
		if strings.Contains(out, fixtureSecret) {
			t.Errorf("%s: a secret was printed:\n%s", mode, out)
		}
		wantLines(t, out, "package main", "done")
		if strings.Contains(out, "GITHUB_TOKEN") || strings.Contains(out, "MY_API_KEY") {
			t.Errorf("%s: a credential variable was passed on:\n%s", mode, out)
		}
	}
}

func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	f := newSandboxFixture(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	script := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo connected || echo refused`, l.Addr().(*net.TCPAddr).Port)
	for _, c := range []struct {
		mode      Mode
		noNetwork bool
		want      string
	}{
		{ModeReadOnly, false, "refused"},
		{ModeWorkspaceWrite, true, "refused"},
		{ModeWorkspaceWrite, false, "connected"},
	} {
		spec := f.spec(c.mode, script)
		spec.Sandbox.NoNetwork = c.noNetwork
		out := runSpec(t, spec)
		if !strings.Contains(out, c.want) {
			t.Errorf("%s (noNetwork %v): %q, want %q", c.mode, c.noNetwork, out, c.want)
		}
		if c.want == "connected" {
			<-accepted // the listener saw it: the test itself is sound
		}
	}
	if len(accepted) > 0 {
		t.Error("a sandbox without network connected to the host's loopback listener")
	}
}

func TestSandboxTimeoutKillsEverything(t *testing.T) {
	t.Parallel()
	f := newSandboxFixture(t)
	spec := f.spec(ModeWorkspaceWrite, stubbornScript)
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
	missing := filepath.Join(t.TempDir(), "no-bwrap")
	spec.Sandbox = &Sandbox{Mode: ModeReadOnly, Bwrap: missing, Root: spec.Dir}
	_, err := Run(context.Background(), spec)
	if !errors.Is(err, ErrSandboxUnavailable) || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(spec.Dir, "ran")); err == nil {
		t.Error("the command ran unsandboxed")
	}
	if err := Probe(missing); !errors.Is(err, ErrSandboxUnavailable) {
		t.Errorf("Probe = %v", err)
	}
	// A binary that exists but cannot sandbox (here: false).
	if err := Probe("false"); !errors.Is(err, ErrSandboxUnavailable) || !strings.Contains(err.Error(), "namespaces") {
		t.Errorf("Probe(false) = %v", err)
	}
}

func TestCleanEnv(t *testing.T) {
	in := []string{"PATH=/bin", "HOME=/h", "GITHUB_TOKEN=x", "AWS_REGION=y", "NPM_TOKEN=z", "MY_SECRET_THING=1",
		"DB_PASSWORD=2", "STRIPE_KEY=3", "OPENAI_API_KEY=4", "SSH_AUTH_SOCK=/s", "GOPATH=/g", "LANG=C", "KEYBOARD=us"}
	got := CleanEnv(in)
	want := []string{"PATH=/bin", "HOME=/h", "GOPATH=/g", "LANG=C", "KEYBOARD=us"}
	if !slices.Equal(got, want) {
		t.Errorf("CleanEnv = %q, want %q", got, want)
	}
}

func TestDenyScan(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a/.env", "a/b/key.pem", "ok.txt", "secrets/x", ".git/config", "node/.env.local"} {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, nil, 0o644)
	}
	denied := func(rel string) bool {
		base := filepath.Base(rel)
		return strings.HasPrefix(base, ".env") || strings.HasSuffix(base, ".pem") || rel == "secrets" || rel == ".git/config"
	}
	var d DenyScan
	scan := func() []string {
		got, err := d.Scan(root, 1, denied)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			got[i], _ = filepath.Rel(root, got[i])
		}
		slices.Sort(got)
		return got
	}
	want := []string{".git/config", "a/.env", "a/b/key.pem", "node/.env.local", "secrets"}
	if got := scan(); !slices.Equal(got, want) {
		t.Fatalf("scan = %q, want %q", got, want)
	}
	// A new denied file is found again; a removed one is forgotten.
	os.WriteFile(filepath.Join(root, "a", "b", ".env"), nil, 0o644)
	os.Remove(filepath.Join(root, "node", ".env.local"))
	want = []string{".git/config", "a/.env", "a/b/.env", "a/b/key.pem", "secrets"}
	if got := scan(); !slices.Equal(got, want) {
		t.Fatalf("rescan = %q, want %q", got, want)
	}
	// Hard links to denied files under other names are hidden too: to a
	// denied file, to a file in a denied directory, to .git/config, and a
	// file that a new denied name links to, in a directory unchanged since
	// it was read (ln ok.txt .env.prod); a plain file with two links is not.
	link := func(from, to string) {
		t.Helper()
		if err := os.Link(filepath.Join(root, from), filepath.Join(root, to)); err != nil {
			t.Skip(err)
		}
	}
	os.MkdirAll(filepath.Join(root, "c"), 0o755)
	os.WriteFile(filepath.Join(root, "plain.txt"), nil, 0o644)
	link("a/.env", "c/env.txt")
	link("secrets/x", "c/x.txt")
	link(".git/config", "c/gitconfig")
	link("plain.txt", "c/plain2.txt")
	want = []string{".git/config", "a/.env", "a/b/.env", "a/b/key.pem", "c/env.txt", "c/gitconfig", "c/x.txt", "secrets"}
	if got := scan(); !slices.Equal(got, want) {
		t.Fatalf("scan with hard links = %q, want %q", got, want)
	}
	os.MkdirAll(filepath.Join(root, "d"), 0o755)
	link("ok.txt", "d/.env.prod")
	want = []string{".git/config", "a/.env", "a/b/.env", "a/b/key.pem", "c/env.txt", "c/gitconfig", "c/x.txt", "d/.env.prod", "ok.txt", "secrets"}
	if got := scan(); !slices.Equal(got, want) {
		t.Fatalf("scan after ln ok.txt d/.env.prod = %q, want %q", got, want)
	}
}

// BenchmarkDenyScan: the first scan of a tree (every directory read, every
// regular file lstat'ed for its link count) and a rescan of it unchanged
// (one stat per directory). DENYSCAN_ROOT names the tree (default: Go's
// source tree).
func BenchmarkDenyScan(b *testing.B) {
	root := os.Getenv("DENYSCAN_ROOT")
	if root == "" {
		root = filepath.Join(build.Default.GOROOT, "src")
	}
	denied := func(rel string) bool { return strings.HasPrefix(filepath.Base(rel), ".env") }
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			var d DenyScan
			if _, err := d.Scan(root, 1, denied); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rescan", func(b *testing.B) {
		var d DenyScan
		d.Scan(root, 1, denied)
		for b.Loop() {
			if _, err := d.Scan(root, 1, denied); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestSandboxEarlyCancelKillsEverything cancels sandboxed commands in their
// first milliseconds, while bwrap is still setting up: the command runs in
// a session of its own, outside the process group, and before bwrap arms
// --die-with-parent a signal that ends bwrap left it running (seen: 92 of
// 300 cancels within 20 ms).
func TestSandboxEarlyCancelKillsEverything(t *testing.T) {
	f := newSandboxFixture(t)
	marker := fmt.Sprintf("agentls-early-cancel-%d", os.Getpid())
	for i := range 24 {
		spec := f.spec(ModeReadOnly, "exec -a "+marker+" sleep 3600")
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			time.Sleep(time.Duration(i) * 500 * time.Microsecond)
			cancel()
		}()
		res, err := Run(ctx, spec)
		cancel()
		if errors.Is(err, context.Canceled) {
			continue // cancelled before it started: nothing ran
		}
		if err != nil {
			t.Fatal(err)
		}
		if !res.Canceled {
			t.Fatalf("cancel %d: %s", i, res.Status())
		}
		if left := processesRunning(marker); len(left) > 0 {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("cancel after %v: the command is still running (pids %v)", time.Duration(i)*500*time.Microsecond, left)
		}
	}
}

// processesRunning lists the processes whose command line holds s.
func processesRunning(s string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), s) {
			if st, _, ok := procStat(pid); ok && st != 'Z' {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
