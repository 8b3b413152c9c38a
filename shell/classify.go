package shell

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
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
	if why := a.scriptWhy(); why != "" {
		return false, why
	}
	for i := range a.Commands {
		if ok, why := CommandReadOnly(&a.Commands[i]); !ok {
			return false, why
		}
	}
	return true, ""
}

// scriptWhy says why the script as a whole is not read-only even if each
// command is: it evaluates variables as arithmetic (Evaluates), or runs git
// after a cd, where git reads the repository and configuration of the
// directory the script chose.
func (a *Analysis) scriptWhy() string {
	if len(a.Evaluates) > 0 {
		return a.Evaluates[0]
	}
	cd := ""
	for i := range a.Commands {
		c := &a.Commands[i]
		switch name, _ := effectiveName(c.Args); name {
		case "cd", "pushd", "popd":
			cd = c.Text
		case "git":
			if cd != "" {
				return fmt.Sprintf("%q after %q reads the repository and configuration of another directory", c.Text, cd)
			}
		}
	}
	return ""
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
		if !transparentWrappers()[wrapper] {
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
	check, known := readOnlyCommands()[name.Text]
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
var transparentWrappers = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"command": true, "builtin": true, "exec": true, "nice": true, "time": true,
		"timeout": true, "stdbuf": true, "ionice": true,
	}
})

// readOnlyCommands maps each command known to be read-only to a check of
// its arguments (nil: any arguments). A check returns why the arguments
// make the command not read-only, or "".
var readOnlyCommands = sync.OnceValue(func() map[string]func(args []Word) string {
	return map[string]func(args []Word) string{
		// Readers and filters with no option that writes a file or runs a program.
		"cat": nil, "head": nil, "tail": nil, "wc": nil, "ls": nil, "pwd": nil,
		"echo": nil, "printf": forbidOptions("-v"), "true": nil, "false": nil, ":": nil,
		"test": checkTest, "[": checkTest,
		"basename": nil, "dirname": nil, "realpath": nil, "readlink": nil, "stat": nil,
		"du": nil, "df": nil, "cut": nil, "tr": nil, "nl": nil,
		"od": nil, "hexdump": nil, "md5sum": nil, "sha1sum": nil, "sha256sum": nil,
		"sha512sum": nil, "cksum": nil, "b2sum": nil, "diff": nil, "cmp": nil, "comm": nil,
		"column": nil, "tac": nil, "rev": nil, "fold": nil, "paste": nil, "join": nil,
		"strings": nil, "seq": nil, "whoami": nil, "id": nil, "uname": nil, "groups": nil,
		"printenv": nil, "locale": nil, "which": nil, "type": nil, "grep": nil, "egrep": nil,
		"fgrep": nil, "jq": nil, "sleep": nil, "wait": forbidOptions("-p"), "ps": nil, "nproc": nil,
		"arch": nil, "expr": nil, "cd": nil, "pushd": nil, "popd": nil, "dirs": nil,
		"set": checkSet, "shopt": checkShopt, "exit": numbersOnly, "return": numbersOnly, "break": numbersOnly,
		"continue": numbersOnly, "shift": numbersOnly, "expand": nil, "unexpand": nil,
		"zcat": nil, "look": nil, "tty": nil, "getconf": nil,
		// Readers with options that write or run programs.
		"find": checkFind,
		"file": forbidOptions("-C", "--compile"),
		"tree": forbidOptions("-o"),
		"rg":   forbidOptions("--pre", "--hostname-bin"),
		"fd":   forbidOptions("-x", "--exec", "-X", "--exec-batch"),
		"sort": forbidOptions("-o", "--output", "--compress-program"),
		"sed":  checkSed,
		"date": forbidOptions("-s", "--set"),
		"uniq": maxOperands(1),
		"hostname": func(args []Word) string {
			if why := forbidOptions("-F", "--file", "-b", "--boot")(args); why != "" {
				return why
			}
			return maxOperands(0)(args)
		},
		"env": maxOperands(0),
		"git": checkGit,
		"go":  checkGo,
	}
})

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
		case a.Glob:
			// An unquoted glob may expand to a file named like an option
			// (--pre=sh): what it means is known only at run time.
			dynamic = true
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
		if strings.HasPrefix(name, "--") && len(o) > 2 && strings.HasPrefix(o, "--") &&
			strings.HasPrefix(name, strings.SplitN(o, "=", 2)[0]) {
			return true // getopt_long takes any unambiguous prefix: --o for --output
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

// checkTest refuses test's -v and -R, which evaluate an array index of
// the name they are given (test -v 'a[$(cmd)]' runs cmd).
func checkTest(args []Word) string {
	for _, a := range args {
		if !a.Dynamic && (a.Text == "-v" || a.Text == "-R") {
			return a.Text + " evaluates an array index"
		}
	}
	return ""
}

// numbersOnly allows only numeric operands (exit, return, shift, break,
// continue).
func numbersOnly(args []Word) string {
	for _, a := range args {
		if a.Dynamic || !isDigits(strings.TrimPrefix(a.Text, "-")) {
			return "operand " + a.Text + " is not a number"
		}
	}
	return ""
}

// safeSetOptions are the shell options `set` may change in a read-only
// command: they change how errors and expansions behave, nothing else.
var safeSetOptions = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"errexit": true, "nounset": true, "pipefail": true, "xtrace": true, "verbose": true,
		"noglob": true, "noclobber": true, "noexec": true,
	}
})

