package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/shell"
	"github.com/agentls/agentls/workspace"
)

const bashDescription = "Run a shell command (bash -c) in the workspace root; returns exit status and output. Read-only commands run at once, others may need approval; with nobody to approve they are refused (bash.allow permits them). For servers and watchers use run_in_background, then bash_output, wait, kill_shell."

const bashSchema = `{
	"type": "object",
	"properties": {
		"command": {"type": "string", "description": "the command line"},
		"timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 600, "description": "default 120"},
		"run_in_background": {"type": "boolean", "description": "start it and return a shell_id at once"},
		"description": {"type": "string", "description": "what it does, in a few words"}
	},
	"required": ["command"],
	"additionalProperties": false
}`

// Settings the bash tools read from the session (the "agentls" object):
//
//	bash.allow        []string  command-prefix patterns that run without asking ("go test", "make *")
//	bash.deny         []string  command-prefix patterns that never run ("git push")
//	bash.sandbox      string    where approved and bash.allow commands run: "auto" (default:
//	                            workspace-write), "strict" (workspace-write without network),
//	                            "off" (no sandbox; read-only commands run unconfined too).
//	                            Commands that run because they are read-only always run in the
//	                            read-only sandbox unless "off". The old "bwrap" means "strict",
//	                            the old "none" means "off".
//	bash.network      bool      workspace-write commands reach the network (default true)
//	bash.bwrapPath    string    the bubblewrap binary (default "bwrap" on PATH)
//	bash.askFallback  string    what a command that needs approval does when the session has
//	                            nobody to ask (Session.Ask == nil): "deny" (default) or "run".
//	                            The command line sets "run": there the user typed the command.
const (
	settingAllow       = "bash.allow"
	settingDeny        = "bash.deny"
	settingSandbox     = "bash.sandbox"
	settingNetwork     = "bash.network"
	settingBwrapPath   = "bash.bwrapPath"
	settingAskFallback = "bash.askFallback"
)

type bash struct{}

func init() { registry.RegisterBuiltin(bash{}) }

func (bash) Name() string            { return "bash" }
func (bash) Description() string     { return bashDescription }
func (bash) Schema() json.RawMessage { return json.RawMessage(bashSchema) }
func (bash) ReadOnly() bool          { return false }
func (bash) Annotations() registry.Annotations {
	return registry.Annotations{Destructive: true, OpenWorld: true, AsksPerCall: true}
}

func (bash) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Command         string `json:"command"`
		TimeoutSeconds  *int   `json:"timeout_seconds"`
		RunInBackground bool   `json:"run_in_background"`
		Description     string `json:"description"`
	}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(a.Command) == "" {
		return "", errors.New("command is empty")
	}
	timeout := shell.DefaultTimeout
	if a.TimeoutSeconds != nil {
		timeout = min(time.Duration(*a.TimeoutSeconds)*time.Second, shell.MaxTimeout)
		if timeout <= 0 {
			return "", errors.New("timeout_seconds must be at least 1")
		}
	}

	an, err := shell.Analyze(a.Command)
	if err != nil {
		return "", err
	}
	cfg, err := sandboxSettings(s)
	if err != nil {
		return "", err
	}
	mode, note, err := approve(ctx, s, an, a.Command, a.RunInBackground, cfg)
	if err != nil {
		return "", fmt.Errorf("%s%w", note, err)
	}
	spec, err := commandSpec(s, a.Command, mode, cfg)
	if err != nil {
		return "", fmt.Errorf("%s%w", note, err)
	}

	if a.RunInBackground {
		j, err := jobs(s).Start(spec)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%sstarted %s in the background (%s); read its output with bash_output, wait for it with wait, stop it with kill_shell%s",
			note, j.ID, sandboxLabel(mode), unsavedNote(s)), nil
	}

	spec.Timeout = timeout
	spec.Stream = streamProgress(workspace.ProgressFrom(ctx))
	res, err := shell.Run(ctx, spec)
	if err != nil {
		return "", err
	}
	out := res.Output
	if out == "" {
		out = "(no output)"
	}
	switch {
	case res.TimedOut:
		return "", fmt.Errorf("timed out after %s: the command's process group was killed (%s); for long commands raise timeout_seconds (max 600) or use run_in_background. Output so far:\n%s",
			timeout, res.Signal, out)
	case res.Canceled:
		return "", fmt.Errorf("cancelled after %s: the command's process group was killed. Output so far:\n%s",
			res.Duration.Round(time.Millisecond), out)
	}
	return fmt.Sprintf("%s%s, %s\n%s%s", note, res.Status(), res.Duration.Round(time.Millisecond), out, unsavedNote(s)), nil
}

// sandboxConfig is the session's bash.sandbox, bash.network and
// bash.bwrapPath.
type sandboxConfig struct {
	mode    string // "auto", "strict" or "off"
	network bool
	bwrap   string
}

