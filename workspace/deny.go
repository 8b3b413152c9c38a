package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// The secrets deny list names files the tools must behave as if they did
// not exist: Resolve answers "does not exist" for them (whether they exist
// or not, so the answer tells nothing), ReadFile, ReadRaw and Read refuse
// them the same way, Walk never reports them (nor descends into a denied
// directory), and Buffer and Buffers leave their buffers out (so the code
// index does not see them either). ResolveWrite refuses to write, move or
// delete them, since a write tool could otherwise replace a file it is not
// allowed to read.
//
// Patterns follow gitignore(5) as the ignore files do (see ignore.go),
// relative to the workspace root: a pattern without a slash matches a name
// at any depth, one with a slash is anchored, "**" spans directories, a
// trailing "/" matches directories only, and a later "!pattern" allows
// again what an earlier one denied. Matching ignores case, so that .ENV or
// KEY.PEM are denied too (on a case-insensitive file system they are the
// same file). A path is denied when it or any directory above it is.
//
// The list is DefaultDeny followed by the workspace's configured patterns
// (SetDeny; Session.SetSettings takes them from the "secrets.deny" setting),
// so configuration can add names or allow some again: ["!.env.example"],
// or ["!*"] to turn the defaults off.

// DefaultDeny returns the patterns every workspace denies before its
// configured ones: environment files (direnv's too), private keys,
// certificates and key stores, SSH private keys, the credentials of
// netrc, npm, PyPI, git and AWS, and git's repository configs, a
// submodule's included (they may hold credentials in remote URLs).
// README.md and docs/PROTOCOL.md list them; keep the three in step.
func DefaultDeny() []string {
	return []string{
		".env", ".env.*", ".envrc",
		"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
		"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "**/.ssh/id_*",
		".netrc", ".npmrc", ".pypirc", ".git-credentials", "**/.aws/credentials",
		"**/.git/config", ".git/modules/**/config",
	}
}

// A denyList is a compiled deny list; immutable once published.
type denyList struct {
	patterns []string // the configured ones, as given
	level    *ignoreLevel
	dirOnly  bool // some rule matches directories only
	// names, when not nil, rejects most names before the rules are tried
	// (a walk asks about every entry: the rules cost it a lowered copy of
	// the path and ~20 matches each, most of the CPU of a warm index build).
	names *denyNames
}

// denyNames is a deny list's necessary condition on the last component of
// a path: the name must begin as some rule's last segment begins, or end as
// one ends. A rule's last segment matches the name alone ("*", "?" and
// classes never match "/"), so a name that begins and ends as no rule's
// can match none; "!" rules only allow again, so they do not count.
type denyNames struct {
	first  [256]bool // first byte of a one-byte literal prefix
	first2 [][2]byte // first two bytes of a longer one
	last   [256]bool // last byte of a one-byte literal suffix (after the last wildcard)
	last2  [][2]byte // last two bytes of a longer one
}

// newDenyNames returns the name condition of rules; nil when some rule's
// last segment may match any name ("*", "**", a class first and last, an
// escape).
func newDenyNames(rules []ignoreRule) *denyNames {
	dn := &denyNames{}
	for _, r := range rules {
		if r.negate {
			continue
		}
		slash := strings.LastIndexByte(r.pattern, '/')
		if b := strings.IndexByte(r.pattern, '['); b >= 0 && b < slash {
			return nil // a class may hold the '/' (x[a/b]y): no last segment to read
		}
		seg := r.pattern[slash+1:]
		if strings.IndexByte(seg, '\\') >= 0 || seg == "**" {
			return nil
		}
		if i := strings.IndexAny(seg, "*?["); i != 0 { // a literal prefix (or all of seg)
			pre := seg
			if i > 0 {
				pre = seg[:i]
			}
			if len(pre) == 1 {
				dn.first[pre[0]] = true
			} else if k := [2]byte{pre[0], pre[1]}; !slices.Contains(dn.first2, k) {
				dn.first2 = append(dn.first2, k)
			}
			continue
		}
		j := strings.LastIndexAny(seg, "*?[]")
		if seg[j] == '[' || seg[j] == ']' || j == len(seg)-1 {
			return nil // no literal suffix that is surely one
		}
		suf := seg[j+1:]
		if len(suf) == 1 {
			dn.last[suf[0]] = true
		} else if k := [2]byte{suf[len(suf)-2], suf[len(suf)-1]}; !slices.Contains(dn.last2, k) {
			dn.last2 = append(dn.last2, k)
		}
	}
	return dn
}