// checkSet allows set without arguments (print the variables), the options
// e, u, x, v, f, C, n and -o/+o with a name of safeSetOptions, and `--`
// positional parameters; not -k (assignments anywhere), -a (export every
// assignment) and the rest.
func checkSet(args []Word) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic || a.Glob {
			return "an argument is known only at run time"
		}
		t := a.Text
		if t == "--" || t == "-" {
			return ""
		}
		if !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "+") {
			return ""
		}
		if t == "-o" || t == "+o" {
			if i+1 < len(args) && !args[i+1].Dynamic && safeSetOptions()[args[i+1].Text] {
				i++
				continue
			}
			if i+1 == len(args) {
				continue // set -o: print the options
			}
			return "set -o " + args[i+1].Text + " changes how later commands are read"
		}
		for j, c := range t[1:] {
			if c == 'o' && j == len(t)-2 { // -euo pipefail
				if i+1 < len(args) && !args[i+1].Dynamic && safeSetOptions()[args[i+1].Text] {
					i++
					continue
				}
				return "set -o with this option changes how later commands are read"
			}
			if !strings.ContainsRune("euxvfCn", c) {
				return "set " + string(t[0]) + string(c) + " changes how later commands are read"
			}
		}
	}
	return ""
}

// safeShopts are the shopt options a read-only command may set.
var safeShopts = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"globstar": true, "nullglob": true, "dotglob": true, "extglob": true, "failglob": true,
		"nocaseglob": true, "nocasematch": true, "globasciiranges": true,
	}
})

// checkShopt allows printing options and setting those of safeShopts (not
// expand_aliases, which lets BASH_ALIASES rename commands).
func checkShopt(args []Word) string {
	opts, ops, dynamic := options(args)
	if dynamic {
		return "an argument is known only at run time"
	}
	setting := false
	for _, o := range opts {
		if strings.ContainsAny(o, "su") {
			setting = true
		}
	}
	if !setting {
		return ""
	}
	for _, o := range ops {
		if !safeShopts()[o] {
			return "shopt " + o + " changes how later commands are read"
		}
	}
	return ""
}

