package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Ignore rules follow gitignore(5) exactly (TestIgnoreMatchesGit checks
// them against `git check-ignore`):
//
//   - a pattern without a slash (other than a trailing one) matches the
//     name of a file or directory at any depth below its ignore file;
//   - a pattern with a slash is anchored to the directory of its ignore file;
//   - "*", "?" and "[...]" never match "/"; "**/", "/**/" and "/**" span
//     directories; a trailing "/" matches directories only; "!" re-includes;
//   - a later rule wins over an earlier one, a deeper ignore file over a
//     shallower one, and nothing under an ignored directory is re-included.
//
// Ignore files, from weakest to strongest: .git/info/exclude, then at each
// directory level .gitignore and then .ignore (as ripgrep reads it). Ignore
// files of the directories between the enclosing git repository's top and
// the workspace root apply too. (Why not go-git's matcher: docs/DESIGN.md.)

// An ignoreRule is one compiled line of an ignore file.
type ignoreRule struct {
	pattern  string // anchored: relative to the ignore file's directory
	negate   bool
	dirOnly  bool
	anchored bool // match the whole relative path, not just the name
	kind     ruleKind
	lit      string // kindLiteral: the name; kindSuffix: the suffix
}

type ruleKind uint8

const (
	kindGlob    ruleKind = iota
	kindLiteral          // no wildcards
	kindSuffix           // "*" followed by a literal without wildcards
)

// An ignoreLevel is the rules of one directory's ignore files, chained to
// the levels of its ancestors. Levels are immutable once built.
type ignoreLevel struct {
	parent *ignoreLevel
	rules  []ignoreRule
	// A rule's path is relative to its level's directory: for a level at
	// or under the root, strip the first len(base) bytes of the root-relative
	// path; for a level above the root, prepend above.
	base  int
	above string
}

// parseIgnore compiles the lines of an ignore file.
func parseIgnore(data []byte) []ignoreRule {
	var rules []ignoreRule
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		// Trailing spaces are dropped unless escaped with a backslash.
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
			line = line[:len(line)-1]
		}
		var r ignoreRule
		if line[0] == '!' {
			r.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		r.pattern = line
		switch {
		case !strings.ContainsAny(line, `*?[\`):
			r.kind, r.lit = kindLiteral, line
		case !r.anchored && line[0] == '*' && !strings.ContainsAny(line[1:], `*?[\`):
			r.kind, r.lit = kindSuffix, line[1:]
		}
		rules = append(rules, r)
	}
	return rules
}

// match reports whether the rule matches a path: rel relative to the
// rule's directory, name its last component.
func (r *ignoreRule) match(rel, name string) bool {
	target := name
	if r.anchored {
		target = rel
	}
	switch r.kind {
	case kindLiteral:
		return target == r.lit
	case kindSuffix:
		return strings.HasSuffix(target, r.lit)
	}
	return wildmatch(r.pattern, 0, target)
}

// ignored reports whether the path rel (relative to the root, '/'-separated)
// with last component name is ignored by lv and its ancestors. It does not
// look at the path's parent directories: the walk never descends into an
// ignored one.
func (lv *ignoreLevel) ignored(rel, name string, isDir bool) bool {
	r := lv.decider(rel, name, isDir)
	return r != nil && !r.negate
}

// whitelisted reports whether the rule that decides rel is a "!" rule.
func (lv *ignoreLevel) whitelisted(rel, name string, isDir bool) bool {
	r := lv.decider(rel, name, isDir)
	return r != nil && r.negate
}

// decider returns the rule that decides rel (the last matching rule of the
// nearest level that has one), or nil when no rule matches.
func (lv *ignoreLevel) decider(rel, name string, isDir bool) *ignoreRule {
	for ; lv != nil; lv = lv.parent {
		for i := len(lv.rules) - 1; i >= 0; i-- {
			r := &lv.rules[i]
			if r.dirOnly && !isDir {
				continue
			}
			sub := rel
			if r.anchored {
				if lv.above != "" {
					sub = lv.above + rel
				} else {
					sub = rel[lv.base:]
				}
			}
			if r.match(sub, name) {
				return r
			}
		}
	}
	return nil
}

// globalExcludes is the user's global ignore file, as git finds it:
// core.excludesFile from the global git configuration ($XDG_CONFIG_HOME/git/config,
// ~/.gitconfig), else $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore).
func globalExcludes() []byte {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	file := ""
	for _, cfg := range []string{filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")} {
		if f := excludesFileSetting(readIfExists(cfg)); f != "" {
			file = f // ~/.gitconfig is read after the XDG file: it wins
		}
	}
	switch {
	case file == "" && xdg != "":
		file = filepath.Join(xdg, "git", "ignore")
	case strings.HasPrefix(file, "~/") && home != "":
		file = filepath.Join(home, file[2:])
	}
	if file == "" {
		return nil
	}
	return readIfExists(file)
}

// excludesFileSetting reads core.excludesFile from a git config file (the
// last one set; sections and keys are case-insensitive).
func excludesFileSetting(cfg []byte) string {
	section, value := "", ""
	for line := range strings.SplitSeq(string(cfg), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(strings.Fields(strings.Trim(line, "[]"))[0], `"`))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && section == "core" && strings.EqualFold(strings.TrimSpace(k), "excludesfile") {
			value = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return value
}

// child returns the level for directory dirRel (relative to the root,
// "" for the root) whose ignore files hold data (nil when absent).
func (lv *ignoreLevel) child(dirRel string, data ...[]byte) *ignoreLevel {
	var rules []ignoreRule
	for _, d := range data {
		if d != nil {
			rules = append(rules, parseIgnore(d)...)
		}
	}
	if len(rules) == 0 {
		return lv
	}
	base := 0
	if dirRel != "" {
		base = len(dirRel) + 1
	}
	return &ignoreLevel{parent: lv, rules: rules, base: base}
}

func readIfExists(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return data
}

// aboveRoot builds the levels that apply before the root's own ignore
// files: the enclosing git repository's info/exclude and the ignore files
// of the directories between the repository's top and the root.
func (w *Workspace) aboveRoot() *ignoreLevel {
	// Find the repository top: the nearest directory at or above the root
	// holding .git (a directory, or a file for worktrees and submodules).
	top := ""
	for d := w.root; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			top = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	var lv *ignoreLevel
	// The global excludes, weakest, relative to the repository's top (the
	// root outside a repository).
	if data := globalExcludes(); data != nil {
		lv = lv.child("", data)
		if lv != nil && top != "" {
			lv.above = relAbove(top, w.root)
		}
	}
	if top != "" {
		if data := readIfExists(filepath.Join(top, ".git", "info", "exclude")); data != nil {
			next := lv.child("", data)
			if next != lv {
				next.above = relAbove(top, w.root)
			}
			lv = next
		}
		// Directories from top down to, not including, the root.
		var dirs []string
		for d := w.root; d != top; {
			d = filepath.Dir(d)
			dirs = append(dirs, d)
		}
		for i := len(dirs) - 1; i >= 0; i-- {
			d := dirs[i]
			next := lv.child("", readIfExists(filepath.Join(d, ".gitignore")), readIfExists(filepath.Join(d, ".ignore")))
			if next != lv {
				next.above = relAbove(d, w.root)
			}
			lv = next
		}
	}
	return lv
}

// dirLevel adds the ignore files of directory abs (dirRel relative to the
// root, "" for the root) to lv.
func dirLevel(lv *ignoreLevel, abs, dirRel string) *ignoreLevel {
	return lv.child(dirRel, readIfExists(filepath.Join(abs, ".gitignore")), readIfExists(filepath.Join(abs, ".ignore")))
}

// relAbove is the '/'-separated path from dir down to root with a trailing
// slash, "" when they are the same (a level at the root strips nothing).
func relAbove(dir, root string) string {
	if dir == root {
		return ""
	}
	r, err := filepath.Rel(dir, root)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(r) + "/"
}

// levelsFor builds the ignore levels that apply to the entries of
// directory abs (inside the root) except abs's own ignore files, which the
// walk reads when it lists abs.
func (w *Workspace) levelsFor(abs string) *ignoreLevel {
	lv := w.aboveRoot()
	rel := w.Rel(abs)
	if rel == "." {
		return lv
	}
	lv = dirLevel(lv, w.root, "")
	parts := strings.Split(rel, "/")
	dir := w.root
	for i, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		lv = dirLevel(lv, dir, strings.Join(parts[:i+1], "/"))
	}
	return lv
}

// Ignored reports whether the ignore rules exclude abs, a path inside the
// root: it or one of its parent directories is matched (so a file under an
// ignored directory is ignored, as in git). Anything under .git is ignored.
// Hidden files are not "ignored" here; WalkOptions.Hidden governs them.
// It reads the ignore files on the way each time (a few small reads).
func (w *Workspace) Ignored(abs string, isDir bool) bool {
	abs = filepath.Clean(abs)
	if !w.Contains(abs) || abs == w.root {
		return false
	}
	rel := w.Rel(abs)
	if inGitDir(rel) {
		return true
	}
	lv := dirLevel(w.aboveRoot(), w.root, "")
	dir := w.root
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		last := i == len(parts)-1
		sub := strings.Join(parts[:i+1], "/")
		if lv.ignored(sub, p, isDir || !last) {
			return true
		}
		if last {
			break
		}
		dir = filepath.Join(dir, p)
		lv = dirLevel(lv, dir, sub)
	}
	return false
}

// wildmatch matches text against pattern[pi:] the way git's wildmatch does
// with WM_PATHNAME: "*", "?" and classes stop at "/", "**" between slashes
// (or at either end) spans directories, "\" escapes.
func wildmatch(pattern string, pi int, text string) bool {
	for pi < len(pattern) {
		c := pattern[pi]
		switch c {
		case '*':
			atStart := pi == 0 || pattern[pi-1] == '/'
			if atStart && strings.HasPrefix(pattern[pi:], "**") && (pi+2 == len(pattern) || pattern[pi+2] == '/') {
				if pi+2 == len(pattern) {
					return true // trailing "**": everything below
				}
				rest := pi + 3 // after "**/"
				if wildmatch(pattern, rest, text) {
					return true
				}
				for i := 0; i < len(text); i++ {
					if text[i] == '/' && wildmatch(pattern, rest, text[i+1:]) {
						return true
					}
				}
				return false
			}
			for pi < len(pattern) && pattern[pi] == '*' {
				pi++
			}
			if pi == len(pattern) {
				return !strings.Contains(text, "/")
			}
			for i := 0; i <= len(text); i++ {
				if wildmatch(pattern, pi, text[i:]) {
					return true
				}
				if i < len(text) && text[i] == '/' {
					return false
				}
			}
			return false
		case '?':
			if text == "" || text[0] == '/' {
				return false
			}
			_, n := utf8.DecodeRuneInString(text)
			text = text[n:]
			pi++
		case '[':
			if text == "" || text[0] == '/' {
				return false
			}
			r, n := utf8.DecodeRuneInString(text)
			ok, next := matchClass(pattern, pi, r)
			if next < 0 || !ok {
				return false
			}
			text = text[n:]
			pi = next
		default:
			if c == '\\' && pi+1 < len(pattern) {
				pi++
				c = pattern[pi]
			}
			if text == "" || text[0] != c {
				return false
			}
			text = text[1:]
			pi++
		}
	}
	return text == ""
}

// matchClass matches r against the bracket expression at pattern[pi] ('[')
// and returns the index after its ']' (-1 when unterminated: no match).
func matchClass(pattern string, pi int, r rune) (bool, int) {
	i := pi + 1
	negate := false
	if i < len(pattern) && (pattern[i] == '!' || pattern[i] == '^') {
		negate = true
		i++
	}
	matched := false
	first := true
	for i < len(pattern) {
		c := pattern[i]
		if c == ']' && !first {
			return matched != negate, i + 1
		}
		first = false
		if c == '[' && i+1 < len(pattern) && pattern[i+1] == ':' {
			if end := strings.Index(pattern[i+2:], ":]"); end >= 0 {
				if posixClass(pattern[i+2:i+2+end], r) {
					matched = true
				}
				i += 2 + end + 2
				continue
			}
		}
		if c == '\\' && i+1 < len(pattern) {
			i++
		}
		lo, n := utf8.DecodeRuneInString(pattern[i:])
		i += n
		hi := lo
		if i+1 < len(pattern) && pattern[i] == '-' && pattern[i+1] != ']' {
			i++
			if pattern[i] == '\\' && i+1 < len(pattern) {
				i++
			}
			hi, n = utf8.DecodeRuneInString(pattern[i:])
			i += n
		}
		if lo <= r && r <= hi {
			matched = true
		}
	}
	return false, -1
}

func posixClass(name string, r rune) bool {
	switch name {
	case "alnum":
		return r < 128 && (isAlpha(r) || isDigit(r))
	case "alpha":
		return isAlpha(r)
	case "blank":
		return r == ' ' || r == '\t'
	case "digit":
		return isDigit(r)
	case "lower":
		return 'a' <= r && r <= 'z'
	case "upper":
		return 'A' <= r && r <= 'Z'
	case "space":
		return strings.ContainsRune(" \t\n\r\f\v", r)
	case "xdigit":
		return isDigit(r) || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'
	case "punct":
		return r < 128 && r > ' ' && r != 127 && !isAlpha(r) && !isDigit(r)
	}
	return false
}

func isAlpha(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }
func isDigit(r rune) bool { return '0' <= r && r <= '9' }