// may reports whether name may be denied by some rule (the rules are lower
// case and match the lowered name). A name that begins or ends with a byte
// over 0x7f may: its lower case can begin or end otherwise (the Kelvin sign
// lowers to 'k').
func (dn *denyNames) may(name string) bool {
	n := len(name)
	if n == 0 || name[0] >= 0x80 || name[n-1] >= 0x80 {
		return true
	}
	c0, cl := lowerByte(name[0]), lowerByte(name[n-1])
	if dn.first[c0] || dn.last[cl] {
		return true
	}
	if n < 2 {
		return false
	}
	c1, cp := lowerByte(name[1]), lowerByte(name[n-2])
	if c1 >= 0x80 || cp >= 0x80 {
		return true
	}
	for _, p := range dn.first2 {
		if p[0] == c0 && p[1] == c1 {
			return true
		}
	}
	for _, p := range dn.last2 {
		if p[0] == cp && p[1] == cl {
			return true
		}
	}
	return false
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func compileDeny(configured []string) *denyList {
	all := append(DefaultDeny(), configured...)
	var b strings.Builder
	for _, p := range all {
		p = strings.TrimSpace(p)
		if p == "" || strings.ContainsAny(p, "\n\r") {
			continue
		}
		b.WriteString(strings.ToLower(p))
		b.WriteByte('\n')
	}
	d := &denyList{patterns: slices.Clone(configured)}
	d.level = (*ignoreLevel)(nil).child("", []byte(b.String()))
	if d.level != nil {
		for _, r := range d.level.rules {
			d.dirOnly = d.dirOnly || r.dirOnly
		}
		d.names = newDenyNames(d.level.rules)
	}
	return d
}

// match reports whether the root-relative, '/'-separated rel (last
// component name) is denied by its own name; the caller checks parents.
func (d *denyList) match(rel, name string, isDir bool) bool {
	if d == nil || d.level == nil || d.names != nil && !d.names.may(name) {
		return false
	}
	return d.level.ignored(strings.ToLower(rel), strings.ToLower(name), isDir)
}

// SetDeny sets the workspace's configured deny patterns, which apply after
// DefaultDeny (see the deny list above). Blank patterns are skipped; nil
// leaves only the defaults. It is safe to call while tools run: each call
// sees the old list or the new one.
func (w *Workspace) SetDeny(patterns []string) {
	d := defaultDenyList()
	if len(patterns) > 0 {
		d = compileDeny(patterns)
	}
	w.deny.Store(d)
	w.denyVersion.Add(1)
}

// DenyVersion counts SetDeny calls. Whoever keeps what a walk listed (a
// file table, a symbol index) compares it with the count at the walk: a
// change means that files it holds may be denied now, or allowed again.
func (w *Workspace) DenyVersion() uint64 { return w.denyVersion.Load() }

// DenyPatterns returns the configured patterns (without the defaults).
func (w *Workspace) DenyPatterns() []string {
	return slices.Clone(w.denyList().patterns)
}

func (w *Workspace) denyList() *denyList {
	if d := w.deny.Load(); d != nil {
		return d
	}
	return defaultDenyList()
}

// defaultDenyList is DefaultDeny compiled, on first use: not at package
// init, and once however many workspaces and SetDeny calls without a
// pattern of their own (a fresh agentls call compiled it twice: at init
// and when its settings were applied).
var defaultDenyList = sync.OnceValue(func() *denyList { return compileDeny(nil) })

// Denied reports whether the path rel (relative to the root, '/'- or
// OS-separated; an absolute path inside the root is accepted too) is on the
// deny list: it or one of the directories above it matches. Only the path
// as named is checked; Resolve also checks where its symlinks lead.
func (w *Workspace) Denied(rel string) bool {
	if filepath.IsAbs(rel) {
		abs := filepath.Clean(rel)
		if !w.Contains(abs) {
			return false
		}
		rel = w.Rel(abs)
	}
	rel = strings.Trim(filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))), "/")
	if rel == "." || rel == "" || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	return w.deniedBy(w.denyList(), rel)
}

