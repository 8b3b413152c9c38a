package shell

import (
	"fmt"
	"regexp"
	"strings"
)

// ReadOnly reports whether running the script can have no observable side
// effect. The classification fails closed: an unknown command, a dynamic
// command name, a redirection to a file, an assignment, eval/source, or an
// option of a known command that writes or runs other programs all make it
// false, and why names the first one found.
func (a *Analysis) ReadOnly() (ok bool, why string) {
	for _, r := range a.Redirects {
		if !redirectReadOnly(r) {
			return false, fmt.Sprintf("redirection %s%s %s writes a file", r.Fd, r.Op, r.Target.Text)
		}
	}
	for i := range a.Commands {
		if ok, why := CommandReadOnly(&a.Commands[i]); !ok {
			return false, why
		}
	}
	return true, ""
}

// redirectReadOnly allows input redirections, here-documents, descriptor
// duplication and output to /dev/null, /dev/stdout and /dev/stderr.
func redirectReadOnly(r Redirect) bool {
	switch r.Op {
	case "<", "<<", "<<-", "<<<":
		return true
	case "<&", ">&":
		t := r.Target
		return !t.Dynamic && (t.Text == "-" || isDigits(t.Text))
	case ">", ">>", "&>", "&>>", ">|":
		t := r.Target
		return !t.Dynamic && (t.Text == "/dev/null" || t.Text == "/dev/stdout" || t.Text == "/dev/stderr")
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// CommandReadOnly classifies one simple command (its redirections are
// classified by Analysis.ReadOnly).
func CommandReadOnly(c *Command) (bool, string) {
	if len(c.Assigns) > 0 {
		return false, fmt.Sprintf("%q assigns %s", c.Text, strings.Join(c.Assigns, ", "))
	}
	if c.Decl {
		return false, fmt.Sprintf("%q declares variables", c.Text)
	}
	if len(c.Args) == 0 {
		return true, "" // a bare redirection; the redirection itself is classified separately
	}
	args := c.Args
	for {
		inner, wrapper, ok := unwrap(args)
		if !ok {
			break
		}
		if !transparentWrappers[wrapper] {
			return false, fmt.Sprintf("%s runs another command", wrapper)
		}
		if wrapper == "time" {
			if opts, _, _ := options(args[1 : len(args)-len(inner)]); hasOption(opts, "-o") || hasOption(opts, "--output") || hasOption(opts, "--append") {
				return false, "time -o writes a file"
			}
		}
		if len(inner) == 0 {
			return true, ""
		}
		args = inner
	}
	name := args[0]
	if name.Dynamic {
		return false, fmt.Sprintf("the command name %s is known only at run time", name.Text)
	}
	check, known := readOnlyCommands[name.Text]
	if !known {
		return false, fmt.Sprintf("%s is not a known read-only command", name.Text)
	}
	if check == nil {
		return true, ""
	}
	if why := check(args[1:]); why != "" {
		return false, fmt.Sprintf("%s: %s", name.Text, why)
	}
	return true, ""
}

// transparentWrappers run their command and do nothing else of note.
var transparentWrappers = map[string]bool{
	"command": true, "builtin": true, "exec": true, "nice": true, "time": true,
	"timeout": true, "stdbuf": true, "ionice": true,
}

// readOnlyCommands maps each command known to be read-only to a check of
// its arguments (nil: any arguments). A check returns why the arguments
// make the command not read-only, or "".
var readOnlyCommands = map[string]func(args []Word) string{
	// Readers and filters with no option that writes a file or runs a program.
	"cat": nil, "head": nil, "tail": nil, "wc": nil, "ls": nil, "pwd": nil,
	"echo": nil, "printf": nil, "true": nil, "false": nil, ":": nil, "test": nil, "[": nil,
	"basename": nil, "dirname": nil, "realpath": nil, "readlink": nil, "stat": nil,
	"du": nil, "df": nil, "cut": nil, "tr": nil, "nl": nil,
	"od": nil, "hexdump": nil, "md5sum": nil, "sha1sum": nil, "sha256sum": nil,
	"sha512sum": nil, "cksum": nil, "b2sum": nil, "diff": nil, "cmp": nil, "comm": nil,
	"column": nil, "tac": nil, "rev": nil, "fold": nil, "paste": nil, "join": nil,
	"strings": nil, "seq": nil, "whoami": nil, "id": nil, "uname": nil, "groups": nil,
	"printenv": nil, "locale": nil, "which": nil, "type": nil, "grep": nil, "egrep": nil,
	"fgrep": nil, "jq": nil, "sleep": nil, "wait": nil, "ps": nil, "nproc": nil,
	"arch": nil, "expr": nil, "cd": nil, "pushd": nil, "popd": nil, "dirs": nil,
	"set": nil, "shopt": nil, "exit": nil, "return": nil, "break": nil,
	"continue": nil, "shift": nil, "expand": nil, "unexpand": nil,
	"zcat": nil, "look": nil, "tty": nil, "getconf": nil,
	// Readers with options that write or run programs.
	"find":     checkFind,
	"file":     forbidOptions("-C", "--compile"),
	"tree":     forbidOptions("-o"),
	"rg":       forbidOptions("--pre"),
	"fd":       forbidOptions("-x", "--exec", "-X", "--exec-batch"),
	"sort":     forbidOptions("-o", "--output", "--compress-program"),
	"sed":      checkSed,
	"date":     forbidOptions("-s", "--set"),
	"uniq":     maxOperands(1),
	"hostname": maxOperands(0),
	"env":      maxOperands(0),
	"git":      checkGit,
	"go":       checkGo,
}

// options splits arguments into options and operands (after "--" all are
// operands). dynamic reports a word known only at run time.
func options(args []Word) (opts, operands []string, dynamic bool) {
	dashdash := false
	for _, a := range args {
		if a.Dynamic {
			dynamic = true
			continue
		}
		switch {
		case dashdash:
			operands = append(operands, a.Text)
		case a.Text == "--":
			dashdash = true
		case len(a.Text) > 1 && a.Text[0] == '-':
			opts = append(opts, a.Text)
		default:
			operands = append(operands, a.Text)
		}
	}
	return opts, operands, dynamic
}

// hasOption reports whether opts holds name: exactly, as "name=value", or
// for a one-letter short option, inside a cluster such as -abc.
func hasOption(opts []string, name string) bool {
	for _, o := range opts {
		if o == name || strings.HasPrefix(o, name+"=") {
			return true
		}
		if len(name) == 2 && !strings.HasPrefix(o, "--") && !strings.HasPrefix(name, "--") &&
			strings.ContainsRune(o[1:], rune(name[1])) {
			return true
		}
		if strings.HasPrefix(name, "--") && len(o) > 3 && strings.HasPrefix(o, "--") &&
			strings.HasPrefix(name, strings.SplitN(o, "=", 2)[0]) {
			return true // a long option abbreviated: --out for --output
		}
	}
	return false
}

func forbidOptions(names ...string) func([]Word) string {
	return func(args []Word) string {
		opts, _, dynamic := options(args)
		if dynamic {
			return "an argument is known only at run time"
		}
		for _, n := range names {
			if hasOption(opts, n) {
				return "option " + n + " writes files or runs programs"
			}
		}
		return ""
	}
}

func maxOperands(n int) func([]Word) string {
	return func(args []Word) string {
		_, ops, dynamic := options(args)
		if dynamic {
			return "an argument is known only at run time"
		}
		if len(ops) > n {
			return "with these operands it changes something"
		}
		return ""
	}
}

func checkFind(args []Word) string {
	for _, a := range args {
		if a.Dynamic {
			return "an argument is known only at run time"
		}
		switch a.Text {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return a.Text + " runs programs or changes files"
		}
	}
	return ""
}

func checkSed(args []Word) string {
	opts, ops, dynamic := options(args)
	if dynamic {
		return "an argument is known only at run time"
	}
	for _, o := range opts {
		if strings.HasPrefix(o, "--") {
			switch {
			case o == "--quiet", o == "--silent", o == "--regexp-extended", o == "--posix",
				o == "--null-data", o == "--separate", o == "--unbuffered", o == "--debug",
				strings.HasPrefix(o, "--expression"), strings.HasPrefix(o, "--line-length"):
			default:
				return "option " + o + " is not known to be read-only"
			}
			continue
		}
		for _, c := range o[1:] {
			if !strings.ContainsRune("nEreszu", c) {
				return "option -" + string(c) + " is not known to be read-only"
			}
		}
	}
	// The script is the -e argument or the first operand.
	var scripts []string
	for i, a := range args {
		if (a.Text == "-e" || a.Text == "--expression") && i+1 < len(args) {
			scripts = append(scripts, args[i+1].Text)
		} else if v, ok := strings.CutPrefix(a.Text, "--expression="); ok {
			scripts = append(scripts, v)
		}
	}
	if len(scripts) == 0 && len(ops) > 0 {
		scripts = ops[:1]
	}
	for _, s := range scripts {
		if !sedReadOnly(s) {
			return fmt.Sprintf("script %q may write files or run commands", s)
		}
	}
	return ""
}

// sedReadOnly accepts scripts whose commands are only addresses followed by
// p, d, q, n, = or l (`1,20p`, `/re/p`, `$d`).
func sedReadOnly(s string) bool {
	for _, cmd := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' }) {
		cmd = strings.TrimSpace(cmd)
		cmd = strings.Trim(cmd, "{} \t")
		if cmd == "" {
			continue
		}
		if !sedAddrCmd.MatchString(cmd) {
			return false
		}
	}
	return true
}

var sedAddrCmd = regexp.MustCompile(`^(([0-9]+|\$|/[^/]*/)(,([0-9]+|\$|/[^/]*/))?)?\s*!?\s*[pdqnl=]$`)

// gitGlobalWithValue are git's global options that take a separate value.
var gitGlobalWithValue = map[string]bool{"-C": true, "--git-dir": true, "--work-tree": true, "--namespace": true}

// gitSubcommand skips git's global options and returns the subcommand and
// its arguments; bad names a global option that runs programs or changes
// configuration.
func gitSubcommand(args []Word) (sub string, rest []Word, bad string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			return "", nil, "an argument is known only at run time"
		}
		if !strings.HasPrefix(a.Text, "-") {
			return a.Text, args[i+1:], ""
		}
		switch {
		case a.Text == "-c", strings.HasPrefix(a.Text, "--config-env"), strings.HasPrefix(a.Text, "--exec-path="):
			return "", nil, "option " + a.Text + " can run programs"
		case gitGlobalWithValue[a.Text]:
			i++
		}
	}
	return "", nil, ""
}

