package shell

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Mode is how much a sandboxed command may change.
type Mode int

const (
	// ModeOff runs the command as the server's user, unconfined.
	ModeOff Mode = iota
	// ModeReadOnly: the whole filesystem read-only (the workspace
	// included), a private empty /tmp as TMPDIR, no network.
	ModeReadOnly
	// ModeWorkspaceWrite: as read-only, but the workspace, the session temp
	// dir and the build caches are writable (not .git/hooks nor
	// .git/config), and the network is shared unless Sandbox.NoNetwork.
	ModeWorkspaceWrite
)

func (m Mode) String() string {
	switch m {
	case ModeReadOnly:
		return "read-only"
	case ModeWorkspaceWrite:
		return "workspace-write"
	}
	return "off"
}

// Sandbox runs commands inside bubblewrap. In both modes the command gets
// new pid, ipc and uts namespaces, a new session (no terminal to inject
// input into), no capabilities, and dies with the server; the secrets deny
// list's files inside the workspace (Masked) and the user's credential
// stores outside it read as empty, and environment variables that look like
// credentials are removed.
type Sandbox struct {
	Mode Mode
	// Bwrap is the bubblewrap binary (empty: "bwrap" on PATH).
	Bwrap string
	// Root is the workspace folder (absolute).
	Root string
	// TempDir is the session temp dir: writable in workspace-write mode
	// (TMPDIR is TempDir/tmp there); hidden in read-only mode.
	TempDir string
	// Home is the user's home directory, where the credential stores and
	// build caches are looked for ("" for none).
	Home string
	// NoNetwork unshares the network in workspace-write mode too (it is
	// always unshared in read-only mode).
	NoNetwork bool
	// Masked are absolute paths inside Root that must read as empty: the
	// files and directories of the secrets deny list (see DenyScan).
	Masked []string
}

// ErrSandboxUnavailable is returned when a sandbox is configured but
// bubblewrap is missing or cannot create its namespaces; the command did not
// run.
var ErrSandboxUnavailable = errors.New("sandbox unavailable")

// InstallHint says how to get bubblewrap.
const InstallHint = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap) and make sure unprivileged user namespaces are allowed (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04+ an AppArmor profile for bwrap)"

// CredentialStores are the files and directories under the home directory
// that hold credentials: every sandboxed command sees them empty.
var CredentialStores = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker/config.json",
	".netrc", ".git-credentials", ".config/git/credentials", ".config/gh", ".config/hub",
	".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".config/pip/pip.conf", ".gem/credentials",
	".cargo/credentials", ".cargo/credentials.toml", ".m2/settings.xml", ".m2/settings-security.xml",
	".gradle/gradle.properties", ".terraform.d/credentials.tfrc.json", ".vault-token",
	".pgpass", ".my.cnf", ".password-store", ".local/share/keyrings", ".config/rclone",
	".config/op", ".config/helm", ".config/doctl", ".oci", ".boto", ".s3cfg",
	".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history",
}

// systemSecrets are sockets and directories outside the home directory
// through which a sandboxed command could reach a credential holder or a
// daemon running as someone else: filesystem sockets are not part of the
// network namespace.
var systemSecrets = []string{"/run/user", "/var/run/docker.sock", "/run/docker.sock", "/run/containerd", "/run/dbus", "/var/run/dbus"}

