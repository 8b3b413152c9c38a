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
		if g == "" || !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("glob %q is not a valid pattern (doublestar syntax: *, **, ?, [a-z], {a,b}; a leading ! excludes)", glob)
		}
		f.glob = g
		f.base = !strings.Contains(strings.TrimSuffix(g, "/"), "/")
	}
	if typ != "" {
		globs, ok := Types()[typ]
		if !ok {
			return nil, fmt.Errorf("unknown file type %q; known types: %s", typ, strings.Join(TypeNames(), ", "))
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
	return f.globMatch(rel, name) != f.negate
}

func (f *Filter) globMatch(rel, name string) bool {
	if f.base {
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
	return f.globMatch(rel, path.Base(rel))
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