// gitReadOnly maps read-only git subcommands to their check.
var gitReadOnly = map[string]func(args []Word) string{
	"status": nil, "blame": nil, "annotate": nil, "rev-parse": nil, "ls-files": nil,
	"ls-tree": nil, "cat-file": nil, "describe": nil, "shortlog": nil, "rev-list": nil,
	"show-ref": nil, "merge-base": nil, "whatchanged": nil, "count-objects": nil,
	"name-rev": nil, "for-each-ref": nil, "cherry": nil, "version": nil, "var": nil,
	"diff":   forbidOptions("--output", "--ext-diff"),
	"log":    forbidOptions("--output", "--ext-diff"),
	"show":   forbidOptions("--output", "--ext-diff"),
	"grep":   forbidOptions("-O", "--open-files-in-pager"),
	"branch": checkGitList("--list", "-l", "-a", "-r", "-v", "-vv", "--all", "--remotes", "--verbose", "--show-current", "--merged", "--no-merged", "--contains", "--no-contains", "--sort", "--format", "--color", "--no-color", "--points-at", "--abbrev", "--no-abbrev", "--column", "--no-column", "-i", "--ignore-case"),
	"tag":    checkGitList("--list", "-l", "-n", "--sort", "--format", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--color", "--column", "--no-column", "-i", "--ignore-case"),
	"remote": checkGitRemote,
	"config": checkGitConfig,
	"stash":  checkGitFirstOperand("list", "show"),
	"reflog": checkGitFirstOperand("", "show"),
}

// checkGitList allows a listing form: only the given options; operands only
// as patterns after --list/-l.
func checkGitList(allowed ...string) func([]Word) string {
	return func(args []Word) string {
		opts, ops, dynamic := options(args)
		if dynamic {
			return "an argument is known only at run time"
		}
		list := false
		for _, o := range opts {
			name := strings.SplitN(o, "=", 2)[0]
			ok := false
			for _, a := range allowed {
				if name == a {
					ok = true
				}
			}
			if !ok {
				return "option " + o + " is not a listing option"
			}
			if name == "--list" || name == "-l" {
				list = true
			}
		}
		if len(ops) > 0 && !list {
			return "with operands it creates or changes refs"
		}
		return ""
	}
}

func checkGitRemote(args []Word) string {
	opts, ops, dynamic := options(args)
	if dynamic {
		return "an argument is known only at run time"
	}
	for _, o := range opts {
		if o != "-v" && o != "--verbose" {
			return "option " + o + " is not a listing option"
		}
	}
	if len(ops) > 0 && ops[0] != "get-url" {
		return "subcommand " + ops[0] + " is not read-only"
	}
	return ""
}

func checkGitConfig(args []Word) string {
	opts, _, dynamic := options(args)
	if dynamic {
		return "an argument is known only at run time"
	}
	for _, o := range opts {
		switch o {
		case "--get", "--get-all", "--get-regexp", "--list", "-l", "--global", "--local", "--system",
			"--show-origin", "--show-scope", "--name-only", "--null", "-z", "--bool", "--int", "--path", "--type":
			return checkGitConfigRead(opts)
		}
	}
	for _, a := range args {
		if a.Text == "get" || a.Text == "list" {
			return ""
		}
	}
	return "without --get or --list it sets configuration"
}

func checkGitConfigRead(opts []string) string {
	read := false
	for _, o := range opts {
		switch o {
		case "--get", "--get-all", "--get-regexp", "--list", "-l":
			read = true
		case "--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "--edit", "-e":
			return "option " + o + " changes configuration"
		}
	}
	if !read {
		return "without --get or --list it sets configuration"
	}
	return ""
}

// checkGitFirstOperand allows the subcommand forms whose first operand is
// one of allowed ("" for none).
func checkGitFirstOperand(allowed ...string) func([]Word) string {
	return func(args []Word) string {
		_, ops, dynamic := options(args)
		if dynamic {
			return "an argument is known only at run time"
		}
		first := ""
		if len(ops) > 0 {
			first = ops[0]
		}
		for _, a := range allowed {
			if first == a {
				return ""
			}
		}
		return "subcommand " + first + " is not read-only"
	}
}

func checkGit(args []Word) string {
	sub, rest, bad := gitSubcommand(args)
	if bad != "" {
		return bad
	}
	if sub == "" {
		return "" // git --version, git --help
	}
	check, ok := gitReadOnly[sub]
	if !ok {
		return "git " + sub + " is not a read-only subcommand"
	}
	if check == nil {
		for _, a := range rest {
			if a.Dynamic {
				return "an argument is known only at run time"
			}
		}
		return ""
	}
	return check(rest)
}

func checkGo(args []Word) string {
	if len(args) == 0 || args[0].Dynamic {
		return "no subcommand"
	}
	sub, rest := args[0].Text, args[1:]
	switch sub {
	case "version", "doc", "help":
		return forbidOptions()(rest)
	case "env":
		return forbidOptions("-w", "-u")(rest)
	case "list":
		return forbidOptions("-toolexec", "-exec", "-export", "-compiled", "-overlay", "-modfile")(rest)
	}
	return "go " + sub + " is not a read-only subcommand"
}