// wrap returns argv and env to run argv inside the sandbox in dir.
func (s *Sandbox) wrap(dir string, argv, env []string) ([]string, []string, error) {
	path, err := s.binary()
	if err != nil {
		return nil, nil, err
	}
	root := realPath(s.Root)
	out := []string{path,
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--new-session", "--die-with-parent", "--cap-drop", "ALL",
	}
	if s.Mode == ModeReadOnly || s.NoNetwork {
		out = append(out, "--unshare-net")
	}
	env = CleanEnv(env)
	tmpdir := "/tmp"
	switch s.Mode {
	case ModeWorkspaceWrite:
		if root != "" && root != "/" { // a workspace of / would make everything writable
			out = append(out, "--bind", root, root)
			out = append(out, gitGuards(root)...)
		}
		if s.TempDir != "" {
			t := realPath(s.TempDir)
			out = append(out, "--bind", t, t)
			tmpdir = filepath.Join(t, "tmp")
			// The file that hides secrets stays empty.
			empty, err := s.emptyFile()
			if err != nil {
				return nil, nil, err
			}
			out = append(out, "--ro-bind", empty, empty)
		}
		var cacheEnv []string
		out, cacheEnv = s.caches(out, env)
		env = setEnv(env, cacheEnv...)
	default:
		if root != "" {
			out = append(out, "--ro-bind", root, root)
		}
		// HOME-side caches go to the private /tmp, so that go list, go doc
		// and npm still work.
		env = setEnv(env, "GOCACHE=/tmp/.cache/go-build", "XDG_CACHE_HOME=/tmp/.cache",
			"npm_config_cache=/tmp/.npm", "YARN_CACHE_FOLDER=/tmp/.cache/yarn", "PIP_CACHE_DIR=/tmp/.cache/pip")
	}
	env = setEnv(env, "TMPDIR="+tmpdir)
	masks, err := s.masks(root)
	if err != nil {
		return nil, nil, err
	}
	out = append(out, masks...)
	if dir != "" {
		out = append(out, "--chdir", dir)
	}
	out = append(out, "--")
	return append(out, argv...), env, nil
}

// binary finds bubblewrap.
func (s *Sandbox) binary() (string, error) {
	bwrap := s.Bwrap
	if bwrap == "" {
		bwrap = "bwrap"
	}
	path, err := exec.LookPath(bwrap)
	if err != nil {
		return "", fmt.Errorf("%w: bubblewrap (%s) was not found: %s", ErrSandboxUnavailable, bwrap, InstallHint)
	}
	return path, nil
}

// gitGuards keeps the repository's hooks and config read-only inside a
// writable workspace, so that a command cannot plant code that git runs
// later, and pins .git itself (a mount point cannot be renamed or removed,
// so the repository cannot be swapped for one with other hooks).
func gitGuards(root string) []string {
	var out []string
	gitDir := filepath.Join(root, ".git")
	st, err := os.Lstat(gitDir)
	if err != nil || !st.IsDir() {
		return nil
	}
	out = append(out, "--bind", gitDir, gitDir)
	for _, name := range []string{"hooks", "config", "config.worktree", "info"} {
		p := filepath.Join(gitDir, name)
		if _, err := os.Lstat(p); err == nil {
			out = append(out, "--ro-bind", p, p)
		}
	}
	return out
}

// caches makes the user's build caches writable (each one that exists),
// and points a Go cache that does not exist into the session temp dir.
func (s *Sandbox) caches(out, env []string) ([]string, []string) {
	var set []string
	if s.Home == "" {
		return out, set
	}
	gocache := getEnv(env, "GOCACHE")
	if gocache == "" {
		xdg := getEnv(env, "XDG_CACHE_HOME")
		if xdg == "" {
			xdg = filepath.Join(s.Home, ".cache")
		}
		gocache = filepath.Join(xdg, "go-build")
	}
	modcache := getEnv(env, "GOMODCACHE")
	if modcache == "" {
		gopath := getEnv(env, "GOPATH")
		if gopath == "" {
			gopath = filepath.Join(s.Home, "go")
		}
		modcache = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	dirs := []string{gocache, modcache,
		filepath.Join(s.Home, ".npm"), filepath.Join(s.Home, ".cargo", "registry"),
		filepath.Join(s.Home, ".cargo", "git"), filepath.Join(s.Home, ".cache", "pip"),
		filepath.Join(s.Home, ".cache", "yarn")}
	for i, d := range dirs {
		if !filepath.IsAbs(d) {
			continue
		}
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			r := realPath(d)
			out = append(out, "--bind", r, r)
			continue
		}
		if s.TempDir != "" {
			switch i {
			case 0:
				set = append(set, "GOCACHE="+filepath.Join(realPath(s.TempDir), "go-build"))
			case 1:
				set = append(set, "GOMODCACHE="+filepath.Join(realPath(s.TempDir), "gomod"))
			}
		}
	}
	return out, set
}

