package shell

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Policy decides whether an analysed command may run. The zero value has no
// user patterns and no workspace, so every path counts as outside it.
type Policy struct {
	Allow []string // config bash.allow: command-prefix patterns such as "go test"
	Deny  []string // config bash.deny: command-prefix patterns such as "git push"
	// Root is the workspace root (absolute): commands run there, and rm
	// outside it is refused.
	Root string
	// TempDir is the session's temp dir, the command's TMPDIR; rm there is
	// allowed too.
	TempDir string
	Home    string // the user's home directory, for ~
	// Background is set when the command runs as a background job, where
	// `&` inside it is harmless.
	Background bool
}

// Verdict is the outcome of a policy decision.
type Verdict int

const (
	Allow  Verdict = iota // run without asking
	Ask                   // ask the user; run only when approved
	Refuse                // never run
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "run"
	case Ask:
		return "ask"
	}
	return "refuse"
}

// Decision is a policy decision and the rule that made it.
type Decision struct {
	Verdict Verdict
	// Rule names the rule that decided: "read-only", `bash.allow "go test"`,
	// `bash.deny "git push"`, "rm outside the workspace", …
	Rule string
	// Detail says what in the command matched the rule.
	Detail string
	// ReadOnly is set when the command may run because the classifier
	// calls it read-only (not because bash.allow matched): it then runs in
	// the read-only sandbox.
	ReadOnly bool
}

// Error is the refusal message for the model: what matched, which rule, and
// for daemonising, what to do instead.
func (d Decision) Error() string {
	return fmt.Sprintf("command refused (rule: %s): %s", d.Rule, d.Detail)
}