func checkFind(args []Word) string {
	for _, a := range args {
		if a.Dynamic {
			return "an argument is known only at run time"
		}
		switch strings.TrimPrefix(a.Text, "-") {
		case "exec", "execdir", "ok", "okdir", "delete", "fprint", "fprint0", "fprintf", "fls":
			return a.Text + " runs programs or changes files"
		}
		if a.Glob {
			return "an unquoted glob in find's expression is known only at run time"
		}
	}
	return ""
}

// sedLongOptions are GNU sed's long options; true for those a read-only
// command may use (expression is checked separately).
var sedLongOptions = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"quiet": true, "silent": true, "regexp-extended": true, "posix": true, "null-data": true,
		"zero-terminated": true, "separate": true, "unbuffered": true, "debug": true, "sandbox": true,
		"expression": true, "line-length": true, "help": true, "version": true,
		"in-place": false, "file": false, "follow-symlinks": false, "binary": false,
	}
})

// longOption resolves a long option the way getopt_long does: an exact
// name, or a prefix of exactly one name. ok is false when it is unknown
// or ambiguous.
func longOption(table map[string]bool, name string) (string, bool) {
	if _, ok := table[name]; ok {
		return name, true
	}
	found := ""
	for n := range table {
		if strings.HasPrefix(n, name) {
			if found != "" {
				return "", false
			}
			found = n
		}
	}
	return found, found != ""
}

// checkSed parses sed's options as GNU sed does (clustered short options,
// -e's value glued or separate, abbreviated long options) and checks every
// script.
func checkSed(args []Word) string {
	var scripts, operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic || a.Glob {
			return "an argument is known only at run time"
		}
		t := a.Text
		next := func() (string, bool) {
			if i+1 < len(args) && !args[i+1].Dynamic {
				i++
				return args[i].Text, true
			}
			return "", false
		}
		switch {
		case t == "--":
			for _, r := range args[i+1:] {
				if r.Dynamic || r.Glob {
					return "an argument is known only at run time"
				}
				operands = append(operands, r.Text)
			}
			i = len(args)
		case strings.HasPrefix(t, "--"):
			name, value, hasValue := strings.Cut(t[2:], "=")
			full, ok := longOption(sedLongOptions(), name)
			if !ok || !sedLongOptions()[full] {
				return "option " + t + " is not known to be read-only"
			}
			switch full {
			case "expression":
				if !hasValue {
					if value, ok = next(); !ok {
						return "option " + t + " has no script"
					}
				}
				scripts = append(scripts, value)
			case "line-length":
				if !hasValue {
					next()
				}
			}
		case len(t) > 1 && t[0] == '-':
		cluster:
			for j := 1; j < len(t); j++ {
				switch c := t[j]; c {
				case 'n', 'E', 'r', 's', 'z', 'u':
				case 'e', 'l':
					value := t[j+1:]
					if value == "" {
						var ok bool
						if value, ok = next(); !ok {
							return "option -" + string(c) + " has no value"
						}
					}
					if c == 'e' {
						scripts = append(scripts, value)
					}
					break cluster
				default:
					return "option -" + string(c) + " is not known to be read-only"
				}
			}
		default:
			operands = append(operands, t)
		}
	}
	if len(scripts) == 0 && len(operands) > 0 {
		scripts = operands[:1]
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
		if !sedAddrCmd().MatchString(cmd) {
			return false
		}
	}
	return true
}

var sedAddrCmd = sync.OnceValue(func() *regexp.Regexp { // compiled at first use, not at every process start
	return regexp.MustCompile(`^(([0-9]+|\$|/[^/]*/)(,([0-9]+|\$|/[^/]*/))?)?\s*!?\s*[pdqnl=]$`)
})

// gitSafeGlobals are the global options a read-only git command may use:
// none of them changes where git reads its configuration or repository
// from, or runs a program.
var gitSafeGlobals = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"--no-pager": true, "-P": true, "--no-optional-locks": true, "--literal-pathspecs": true,
		"--glob-pathspecs": true, "--noglob-pathspecs": true, "--icase-pathspecs": true,
		"--no-replace-objects": true, "--version": true, "--help": true, "-h": true, "--no-lazy-fetch": true,
		"--no-advice": true,
	}
})