// masks hides the credential stores, the system sockets and the Masked
// paths: a directory becomes an empty read-only tmpfs, anything else an
// empty read-only file (not /dev/null: bind mounts are nodev, so a device
// node there cannot be opened, and an error would tell the file exists).
func (s *Sandbox) masks(root string) ([]string, error) {
	var paths []string
	if s.Home != "" {
		for _, c := range CredentialStores {
			paths = append(paths, filepath.Join(s.Home, c))
		}
	}
	paths = append(paths, systemSecrets...)
	for _, p := range []string{os.Getenv("SSH_AUTH_SOCK"), os.Getenv("XDG_RUNTIME_DIR"), os.Getenv("GNUPGHOME")} {
		if filepath.IsAbs(p) {
			paths = append(paths, p)
		}
	}
	for _, m := range s.Masked {
		// An approved command sees the repository's own config (read-only,
		// see gitGuards): git push and fetch need its remotes.
		if r := realPath(m); s.Mode == ModeWorkspaceWrite && root != "" && (r == filepath.Join(root, ".git", "config") || r == filepath.Join(root, ".git", "config.worktree")) {
			continue
		}
		// A denied name that is a symlink leading out of the workspace
		// hides nothing of the workspace; mounting over its target (/usr)
		// would only break the sandbox.
		if r := realPath(m); root != "" && r != root && !strings.HasPrefix(r, root+string(filepath.Separator)) {
			continue
		}
		paths = append(paths, m)
	}
	var out []string
	seen := map[string]bool{}
	empty := ""
	for _, p := range paths {
		st, err := os.Stat(p) // through symlinks: bwrap mounts on the target
		if err != nil {
			continue
		}
		r := realPath(p)
		if seen[r] || r == "/" || r == root {
			continue
		}
		seen[r] = true
		if st.IsDir() {
			out = append(out, "--tmpfs", r, "--remount-ro", r)
			continue
		}
		if empty == "" {
			var err error
			if empty, err = s.emptyFile(); err != nil {
				return nil, err
			}
		}
		out = append(out, "--ro-bind", empty, r)
	}
	return out, nil
}

// emptyFile returns an empty read-only file to mount over hidden files:
// TempDir/.empty, or one file per process in the system temp dir.
func (s *Sandbox) emptyFile() (string, error) {
	if s.TempDir == "" {
		emptyOnce.Do(func() {
			var f *os.File
			if f, emptyErr = os.CreateTemp("", "agentls-empty-*"); emptyErr == nil {
				emptyPath = f.Name()
				f.Close()
			}
		})
		return emptyPath, emptyErr
	}
	p := filepath.Join(s.TempDir, ".empty")
	if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
		return p, nil
	}
	os.Remove(p)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o444)
	if err != nil {
		return "", fmt.Errorf("sandbox: create the empty file that hides secrets: %w", err)
	}
	f.Close()
	return p, nil
}

var (
	emptyOnce sync.Once
	emptyPath string
	emptyErr  error
)

// realPath resolves the symlinks of p (p itself when it cannot).
func realPath(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// CleanEnv removes the variables whose names look like credentials:
// *TOKEN*, *SECRET*, *PASSWORD*, *PASSWD*, *CREDENTIAL*, *_KEY, *_KEY_*,
// *APIKEY*, *AUTH*, the whole AWS_, GITHUB_, GH_, GITLAB_, AZURE_, GOOGLE_,
// GCP_, OPENAI_, ANTHROPIC_, NPM_, DOCKER_, VAULT_ families, SSH_AUTH_SOCK
// and GNUPGHOME.
func CleanEnv(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return credentialName(k)
	})
}