// Decide applies the policy to a: deny rules win (the built-in ones and
// bash.deny), then commands that need a person to look at them, then
// read-only or bash.allow commands run, and everything else asks.
func (p *Policy) Decide(a *Analysis) Decision {
	if d, ok := p.refusal(a); ok {
		return d
	}
	if d, ok := p.mustAsk(a); ok {
		return d
	}
	// Relative redirection targets are resolved against the workspace
	// root; after a cd they could be anywhere.
	redirCwd := p.Root
	if hasCommand(a, "cd") || hasCommand(a, "pushd") || hasCommand(a, "popd") {
		redirCwd = ""
	}
	for _, r := range a.Redirects {
		if redirectReadOnly(r) {
			continue
		}
		if r.Target.Dynamic || !p.inside(p.resolve(redirCwd, r.Target.Text), false) {
			return Decision{Verdict: Ask, Rule: "write outside the workspace",
				Detail: fmt.Sprintf("redirection %s%s %s writes outside the workspace", r.Fd, r.Op, r.Target.Text)}
		}
	}
	readOnly, _ := a.ReadOnly()
	var inputWhy string
	for _, r := range a.Redirects {
		if why := p.inputOutside(r, redirCwd); why != "" {
			readOnly, inputWhy = false, why
			break
		}
	}
	if readOnly {
		return Decision{Verdict: Allow, Rule: "read-only", Detail: "the command only reads", ReadOnly: true}
	}
	for _, r := range a.loose {
		if why := p.inputOutside(r, redirCwd); why != "" {
			return Decision{Verdict: Ask, Rule: "not read-only", Detail: why}
		}
		if !redirectReadOnly(r) {
			return Decision{Verdict: Ask, Rule: "not read-only",
				Detail: fmt.Sprintf("redirection %s%s %s of a compound command writes a file", r.Fd, r.Op, r.Target.Text)}
		}
	}
	var allowedBy []string
	whole := a.scriptWhy()
	for i := range a.Commands {
		c := &a.Commands[i]
		if ok, _ := CommandReadOnly(c); ok && whole == "" && !slices.ContainsFunc(c.Redirects, func(r Redirect) bool {
			return !redirectReadOnly(r) || p.inputOutside(r, redirCwd) != ""
		}) {
			continue
		}
		if pat, ok := matchAny(p.Allow, c.Args); ok && len(c.Args) > 0 {
			if !slices.Contains(allowedBy, pat) {
				allowedBy = append(allowedBy, pat)
			}
			continue
		}
		_, why := CommandReadOnly(c)
		if why == "" && whole != "" {
			why = whole
		}
		if why == "" {
			why = "it writes a file through a redirection"
			if inputWhy != "" {
				why = inputWhy
			}
		}
		return Decision{Verdict: Ask, Rule: "not read-only",
			Detail: fmt.Sprintf("%s, and no bash.allow pattern matches %q", why, c.Text)}
	}
	if len(allowedBy) == 0 {
		// Nothing but evaluations, or nothing at all that bash.allow
		// vouches for.
		if whole == "" {
			whole = "the script as a whole is not read-only"
		}
		return Decision{Verdict: Ask, Rule: "not read-only", Detail: whole}
	}
	quoted := make([]string, len(allowedBy))
	for i, s := range allowedBy {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return Decision{Verdict: Allow, Rule: "bash.allow " + strings.Join(quoted, ", "), Detail: "allowed by configuration"}
}

// inputOutside says why an input redirection does not count as read-only:
// it reads from outside the workspace and temp dir (/dev/tcp/… connects,
// a FIFO or device may block or have effects), or from a path known only at
// run time. "" for other redirections and inputs from inside.
func (p *Policy) inputOutside(r Redirect, cwd string) string {
	if r.Op != "<" {
		return ""
	}
	t := r.Target
	switch {
	case t.Dynamic || t.Glob:
		return fmt.Sprintf("input redirection < %s reads a file known only at run time", t.Text)
	case t.Text == "/dev/null" || t.Text == "/dev/stdin" || t.Text == "/dev/zero":
		return ""
	case !p.inside(p.resolve(cwd, t.Text), false):
		return fmt.Sprintf("input redirection < %s reads from outside the workspace", t.Text)
	}
	return ""
}

// refusal checks the deny rules on every command, at every wrapper level.
func (p *Policy) refusal(a *Analysis) (Decision, bool) {
	refuse := func(rule, format string, args ...any) (Decision, bool) {
		return Decision{Verdict: Refuse, Rule: rule, Detail: fmt.Sprintf(format, args...)}, true
	}
	if name, ok := forkBomb(a); ok {
		return refuse("fork bomb", "function %s calls itself in a pipeline or in the background", name)
	}
	if !p.Background && len(a.Background) > 0 && !hasCommand(a, "wait") {
		return refuse("no daemonising", "`&` at %s would leave a process running after the call; use run_in_background: true (or `wait` for it)", a.Background[0])
	}
	for _, r := range a.Redirects {
		if !r.Target.Dynamic && isBlockDevice(r.Target.Text) {
			return refuse("write to a block device", "redirection %s %s", r.Op, r.Target.Text)
		}
	}
	if d, ok := downloadIntoShell(a); ok {
		return refuse("download piped into a shell", "%s", d)
	}
	cwd := p.Root
	for i := range a.Commands {
		c := &a.Commands[i]
		for _, lv := range levels(c.Args) {
			if len(lv) == 0 || lv[0].Dynamic {
				continue
			}
			if pat, ok := matchAny(p.Deny, lv); ok {
				return refuse(fmt.Sprintf("bash.deny %q", pat), "%q", c.Text)
			}
			name, args := lv[0].Text, lv[1:]
			switch {
			case name == "nohup" || name == "setsid" || name == "disown":
				return refuse("no daemonising", "%s would leave a process running after the call; use run_in_background: true", name)
			case name == "sudo" || name == "su" || name == "doas" || name == "pkexec" || name == "runuser":
				return refuse("no privilege escalation", "%q", c.Text)
			case isPowerCommand(name, args):
				return refuse("no shutdown or reboot", "%q", c.Text)
			case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap" || name == "wipefs":
				return refuse("no disk formatting", "%q", c.Text)
			case name == "dd":
				for _, w := range args {
					if v, ok := strings.CutPrefix(w.Text, "of="); ok && strings.HasPrefix(v, "/dev/") && !harmlessDevice(v) {
						return refuse("dd of=/dev/*", "%q", c.Text)
					}
				}
			case name == "find" && findDeletes(args):
				for _, t := range findStarts(args) {
					if t.Dynamic {
						continue // asked about in mustAsk
					}
					abs, ok := p.expand(cwd, t.Text)
					if !ok || !p.inside(abs, false) {
						return refuse("rm outside the workspace", "%q deletes under %s, outside the workspace %s", c.Text, t.Text, p.Root)
					}
				}
			case name == "rm" || ((name == "chmod" || name == "chown" || name == "chgrp") && recursive(args)):
				for _, t := range targets(name, args) {
					if t.Dynamic {
						continue // asked about in mustAsk
					}
					abs, ok := p.expand(cwd, t.Text)
					if ok && (strings.HasSuffix(t.Text, "/") || strings.HasSuffix(t.Text, "/.")) {
						// A trailing slash follows a symlink: rm -r link/ empties its target.
						if r, err := filepath.EvalSymlinks(abs); err == nil {
							abs = r
						}
					}
					if !ok || !p.inside(abs, name == "rm") {
						return refuse(name+" outside the workspace", "%q touches %s, outside the workspace %s", c.Text, t.Text, p.Root)
					}
				}
			}
		}
		cwd = p.chdir(cwd, c)
	}
	return Decision{}, false
}

// mustAsk finds commands that a person must look at even when bash.allow
// matches them: recursive rm of a path known only at run time.
func (p *Policy) mustAsk(a *Analysis) (Decision, bool) {
	for i := range a.Commands {
		c := &a.Commands[i]
		lvs := levels(c.Args)
		for j, lv := range lvs {
			if len(lv) == 0 || lv[0].Dynamic {
				continue
			}
			if lv[0].Text == "rm" && j > 0 && !lvs[j-1][0].Dynamic && lvs[j-1][0].Text == "xargs" {
				return Decision{Verdict: Ask, Rule: "rm of paths read at run time",
					Detail: fmt.Sprintf("%q removes the paths xargs reads", c.Text)}, true
			}
			if lv[0].Text == "find" && findDeletes(lv[1:]) {
				return Decision{Verdict: Ask, Rule: "find that deletes",
					Detail: fmt.Sprintf("%q deletes what it finds", c.Text)}, true
			}
		}
		for _, lv := range lvs {
			if len(lv) == 0 || lv[0].Dynamic || lv[0].Text != "rm" || !recursive(lv[1:]) {
				continue
			}
			for _, t := range targets("rm", lv[1:]) {
				if t.Dynamic {
					return Decision{Verdict: Ask, Rule: "rm -r of a path known only at run time",
						Detail: fmt.Sprintf("%q removes %s", c.Text, t.Text)}, true
				}
			}
		}
	}
	return Decision{}, false
}

// findDeletes reports a find expression that deletes: -delete, or
// -exec/-execdir/-ok/-okdir running rm, rmdir, unlink or shred.
func findDeletes(args []Word) bool {
	for i, a := range args {
		if a.Dynamic {
			continue
		}
		switch a.Text {
		case "-delete":
			return true
		case "-exec", "-execdir", "-ok", "-okdir":
			if i+1 < len(args) && !args[i+1].Dynamic {
				switch path.Base(args[i+1].Text) {
				case "rm", "rmdir", "unlink", "shred":
					return true
				}
			}
			if i+1 < len(args) && args[i+1].Dynamic {
				return true
			}
		}
	}
	return false
}

// findStarts returns find's starting points: the operands before the
// expression ("." when there are none).
func findStarts(args []Word) []Word {
	var out []Word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Dynamic {
			if a.Text == "-H" || a.Text == "-L" || a.Text == "-P" || strings.HasPrefix(a.Text, "-O") {
				continue
			}
			if a.Text == "-D" {
				i++
				continue
			}
			if strings.HasPrefix(a.Text, "-") || a.Text == "(" || a.Text == "!" {
				break
			}
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		out = append(out, Word{Text: "."})
	}
	return out
}

// chdir follows cd and pushd: the directory relative rm targets are resolved
// against. An unknown directory is "".
func (p *Policy) chdir(cwd string, c *Command) string {
	name := c.Name()
	if name != "cd" && name != "pushd" && name != "popd" {
		return cwd
	}
	_, ops, dynamic := options(c.Args[1:])
	switch {
	case name == "popd" || dynamic || len(ops) > 1:
		return ""
	case len(ops) == 0:
		return p.Home
	case ops[0] == "-":
		return ""
	}
	abs, ok := p.expand(cwd, ops[0])
	if !ok {
		return ""
	}
	return abs
}

// expand makes a static path absolute: ~ and ~/ become the home directory,
// relative paths are joined to cwd. ok is false when the path cannot be
// known (~user, an unknown cwd).
func (p *Policy) expand(cwd, s string) (string, bool) {
	switch {
	case s == "~" || strings.HasPrefix(s, "~/"):
		if p.Home == "" {
			return "", false
		}
		return filepath.Join(p.Home, s[1:]), true
	case strings.HasPrefix(s, "~"):
		return "", false
	case filepath.IsAbs(s):
		return filepath.Clean(s), true
	case cwd == "":
		return "", false
	}
	return filepath.Join(cwd, s), true
}

func (p *Policy) resolve(cwd, s string) string {
	abs, ok := p.expand(cwd, s)
	if !ok {
		return ""
	}
	return abs
}

// inside reports whether abs lies in the workspace or the session temp dir.
// With strict, the roots themselves do not count (rm -rf of the whole
// workspace is refused), and a glob that can match ".." counts as outside.
func (p *Policy) inside(abs string, strict bool) bool {
	if abs == "" {
		return false
	}
	for _, part := range strings.Split(filepath.ToSlash(abs), "/") {
		if ok, _ := path.Match(part, ".."); ok && part != "" {
			return false
		}
	}
	abs = resolveExisting(abs)
	for _, root := range []string{p.Root, p.TempDir} {
		if root == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		if abs == root {
			if !strict {
				return true
			}
			continue
		}
		if strings.HasPrefix(abs, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// resolveExisting resolves the symlinks of the deepest existing ancestor of
// abs (the last component itself is kept: rm removes a link, not its target).
func resolveExisting(abs string) string {
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	for d, rest := dir, ""; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest, base)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = parent
	}
}

// recursive reports an -r/-R/--recursive option.
func recursive(args []Word) bool {
	opts, _, _ := options(args)
	for _, o := range opts {
		if o == "--recursive" || (!strings.HasPrefix(o, "--") && strings.ContainsAny(o, "rR")) {
			return true
		}
	}
	return false
}

// targets returns the path operands of rm, chmod, chown and chgrp (the mode
// or owner operand of the latter is skipped).
func targets(name string, args []Word) []Word {
	var out []Word
	dashdash := false
	skip := name != "rm" // chmod MODE, chown OWNER, chgrp GROUP
	for _, a := range args {
		if !dashdash && !a.Dynamic {
			if a.Text == "--" {
				dashdash = true
				continue
			}
			if strings.HasPrefix(a.Text, "-") && len(a.Text) > 1 && !(name == "chmod" && isMode(a.Text)) {
				continue
			}
		}
		if skip {
			skip = false
			continue
		}
		out = append(out, a)
	}
	return out
}

func isMode(s string) bool { return strings.Trim(s, "-+=rwxXstugoa,0123456789") == "" }

func isPowerCommand(name string, args []Word) bool {
	switch name {
	case "shutdown", "reboot", "halt", "poweroff", "kexec":
		return true
	case "init", "telinit":
		return len(args) > 0 && (args[0].Text == "0" || args[0].Text == "6")
	case "systemctl":
		for _, a := range args {
			switch a.Text {
			case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "soft-reboot":
				return true
			}
		}
	}
	return false
}

func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/zero", "/dev/tty":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}

func isBlockDevice(p string) bool {
	rest, ok := strings.CutPrefix(p, "/dev/")
	if !ok {
		return false
	}
	for _, prefix := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "mapper/", "md", "loop", "dm-"} {
		if strings.HasPrefix(rest, prefix) {
			return true
		}
	}
	return false
}

func hasCommand(a *Analysis, name string) bool {
	for i := range a.Commands {
		if a.Commands[i].Name() == name {
			return true
		}
	}
	return false
}

// forkBomb finds a function that calls itself in a pipeline or in the
// background, like :(){ :|:& };:.
func forkBomb(a *Analysis) (string, bool) {
	for _, c := range a.Commands {
		if c.Func != "" && c.Name() == c.Func && (c.Piped || c.Background) {
			return c.Func, true
		}
	}
	return "", false
}

var fetchers = map[string]bool{"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true, "https": true, "xh": true}

var interpreters = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "fish": true, "csh": true, "tcsh": true,
	"python": true, "python3": true, "perl": true, "ruby": true, "node": true, "php": true,
}

// effectiveName is the command name after unwrapping wrappers.
func effectiveName(args []Word) (string, []Word) {
	lv := levels(args)
	if len(lv) == 0 {
		return "", nil
	}
	last := lv[len(lv)-1]
	if len(last) == 0 || last[0].Dynamic {
		return "", nil
	}
	return last[0].Text, last[1:]
}

// readsProgramFromStdin reports an interpreter invocation whose program
// comes from standard input: no script operand, no -c/-m/-e.
func readsProgramFromStdin(args []Word) bool {
	for _, a := range args {
		if a.Dynamic {
			return false
		}
		switch {
		case a.Text == "-" || a.Text == "-s":
			return true
		case a.Text == "-c" || a.Text == "-m" || a.Text == "-e" || a.Text == "-E" || a.Text == "-r" || a.Text == "--eval":
			return false
		case !strings.HasPrefix(a.Text, "-"):
			return false
		}
	}
	return true
}

// downloadIntoShell finds `curl … | sh`, `sh <(curl …)`, `bash -c "$(wget …)"`
// and `eval "$(curl …)"`.
func downloadIntoShell(a *Analysis) (string, bool) {
	fetcherIn := func(from, to int) bool {
		for i := from; i < to; i++ {
			if n, _ := effectiveName(a.Commands[i].Args); fetchers[n] {
				return true
			}
		}
		return false
	}
	for _, pl := range a.Pipelines {
		for j, st := range pl.Stages {
			for k := st[0]; k < st[1]; k++ {
				n, rest := effectiveName(a.Commands[k].Args)
				if interpreters[n] && readsProgramFromStdin(rest) && j > 0 && fetcherIn(pl.Stages[0][0], pl.Stages[j-1][1]) {
					return fmt.Sprintf("%q runs what was downloaded", a.Commands[k].Text), true
				}
			}
		}
	}
	for _, c := range a.Commands {
		n, _ := effectiveName(c.Args)
		if !interpreters[n] && n != "eval" && n != "source" && n != "." {
			continue
		}
		for _, k := range c.Nested {
			if kn, _ := effectiveName(a.Commands[k].Args); fetchers[kn] {
				return fmt.Sprintf("%q runs what %s downloads", c.Text, kn), true
			}
		}
	}
	return "", false
}

// matchAny returns the first pattern that matches the command: the
// pattern's words (split on spaces) match the command's first words, each
// as a path.Match glob; a dynamic word matches only "*".
func matchAny(patterns []string, args []Word) (string, bool) {
	for _, pat := range patterns {
		for _, lv := range levels(args) {
			if matchPattern(pat, lv) {
				return pat, true
			}
		}
	}
	return "", false
}

func matchPattern(pat string, args []Word) bool {
	words := strings.Fields(pat)
	if len(words) == 0 || len(words) > len(args) {
		return false
	}
	for i, w := range words {
		a := args[i]
		if a.Dynamic {
			if w != "*" {
				return false
			}
			continue
		}
		if ok, err := path.Match(w, a.Text); err != nil || !ok {
			return false
		}
	}
	return true
}
