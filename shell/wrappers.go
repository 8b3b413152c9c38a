package shell

import (
	"path"
	"strings"
)

// wrapperValueOptions lists, for each command that runs another command
// given in its arguments, the options that take a separate value. An entry
// with a nil map is a wrapper without such options.
var wrapperValueOptions = map[string]map[string]bool{
	"command": nil, "builtin": nil, "exec": {"-a": true}, "nohup": nil,
	"nice":    {"-n": true, "--adjustment": true},
	"time":    {"-f": true, "--format": true, "-o": true, "--output": true},
	"timeout": {"-s": true, "--signal": true, "-k": true, "--kill-after": true},
	"stdbuf":  {"-i": true, "-o": true, "-e": true},
	"ionice":  {"-c": true, "-n": true, "--class": true, "--classdata": true},
	"env":     {"-u": true, "--unset": true, "-C": true, "--chdir": true},
	"xargs":   {"-I": true, "-n": true, "-P": true, "-L": true, "-d": true, "-E": true, "-s": true, "-a": true, "--arg-file": true, "--max-args": true, "--max-procs": true, "--delimiter": true, "--replace": true},
	"setsid":  nil,
	"sudo":    {"-u": true, "-g": true, "-C": true, "-D": true, "-h": true, "-p": true, "-U": true, "-r": true, "-t": true, "-T": true, "--user": true, "--group": true},
	"doas":    {"-u": true, "-C": true},
	"watch":   {"-n": true, "--interval": true},
	"flock":   {"-w": true, "--timeout": true, "-E": true},
	"taskset": nil,
	"chrt":    nil,
	"unshare": nil,
	"strace":  {"-o": true, "-e": true, "-p": true, "-s": true},
	"busybox": nil, "toybox": nil,
}

// unwrap returns the command run by a wrapper such as `timeout 5 cmd` or
// `env X=1 cmd`, and the wrapper's name. ok is false when args is not a
// wrapper invocation. An empty inner command means nothing else runs
// (`command -v ls`).
func unwrap(args []Word) (inner []Word, wrapper string, ok bool) {
	if len(args) == 0 || args[0].Dynamic {
		return nil, "", false
	}
	name := args[0].Text
	valueOpts, isWrapper := wrapperValueOptions[name]
	if !isWrapper || len(args) == 1 {
		return nil, "", false
	}
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			break
		}
		t := a.Text
		if t == "--" {
			i++
			break
		}
		if name == "env" && strings.Contains(t, "=") && !strings.HasPrefix(t, "-") {
			continue
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			break
		}
		if name == "command" && (t == "-v" || t == "-V") {
			return []Word{}, name, true
		}
		if name == "env" && (t == "-S" || strings.HasPrefix(t, "--split-string")) {
			// env -S 'cmd args': the command is in one string.
			if i+1 < len(args) {
				return []Word{{Text: args[i+1].Text, Dynamic: true}}, name, true
			}
			return []Word{}, name, true
		}
		if valueOpts[t] {
			i++
		}
	}
	if i >= len(args) {
		return []Word{}, name, true
	}
	switch name {
	case "timeout":
		i++ // the duration
	case "chrt":
		i++ // the priority
	case "taskset":
		i++ // the mask
	case "flock":
		i++ // the lock file
	}
	if i >= len(args) {
		return []Word{}, name, true
	}
	return args[i:], name, true
}

// levels returns the command and every command it runs through wrappers:
// `timeout 5 sudo rm x` gives the whole, `sudo rm x` and `rm x`. For git,
// a form without global options is added (`git -C d push` → `git push`).
//
// Each level's command name is normalised as the deny rules see it: a path
// becomes its base name (/bin/rm, ./rm → rm).
func levels(args []Word) [][]Word {
	var out [][]Word
	for len(args) > 0 && len(out) < 16 {
		if w := args[0]; !w.Dynamic && strings.Contains(w.Text, "/") && path.Base(w.Text) != "" {
			args = append([]Word{{Text: path.Base(w.Text), Glob: w.Glob}}, args[1:]...)
		}
		out = append(out, args)
		if !args[0].Dynamic && args[0].Text == "git" {
			if sub, rest := gitSubcommandAny(args[1:]); sub != "" && len(rest)+2 != len(args) {
				out = append(out, append([]Word{args[0], {Text: sub}}, rest...))
			}
		}
		inner, _, ok := unwrap(args)
		if !ok {
			break
		}
		args = inner
	}
	return out
}
