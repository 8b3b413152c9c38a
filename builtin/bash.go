package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/shell"
	"github.com/agentls/agentls/workspace"
)

const bashDescription = "Run a shell command (bash -c) in the workspace root; returns exit status and output. Read-only commands run at once, others may need approval. For servers and watchers use run_in_background, then bash_output, wait, kill_shell."

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
//	bash.sandbox      string    "bwrap" runs every command in bubblewrap; "" or "none" does not
//	bash.askFallback  string    what a command that needs approval does when the session has
//	                            nobody to ask (Session.Ask == nil): "deny" (default) or "run".
//	                            The command line sets "run": there the user typed the command.
const (
	settingAllow       = "bash.allow"
	settingDeny        = "bash.deny"
	settingSandbox     = "bash.sandbox"
	settingAskFallback = "bash.askFallback"
)

type bash struct{}

func init() { registry.RegisterBuiltin(bash{}) }

func (bash) Name() string            { return "bash" }
func (bash) Description() string     { return bashDescription }
func (bash) Schema() json.RawMessage { return json.RawMessage(bashSchema) }
func (bash) ReadOnly() bool          { return false }

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
	if err := approve(ctx, s, an, a.Command, a.RunInBackground); err != nil {
		return "", err
	}
	spec, err := commandSpec(s, a.Command)
	if err != nil {
		return "", err
	}

	if a.RunInBackground {
		j, err := jobs(s).Start(spec)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("started %s in the background; read its output with bash_output, wait for it with wait, stop it with kill_shell%s",
			j.ID, unsavedNote(s)), nil
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
	return fmt.Sprintf("%s, %s\n%s%s", res.Status(), res.Duration.Round(time.Millisecond), out, unsavedNote(s)), nil
}

// approve applies the session's policy to the analysed command: a refusal
// names its rule; a command that needs approval asks the user through
// Session.Ask, or, with nobody to ask, follows bash.askFallback.
func approve(ctx context.Context, s *workspace.Session, an *shell.Analysis, command string, background bool) error {
	p := policy(s, background)
	d := p.Decide(an)
	switch d.Verdict {
	case shell.Allow:
		return nil
	case shell.Refuse:
		return d
	}
	if s.Ask == nil {
		var fallback string
		s.Setting(settingAskFallback, &fallback)
		if fallback == "run" {
			return nil
		}
		return fmt.Errorf("this command needs approval (%s: %s) and there is nobody to ask; add a matching pattern to the bash.allow setting, or run it yourself", d.Rule, d.Detail)
	}
	ok, err := s.Ask(ctx, fmt.Sprintf("Allow agentls to run bash: `%s`?", command))
	if err != nil {
		return fmt.Errorf("could not ask for approval: %w", err)
	}
	if !ok {
		return fmt.Errorf("the user declined to run this command (%s: %s); do not retry it, ask the user what to do instead", d.Rule, d.Detail)
	}
	return nil
}

// policy builds the session's bash policy from its settings.
func policy(s *workspace.Session, background bool) *shell.Policy {
	p := &shell.Policy{Root: s.WS.Root(), TempDir: s.TempDir, Background: background}
	s.Setting(settingAllow, &p.Allow)
	s.Setting(settingDeny, &p.Deny)
	if home, err := os.UserHomeDir(); err == nil {
		p.Home = home
	}
	return p
}

// commandSpec prepares a command of the session: the workspace root as its
// directory, a private TMPDIR under the session's temp dir, the sandbox when
// configured.
func commandSpec(s *workspace.Session, command string) (shell.Spec, error) {
	base := s.TempDir
	if base == "" {
		base = os.TempDir()
	}
	tmp := filepath.Join(base, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return shell.Spec{}, fmt.Errorf("create TMPDIR: %w", err)
	}
	spec := shell.Spec{Script: command, Dir: s.WS.Root(), Env: shell.Environ(tmp)}
	var mode string
	s.Setting(settingSandbox, &mode)
	switch mode {
	case "", "none":
	case "bwrap":
		sb := &shell.Sandbox{Writable: []string{s.WS.Root(), base}}
		if err := sandboxCheck(s, sb); err != nil {
			return shell.Spec{}, err
		}
		spec.Sandbox = sb
	default:
		return shell.Spec{}, fmt.Errorf("unknown bash.sandbox setting %q: use \"bwrap\" or \"none\"; the command did not run", mode)
	}
	return spec, nil
}

type sandboxCheckKey struct{}

type sandboxStatus struct{ err error }

// sandboxCheck runs bubblewrap once per session, so that a configured but
// unusable sandbox fails every call with a clear message instead of running
// anything unsandboxed.
func sandboxCheck(s *workspace.Session, sb *shell.Sandbox) error {
	st := s.Attach(sandboxCheckKey{}, func() any { return &sandboxStatus{err: sb.Check()} }).(*sandboxStatus)
	return st.err
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