// sandboxSettings reads the sandbox settings; an unknown mode is an error
// (nothing runs).
func sandboxSettings(s *workspace.Session) (sandboxConfig, error) {
	cfg := sandboxConfig{mode: "auto", network: true}
	var mode string
	s.Setting(settingSandbox, &mode)
	switch mode {
	case "", "auto":
	case "strict", "bwrap": // "bwrap" was: every command in bubblewrap without network
		cfg.mode = "strict"
	case "off", "none":
		cfg.mode = "off"
	default:
		return cfg, fmt.Errorf("unknown bash.sandbox setting %q: use \"auto\", \"strict\" or \"off\"; the command did not run", mode)
	}
	s.Setting(settingNetwork, &cfg.network)
	if cfg.mode == "strict" {
		cfg.network = false
	}
	s.Setting(settingBwrapPath, &cfg.bwrap)
	return cfg, nil
}

// approve applies the session's policy to the analysed command and returns
// the sandbox mode it runs in. A refusal names its rule. A command the
// classifier calls read-only runs in the read-only sandbox; one matching
// bash.allow, or approved, in the configured mode. Without a usable
// sandbox nothing runs without asking (unless bash.sandbox is "off"), and
// note, set on the first result of the session, says why. A command that
// needs approval asks the user through Session.Ask or, with nobody to ask,
// follows bash.askFallback.
func approve(ctx context.Context, s *workspace.Session, an *shell.Analysis, command string, background bool, cfg sandboxConfig) (mode shell.Mode, note string, err error) {
	p := policy(s, background)
	d := p.Decide(an)
	if d.Verdict == shell.Refuse {
		return shell.ModeOff, "", d
	}
	approved := shell.ModeOff
	if cfg.mode != "off" {
		if perr := probe(s, cfg.bwrap); perr != nil {
			note = unavailableNote(s, perr)
			if d.Verdict == shell.Allow {
				d = shell.Decision{Verdict: shell.Ask, Rule: "no sandbox",
					Detail: "bubblewrap is unavailable, so no command runs without approval (" + perr.Error() + ")"}
			}
		} else {
			approved = shell.ModeWorkspaceWrite
		}
	} else if d.Verdict == shell.Allow {
		if name, ok := namesDeniedFile(s, an); ok {
			d = shell.Decision{Verdict: shell.Ask, Rule: "secrets deny list",
				Detail: fmt.Sprintf("the command names %s, which the secrets deny list hides, and bash.sandbox is \"off\"", name)}
		}
	}
	if d.Verdict == shell.Allow {
		if d.ReadOnly && approved != shell.ModeOff {
			return shell.ModeReadOnly, note, nil
		}
		return approved, note, nil
	}
	if s.Ask == nil {
		var fallback string
		s.Setting(settingAskFallback, &fallback)
		if fallback == "run" {
			return approved, note, nil
		}
		return approved, note, fmt.Errorf("this command needs approval (%s: %s) and there is nobody to ask; add a matching pattern to the bash.allow setting, or run it yourself", d.Rule, d.Detail)
	}
	ok, err := s.Ask(ctx, fmt.Sprintf("Allow agentls to run bash: `%s`?", command))
	if err != nil {
		return approved, note, fmt.Errorf("could not ask for approval: %w", err)
	}
	if !ok {
		return approved, note, fmt.Errorf("the user declined to run this command (%s: %s); do not retry it, ask the user what to do instead", d.Rule, d.Detail)
	}
	return approved, note, nil
}

type probeKey struct{ bwrap string }

type probeResult struct {
	once sync.Once
	err  error
}

// probe tries bubblewrap once per session (and bash.bwrapPath value).
func probe(s *workspace.Session, bwrap string) error {
	r := s.Attach(probeKey{bwrap}, func() any { return new(probeResult) }).(*probeResult)
	r.once.Do(func() { r.err = shell.Probe(bwrap) })
	return r.err
}

type unavailableKey struct{}

// unavailableNote returns, for the first result of the session only, why
// nothing runs without asking and how to install bubblewrap.
func unavailableNote(s *workspace.Session, err error) string {
	once := s.Attach(unavailableKey{}, func() any { return new(sync.Once) }).(*sync.Once)
	note := ""
	once.Do(func() {
		note = fmt.Sprintf("note: the bash sandbox is unavailable (%v), so every command needs approval and runs unconfined once approved; to let read-only commands run without asking, install bubblewrap (or set bash.sandbox to \"off\" to trust the read-only classification alone)\n", err)
	})
	return note
}