// deniedBy is Denied for the clean, '/'-separated rel against d.
func (w *Workspace) deniedBy(d *denyList, rel string) bool {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		sub := strings.Join(parts[:i+1], "/")
		last := i == len(parts)-1
		if !last {
			if d.match(sub, p, true) {
				return true
			}
			continue
		}
		if d.match(sub, p, false) {
			return true
		}
		if d.dirOnly {
			if st, err := os.Stat(filepath.Join(w.root, filepath.FromSlash(sub))); err == nil && st.IsDir() {
				return d.match(sub, p, true)
			}
		}
	}
	return false
}

// DenyPattern returns the pattern of the deny list that denies rel (a
// clean path relative to the root), for messages; "" when none does.
func (w *Workspace) DenyPattern(rel string) string {
	if !w.Denied(rel) {
		return ""
	}
	rel = strings.Trim(filepath.ToSlash(rel), "/")
	all := append(DefaultDeny(), w.denyList().patterns...)
	for i := len(all) - 1; i >= 0; i-- {
		p := strings.TrimSpace(all[i])
		if p == "" || strings.HasPrefix(p, "!") || strings.HasPrefix(p, "#") {
			continue
		}
		one := &denyList{level: (*ignoreLevel)(nil).child("", []byte(strings.ToLower(p)+"\n"))}
		if one.level != nil {
			one.dirOnly = one.level.rules[0].dirOnly
		}
		if w.deniedBy(one, rel) {
			return p
		}
	}
	return "the deny list"
}

// CheckMove refuses a move or rename of from to to (both inside the root,
// resolved) that would change what the deny list covers: a denied file
// (from itself, or one under the directory from) whose new path is not
// denied would become readable, and a file whose new path is denied would
// vanish from the tools. The error names the file and the pattern.
func (w *Workspace) CheckMove(ctx context.Context, from, to string) error {
	fromRel, toRel := w.Rel(from), w.Rel(to)
	check := func(oldRel string) error {
		newRel := toRel + strings.TrimPrefix(oldRel, fromRel)
		oldDenied, newDenied := w.Denied(oldRel), w.Denied(newRel)
		switch {
		case oldDenied && !newDenied:
			return fmt.Errorf("moving %s to %s would take %s out from under the secrets deny list (pattern %q): it would be readable as %s; refused",
				fromRel, toRel, oldRel, w.DenyPattern(oldRel), newRel)
		case newDenied && !oldDenied:
			return fmt.Errorf("moving %s to %s would put %s under a name the secrets deny list covers (%s, pattern %q); refused",
				fromRel, toRel, oldRel, newRel, w.DenyPattern(newRel))
		}
		return nil
	}
	if err := check(fromRel); err != nil {
		return err
	}
	st, err := os.Lstat(from)
	if err != nil || !st.IsDir() {
		return nil
	}
	opts := WalkOptions{Hidden: true, IncludeIgnored: true, IncludeDenied: true, NoStat: true}
	return w.Walk(ctx, from, opts, func(e WalkEntry) error { return check(e.Rel) })
}

// deniedPath reports whether abs (inside the root) is denied as named or
// where its symlinks lead (real, from resolveLinks; "" when not known).
func (w *Workspace) deniedPath(abs, real string) bool {
	if w.Denied(w.Rel(abs)) {
		return true
	}
	return real != "" && real != abs && within(w.root, real) && w.Denied(w.Rel(real))
}

// errDenied is what a read of a denied path gets: exactly what a missing
// file gets, so that the answer does not depend on whether it exists.
type errDenied struct{ rel string }

func (e errDenied) Error() string {
	return fmt.Sprintf("%s does not exist; find files with glob or ls", e.rel)
}

func (e errDenied) Is(target error) bool { return target == fs.ErrNotExist }