// gitSubcommand skips git's global options and returns the subcommand and
// its arguments; bad names a global option other than gitSafeGlobals: -c,
// --config-env, --git-dir, --work-tree, -C, --exec-path, --namespace and
// the like choose the configuration or repository git reads, or the
// programs it runs.
func gitSubcommand(args []Word) (sub string, rest []Word, bad string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic || a.Glob {
			return "", nil, "an argument is known only at run time"
		}
		if !strings.HasPrefix(a.Text, "-") {
			return a.Text, args[i+1:], ""
		}
		if !gitSafeGlobals()[a.Text] {
			return "", nil, "global option " + a.Text + " changes where git reads its configuration or repository, or what it runs"
		}
	}
	return "", nil, ""
}

// gitWithValue are the global options that take the next word as their
// value, for finding the subcommand of a command that is not read-only
// (deny patterns).
var gitWithValue = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--config-env": true, "--exec-path": true, "--super-prefix": true, "--list-cmds": true, "--attr-source": true}
})

// gitSubcommandAny returns the subcommand whatever the global options.
func gitSubcommandAny(args []Word) (sub string, rest []Word) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			return "", nil
		}
		if !strings.HasPrefix(a.Text, "-") {
			return a.Text, args[i+1:]
		}
		if gitWithValue()[a.Text] {
			i++
		}
	}
	return "", nil
}

// gitLogForbidden are the options of git's log and diff family that write
// files or run programs (external diff, textconv filters, pagers).
var gitLogForbidden = []string{"--output", "--ext-diff", "--textconv", "--open-files-in-pager"}

// gitReadOnly maps read-only git subcommands to their check.
var gitReadOnly = sync.OnceValue(func() map[string]func(args []Word) string {
	return map[string]func(args []Word) string{
		"status": forbidOptions(gitLogForbidden...), "blame": forbidOptions(gitLogForbidden...),
		"annotate": forbidOptions(gitLogForbidden...), "rev-parse": nil, "ls-files": nil,
		"ls-tree": nil, "cat-file": forbidOptions("--textconv", "--filters", "--batch-command"),
		"describe": nil, "show-ref": nil, "merge-base": nil, "count-objects": nil,
		"name-rev": nil, "for-each-ref": nil, "cherry": nil, "version": nil, "var": nil,
		"shortlog":    forbidOptions(gitLogForbidden...),
		"rev-list":    forbidOptions(gitLogForbidden...),
		"whatchanged": forbidOptions(gitLogForbidden...),
		"diff":        forbidOptions(gitLogForbidden...),
		"log":         forbidOptions(gitLogForbidden...),
		"show":        forbidOptions(gitLogForbidden...),
		"grep":        forbidOptions("-O", "--open-files-in-pager", "--textconv"),
		"branch":      checkGitList("--list", "-l", "-a", "-r", "-v", "-vv", "--all", "--remotes", "--verbose", "--show-current", "--merged", "--no-merged", "--contains", "--no-contains", "--sort", "--format", "--color", "--no-color", "--points-at", "--abbrev", "--no-abbrev", "--column", "--no-column", "-i", "--ignore-case"),
		"tag":         checkGitList("--list", "-l", "-n", "--sort", "--format", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--color", "--column", "--no-column", "-i", "--ignore-case"),
		"remote":      checkGitRemote,
		"config":      checkGitConfig,
		"stash":       checkGitFirstOperand(gitLogForbidden, "list", "show"),
		"reflog":      checkGitFirstOperand(gitLogForbidden, "", "show"),
	}
})

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

// gitConfigReadOptions are the options of git config that only read (or
// choose what to read); --file/-f and --blob take a value.
var gitConfigReadOptions = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"get": true, "get-all": true, "get-regexp": true, "get-urlmatch": true, "list": true,
		"global": true, "local": true, "system": true, "worktree": true, "file": true, "blob": true,
		"show-origin": true, "show-scope": true, "name-only": true, "null": true, "bool": true, "int": true,
		"path": true, "bool-or-int": true, "expiry-date": true, "type": true, "default": true,
		"includes": true, "no-includes": true, "all": true, "regexp": true, "value": true, "fixed-value": true,
		"url": true,
		"add": false, "unset": false, "unset-all": false, "replace-all": false, "rename-section": false,
		"remove-section": false, "edit": false, "comment": false, "append": false,
	}
})