// namesDeniedFile finds a word of the command that names a file the
// secrets deny list hides (as a path relative to the workspace, or
// absolute inside it), or a hard link to one.
func namesDeniedFile(s *workspace.Session, an *shell.Analysis) (string, bool) {
	check := func(w shell.Word) (string, bool) {
		if w.Dynamic || w.Text == "" {
			return "", false
		}
		text := w.Text
		if _, v, ok := strings.Cut(text, "="); ok && strings.HasPrefix(text, "-") {
			text = v // --file=.env
		}
		p := text
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.WS.Root(), p)
		}
		paths := []string{p}
		if w.Glob {
			if m, err := filepath.Glob(p); err == nil {
				paths = append(paths, m...)
			}
		}
		for _, p := range paths {
			if s.WS.Contains(p) && (s.WS.Denied(p) || s.WS.IsDeniedLink(p)) {
				return text, true
			}
		}
		return "", false
	}
	for _, c := range an.Commands {
		for _, w := range c.Args {
			if n, ok := check(w); ok {
				return n, true
			}
		}
		for _, r := range c.Redirects {
			if n, ok := check(r.Target); ok {
				return n, true
			}
		}
	}
	for _, r := range an.Redirects {
		if n, ok := check(r.Target); ok {
			return n, true
		}
	}
	return "", false
}

// policy builds the session's bash policy from its settings.
func policy(s *workspace.Session, background bool) *shell.Policy {
	tmp, _ := s.TempDir() // an error is commandSpec's to report
	p := &shell.Policy{Root: s.WS.Root(), TempDir: tmp, Background: background}
	s.Setting(settingAllow, &p.Allow)
	s.Setting(settingDeny, &p.Deny)
	if home, err := os.UserHomeDir(); err == nil {
		p.Home = home
	}
	return p
}

func sandboxLabel(m shell.Mode) string {
	if m == shell.ModeOff {
		return "no sandbox"
	}
	return m.String() + " sandbox"
}

// commandSpec prepares a command of the session: the workspace root as its
// directory, a private TMPDIR under the session's temp dir, and the sandbox
// of mode.
func commandSpec(s *workspace.Session, command string, mode shell.Mode, cfg sandboxConfig) (shell.Spec, error) {
	base, err := s.TempDir()
	if err != nil {
		return shell.Spec{}, err
	}
	if base == "" {
		base = os.TempDir()
	}
	tmp := filepath.Join(base, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return shell.Spec{}, fmt.Errorf("create TMPDIR: %w", err)
	}
	spec := shell.Spec{Script: command, Dir: s.WS.Root(), Env: shell.Environ(tmp)}
	if mode == shell.ModeOff {
		return spec, nil
	}
	masked, err := denyScan(s).Scan(s.WS.Root(), s.WS.DenyVersion(), s.WS.Denied)
	if err != nil {
		return shell.Spec{}, fmt.Errorf("%w; the command did not run", err)
	}
	home, _ := os.UserHomeDir()
	spec.Sandbox = &shell.Sandbox{Mode: mode, Bwrap: cfg.bwrap, Root: s.WS.Root(), TempDir: base,
		Home: home, NoNetwork: !cfg.network, Masked: masked}
	return spec, nil
}

type denyScanKey struct{}

// denyScan returns the session's scan of the workspace's denied files.
func denyScan(s *workspace.Session) *shell.DenyScan {
	return s.Attach(denyScanKey{}, func() any { return new(shell.DenyScan) }).(*shell.DenyScan)
}

type jobsKey struct{}

// jobs returns the session's background job manager; the session's Close
// kills its jobs.
func jobs(s *workspace.Session) *shell.Manager {
	return s.Attach(jobsKey{}, func() any { return shell.NewManager() }).(*shell.Manager)
}

// job looks up a background shell of the session.
func job(ctx context.Context, id string) (*shell.Job, error) {
	s, err := workspace.From(ctx)
	if err != nil {
		return nil, err
	}
	return jobs(s).Job(id)
}

// unsavedNote names the files with unsaved editor changes: the command saw
// their disk version.
func unsavedNote(s *workspace.Session) string {
	var dirty []string
	for _, b := range s.WS.Buffers() {
		if b.Dirty && s.WS.Contains(b.Path) {
			dirty = append(dirty, s.WS.Rel(b.Path))
		}
	}
	if len(dirty) == 0 {
		return ""
	}
	return fmt.Sprintf("\nnote: unsaved editor changes in %s were not visible to the command (it saw the files on disk)", strings.Join(dirty, ", "))
}

// maxStreamed bounds the output sent as progress, so that a command that
// prints megabytes does not flood the editor; the result still shows its
// head and tail.
const maxStreamed = 256 << 10

// streamProgress sends output chunks to progress (each message is the next
// chunk, not the whole output so far), up to maxStreamed bytes.
func streamProgress(progress func(string)) func([]byte) {
	sent := 0
	return func(b []byte) {
		switch {
		case sent > maxStreamed:
			return
		case sent+len(b) > maxStreamed:
			sent = maxStreamed + 1
			progress("\n[… more output; the result shows its head and tail]\n")
			return
		}
		sent += len(b)
		progress(string(b))
	}
}
