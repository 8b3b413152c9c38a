package textsearch

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// Filter selects files by a glob and a file type, like rg -g and -t.
// The zero Filter (or nil) selects everything.
type Filter struct {
	glob    string // doublestar pattern; "" none
	negate  bool   // glob started with "!": exclude what it matches
	base    bool   // glob has no '/': match the file name, at any depth
	dir     bool   // glob ended in '/': it names directories, and selects what is under them
	typeSet []string
}

// NewFilter compiles the tool's glob and type arguments. A glob without '/'
// matches file names at any depth; with '/', the path relative to the
// workspace folder ("**/" spans directories). A leading "!" excludes.
func NewFilter(glob, typ string) (*Filter, error) {
	f := &Filter{}
	if glob != "" {
		g := glob
		if strings.HasPrefix(g, "!") {
			f.negate, g = true, g[1:]
		}
		g = strings.TrimPrefix(g, "/")
		if strings.HasSuffix(g, "/") {
			f.dir, g = true, strings.TrimSuffix(g, "/")
		}
		if g == "" || !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("glob %q is not a valid pattern (doublestar syntax: *, **, ?, [a-z], {a,b}; a leading ! excludes)", glob)
		}
		f.glob = g
		f.base = !strings.Contains(g, "/")
	}
	if typ != "" {
		globs, ok := Types()[typ]
		if !ok {
			return nil, fmt.Errorf("unknown file type %q; the closest known types are %s", typ, strings.Join(closest(typ, TypeNames(), 3), ", "))
		}
		f.typeSet = globs
	}
	return f, nil
}

// Match reports whether the file at rel ('/'-separated, relative to the
// workspace folder) is selected.
func (f *Filter) Match(rel string) bool {
	if f == nil {
		return true
	}
	name := path.Base(rel)
	if f.typeSet != nil {
		ok := false
		for _, g := range f.typeSet {
			if m, _ := doublestar.Match(g, name); m {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if f.glob == "" {
		return true
	}
	return f.globMatch(rel) != f.negate
}

// globMatch matches the glob against the file at rel: a directory glob
// (one ending in '/') matches the files under a matching directory, and an
// excluding glob that matches a directory excludes what is under it, as the
// walk's SkipDir would.
func (f *Filter) globMatch(rel string) bool {
	if !f.dir && f.dirMatch(rel) {
		return true
	}
	if !f.dir && !f.negate {
		return false
	}
	for d := path.Dir(rel); d != "." && d != "/"; d = path.Dir(d) {
		if f.dirMatch(d) {
			return true
		}
	}
	return false
}

// dirMatch matches the glob against rel itself.
func (f *Filter) dirMatch(rel string) bool {
	if f.base {
		name := path.Base(rel)
		m, _ := doublestar.Match(f.glob, name)
		return m
	}
	m, _ := doublestar.Match(f.glob, rel)
	return m
}

// SkipDir reports whether nothing under the directory at rel can be
// selected: an excluding glob matches the directory itself.
func (f *Filter) SkipDir(rel string) bool {
	if f == nil || f.glob == "" || !f.negate {
		return false
	}
	return f.dirMatch(rel)
}

// closest returns the n names nearest to s by edit distance, nearest first
// (then by name).
func closest(s string, names []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	var all []scored
	for _, name := range names {
		d := editDistance(strings.ToLower(s), name)
		if strings.HasPrefix(name, strings.ToLower(s)) || strings.HasPrefix(strings.ToLower(s), name) {
			d-- // a prefix either way is closer than its distance says
		}
		all = append(all, scored{name, d})
	}
	slices.SortStableFunc(all, func(a, b scored) int { return a.d - b.d })
	var out []string
	for _, x := range all[:min(n, len(all))] {
		out = append(out, x.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

var types = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.Split(typeList, "\n") {
		name, globs, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		m[name] = strings.Split(globs, ", ")
	}
	// Names agents reach for that rg spells differently.
	for alias, name := range map[string]string{"rb": "ruby", "golang": "go", "python": "py", "javascript": "js", "typescript": "ts", "yml": "yaml", "rs": "rust", "bash": "sh", "shell": "sh"} {
		if _, ok := m[alias]; !ok {
			m[alias] = m[name]
		}
	}
	return m
})

// Types is the file type table: a type name and the globs of the file names
// it covers, rg's built-in list plus a few aliases.
func Types() map[string][]string { return types() }

// TypeNames lists the known type names, sorted.
func TypeNames() []string {
	var names []string
	for n := range Types() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
