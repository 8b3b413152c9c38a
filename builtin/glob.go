package builtin

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/textsearch"
	"github.com/agentls/agentls/workspace"
)

const globDescription = "Find files by name pattern (`**` for any depth, e.g. `src/**/*.ts`, `*.{go,mod}`). Returns paths, recently modified first (path order within a second). Skips gitignored files unless include_ignored."

const globSchema = `{
	"type": "object",
	"properties": {
		"pattern": {"type": "string", "description": "glob, relative to path"},
		"path": {"type": "string", "description": "directory to search, relative to the workspace root (default: the root)"},
		"include_ignored": {"type": "boolean", "description": "also match gitignored files"},
		"limit": {"type": "integer", "minimum": 1, "description": "paths shown (default 100)"},
		"offset": {"type": "integer", "minimum": 0, "description": "paths to skip, as a cut result says"}
	},
	"required": ["pattern"],
	"additionalProperties": false
}`

// defaultGlobLimit is how many paths one call returns by default.
const defaultGlobLimit = 100

type glob struct{}

func init() { registry.RegisterBuiltin(glob{}) }

func (glob) Name() string            { return "glob" }
func (glob) Description() string     { return globDescription }
func (glob) Schema() json.RawMessage { return json.RawMessage(globSchema) }
func (glob) ReadOnly() bool          { return true }

func (glob) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Pattern        string `json:"pattern"`
		Path           string `json:"path"`
		IncludeIgnored bool   `json:"include_ignored"`
		Limit          int    `json:"limit"`
		Offset         int    `json:"offset"`
	}
	if err := unmarshalArgs(args, &a); err != nil {
		return "", err
	}
	pattern := strings.TrimPrefix(a.Pattern, "./")
	if pattern == "" {
		return "", errors.New("pattern is empty: give a glob such as **/*.go")
	}
	if strings.HasPrefix(pattern, "/") {
		return "", errors.New("pattern must be relative to path (the workspace root by default), not absolute")
	}
	if slices.Contains(strings.Split(pattern, "/"), "..") {
		return "", errors.New(`pattern must not contain "..": pass the directory to search as path`)
	}
	if !doublestar.ValidatePattern(pattern) {
		return "", fmt.Errorf("%q is not a valid glob: check its brackets and braces", a.Pattern)
	}
	s, err := workspace.From(ctx)
	if err != nil {
		return "", err
	}
	// Walk only below the pattern's literal directory part.
	base, rest := doublestar.SplitPattern(pattern)
	dir, dirRel, err := s.WS.Resolve(path.Join(strings.TrimSuffix(a.Path, "/"), base))
	if err != nil {
		return "", err
	}
	searched := dirRel
	if a.Path != "" {
		_, searched, _ = s.WS.Resolve(a.Path)
	}
	none := fmt.Sprintf("No files match %s.", a.Pattern)
	if searched != "." {
		none = fmt.Sprintf("No files match %s in %s/.", a.Pattern, searched)
	}
	if st, err := os.Stat(dir); err != nil {
		if !s.WS.HasBuffersUnder(dir) { // else a directory only open buffers make
			return none, nil
		}
	} else if !st.IsDir() {
		return "", fmt.Errorf("%s is a file, not a directory to search: pass a directory as path", dirRel)
	}
	// Without "**" a match is exactly as deep as the pattern.
	maxDepth := -1
	if !strings.Contains(rest, "**") {
		maxDepth = strings.Count(rest, "/") + 1
	}
	opts := workspace.WalkOptions{IncludeIgnored: a.IncludeIgnored, Hidden: hiddenPattern(rest)}
	type match struct {
		rel   string
		mod   int64
		group int // of files modified within a second of each other
	}
	var matches []match
	err = s.WS.Walk(ctx, dir, opts, func(e workspace.WalkEntry) error {
		r := e.Rel
		if dirRel != "." {
			r = strings.TrimPrefix(r, dirRel+"/")
		}
		if e.IsDir {
			if maxDepth > 0 && strings.Count(r, "/")+1 >= maxDepth {
				return fs.SkipDir
			}
			return nil
		}
		if e.Mode&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice) != 0 {
			return nil // not a file a tool can read or edit
		}
		if e.Mode&fs.ModeSymlink != 0 {
			// A link to a directory is not a file (rg --files leaves links
			// out; a link to a file is listed, as read_file reads it).
			if st, err := os.Stat(e.Abs); err != nil || st.IsDir() {
				return nil
			}
		}
		if doublestar.MatchUnvalidated(rest, r) {
			matches = append(matches, match{rel: e.Rel, mod: e.ModTime.UnixNano()})
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(matches) == 0 {
		return none, nil
	}
	// Recently changed files first, but only where modification times tell
	// them apart: files changed within a second of the next newer one (a
	// clone, a checkout, an unpacked archive) stay together in path order.
	slices.SortFunc(matches, func(x, y match) int { return cmp.Compare(y.mod, x.mod) })
	group, groups := 0, make([]int, len(matches))
	for i := 1; i < len(matches); i++ {
		if matches[i-1].mod-matches[i].mod > int64(time.Second) {
			group++
		}
		groups[i] = group
	}
	for i := range matches {
		matches[i].group = groups[i]
	}
	slices.SortFunc(matches, func(x, y match) int {
		if x.group != y.group {
			return x.group - y.group
		}
		return textsearch.ComparePaths(x.rel, y.rel)
	})
	limit := defaultGlobLimit
	if a.Limit > 0 {
		limit = a.Limit
	}
	return pageLines(matches, a.Offset, limit, "paths", func(m match) string { return m.rel }), nil
}

// pageLines renders items[offset:offset+limit], one a line, stopping early
// before the result's size limit; when items are left out, a last line says
// which were shown and the offset of the next call.
func pageLines[T any](items []T, offset, limit int, what string, line func(T) string) string {
	if offset >= len(items) {
		return fmt.Sprintf("[offset %d is past the last of the %d %s: pass a smaller offset]", offset, len(items), what)
	}
	var b strings.Builder
	shown, byBytes := 0, false
	for _, it := range items[offset:] {
		if shown == limit {
			break
		}
		l := line(it)
		if b.Len()+len(l)+1 > maxPageBytes {
			byBytes = true
			break
		}
		b.WriteString(l)
		b.WriteByte('\n')
		shown++
	}
	out := strings.TrimSuffix(b.String(), "\n")
	end := offset + shown
	switch {
	case end < len(items):
		why := fmt.Sprintf("limit %d", limit)
		if byBytes {
			why = "the result size limit"
		}
		shownText := strconv.Itoa(shown)
		if offset > 0 {
			shownText = fmt.Sprintf("%d-%d", offset+1, end)
		}
		out += fmt.Sprintf("\n[%s of %d %s shown (%s); next: the same call with offset: %d]", shownText, len(items), what, why, end)
	case offset > 0:
		out += fmt.Sprintf("\n[%d-%d of %d %s shown: the last ones]", offset+1, end, len(items), what)
	}
	return out
}

// maxPageBytes keeps a paged result under the registry's cut, so that the
// paging note, not a truncation, ends it.
const maxPageBytes = registry.MaxResultBytes - 1024

// hiddenPattern reports whether a pattern names hidden files on purpose: a
// component that starts with a literal ".", as in ".github/**" or "**/.env".
func hiddenPattern(p string) bool {
	for part := range strings.SplitSeq(p, "/") {
		if strings.HasPrefix(part, ".") && part != "." {
			return true
		}
	}
	return false
}