// checkGitConfig allows the reading forms of git config: the get and list
// subcommands (git 2.46), or --get*/--list, with no option that writes. A
// plain `git config KEY VALUE` sets KEY, whatever VALUE says.
func checkGitConfig(args []Word) string {
	read := false
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic || a.Glob {
			return "an argument is known only at run time"
		}
		t := a.Text
		switch {
		case t == "-l" || t == "-z":
			read = read || t == "-l"
		case t == "-f":
			i++
		case strings.HasPrefix(t, "--"):
			name, _, hasValue := strings.Cut(t[2:], "=")
			full, ok := longOption(gitConfigReadOptions(), name)
			if !ok || !gitConfigReadOptions()[full] {
				return "option " + t + " may change configuration"
			}
			if strings.HasPrefix(full, "get") || full == "list" {
				read = true
			}
			if (full == "file" || full == "blob") && !hasValue {
				i++
			}
		case strings.HasPrefix(t, "-"):
			return "option " + t + " may change configuration"
		default:
			ops = append(ops, t)
		}
	}
	if len(ops) > 0 && (ops[0] == "get" || ops[0] == "list") {
		return ""
	}
	if !read {
		return "without get, list, --get or --list it sets configuration"
	}
	return ""
}

// checkGitFirstOperand allows the subcommand forms whose first operand is
// one of allowed ("" for none).
func checkGitFirstOperand(forbidden []string, allowed ...string) func([]Word) string {
	return func(args []Word) string {
		opts, ops, dynamic := options(args)
		if dynamic {
			return "an argument is known only at run time"
		}
		for _, f := range forbidden {
			if hasOption(opts, f) {
				return "option " + f + " writes files or runs programs"
			}
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
	check, ok := gitReadOnly()[sub]
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

// checkGo allows go version, help, doc, env and list without the flags
// that write files, run other programs or fetch code. Go's flag package
// takes -name and --name alike, with the value after = or as the next
// word, and no abbreviations or clusters.
func checkGo(args []Word) string {
	if len(args) == 0 || args[0].Dynamic {
		return "no subcommand"
	}
	sub, rest := args[0].Text, args[1:]
	var forbidden []string
	switch sub {
	case "version", "help":
	case "doc":
		forbidden = []string{"http", "play"}
	case "env":
		forbidden = []string{"w", "u"}
	case "list":
		forbidden = []string{"toolexec", "exec", "export", "compiled", "overlay", "modfile", "mod", "pgo", "C", "cover", "coverpkg"}
	default:
		return "go " + sub + " is not a read-only subcommand"
	}
	for _, a := range rest {
		if a.Dynamic || a.Glob {
			return "an argument is known only at run time"
		}
		t := a.Text
		if t == "--" {
			break
		}
		if !strings.HasPrefix(t, "-") {
			continue
		}
		name, value, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(t, "-"), "-"), "=")
		if name == "mod" && (value == "readonly" || value == "vendor") {
			continue
		}
		if name == "json" && (strings.Contains(value, "Export") || strings.Contains(value, "Compiled")) {
			return "flag " + t + " compiles packages"
		}
		for _, f := range forbidden {
			if name == f {
				return "flag " + t + " writes files, runs programs or fetches code"
			}
		}
	}
	return ""
}