func credentialName(k string) bool {
	u := strings.ToUpper(k)
	for _, frag := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "APIKEY", "API_KEY", "PRIVATE_KEY", "AUTH", "SESSION_KEY", "COOKIE"} {
		if strings.Contains(u, frag) {
			return true
		}
	}
	if strings.HasSuffix(u, "_KEY") || strings.Contains(u, "_KEY_") || strings.HasSuffix(u, "_PASS") || strings.HasSuffix(u, "_PAT") {
		return true
	}
	for _, prefix := range []string{"AWS_", "GITHUB_", "GH_", "GITLAB_", "GL_", "AZURE_", "GOOGLE_", "GCP_", "GCLOUD_", "CLOUDSDK_", "OPENAI_", "ANTHROPIC_", "NPM_", "DOCKER_", "VAULT_", "HF_", "HUGGING", "CI_JOB", "ACTIONS_"} {
		if strings.HasPrefix(u, prefix) {
			return true
		}
	}
	switch u {
	case "SSH_AUTH_SOCK", "GNUPGHOME", "GPG_AGENT_INFO", "KUBECONFIG", "PGPASSFILE", "NETRC", "DATABASE_URL", "REDIS_URL", "MONGODB_URI":
		return true
	}
	return false
}

func getEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// setEnv replaces or adds each KEY=value of kvs.
func setEnv(env []string, kvs ...string) []string {
	for _, kv := range kvs {
		k, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		env = append(env, kv)
	}
	return env
}

// Probe reports whether bubblewrap (bwrap: a path or a name on PATH; "" for
// "bwrap") can create the sandbox here: it runs /bin/true in read-only mode.
// Callers remember the answer (the bash tool: once per session).
func Probe(bwrap string) error { return probe(bwrap) }

func probe(bwrap string) error {
	s := &Sandbox{Mode: ModeReadOnly, Bwrap: bwrap}
	argv, env, err := s.wrap("", []string{"/bin/true"}, os.Environ())
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: bubblewrap (%s) cannot create its namespaces here (%s): %s", ErrSandboxUnavailable,
			argv[0], strings.TrimSpace(strings.TrimSpace(string(out))+" "+err.Error()), InstallHint)
	}
	return nil
}

// signalGroup sends sig to the command's process group. A sandboxed
// command is not in it: bwrap (the leader) starts the namespace's pid 1 and
// that the command, in a session of their own (--new-session). bwrap arms
// --die-with-parent only once its setup is done, so a signal that ends
// bwrap in the first milliseconds could leave the command running, unseen
// (seen: 92 of 300 cancels within 20 ms of the start). So bwrap is stopped
// first (it can start nothing more), its children — pid 1, whose death ends
// every process of the namespace — get SIGKILL, and bwrap, continued, reaps
// them and exits; only if it had no child yet, or does not exit within the
// grace period, does the group get sig. (Were bwrap killed instead, the
// dead pid 1 would go to init, which in some containers reaps it only
// seconds later, and until then it can still count as one of the group.)
func (p *process) signalGroup(sig syscall.Signal) {
	if !p.sandboxed || p.cmd.Process.Signal(syscall.SIGSTOP) != nil {
		syscall.Kill(-p.pgid, sig)
		return
	}
	pid := p.cmd.Process.Pid
	waitStopped(pid, time.Second)
	kids := childrenOf(pid)
	for _, c := range kids {
		syscall.Kill(c, syscall.SIGKILL)
	}
	if len(kids) > 0 {
		p.nsKilled.Store(true)
		syscall.Kill(-p.pgid, syscall.SIGCONT)
		select {
		case <-p.exited:
			return
		case <-time.After(p.grace):
		}
		syscall.Kill(-p.pgid, sig)
		return
	}
	syscall.Kill(-p.pgid, sig)
	syscall.Kill(-p.pgid, syscall.SIGCONT)
}

// waitStopped polls until pid is stopped (or gone) or d passes.
func waitStopped(pid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for {
		state, _, ok := procStat(pid)
		if !ok || state == 'T' || state == 't' || state == 'Z' || state == 'X' || time.Now().After(deadline) {
			return
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// procStat reads a process's state letter and parent pid from
// /proc/pid/stat; ok is false when the process is gone.
func procStat(pid int) (state byte, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], ppid, true
}

// childrenOf lists pid's children: from /proc/pid/task/*/children where the
// kernel has it, else from the parent pid of every process.
func childrenOf(pid int) []int {
	var kids []int
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	if len(tasks) > 0 {
		for _, t := range tasks {
			b, err := os.ReadFile(t)
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					kids = append(kids, c)
				}
			}
		}
		return kids
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, ppid, ok := procStat(c); ok && ppid == pid {
			kids = append(kids, c)
		}
	}
	return kids
}
