package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const globDescription = "Find files by name pattern (`**` for any depth, e.g. `src/**/*.ts`, `*.{go,mod}`). Returns paths, newest first. Skips gitignored files unless include_ignored."

const globSchema = `{
	"type": "object",
	"properties": {
		"pattern": {"type": "string", "description": "glob, relative to path"},
		"path": {"type": "string", "description": "directory to search, relative to the workspace root (default: the root)"},
		"include_ignored": {"type": "boolean", "description": "also match gitignored files"}
	},
	"required": ["pattern"],
	"additionalProperties": false
}`

// maxGlobResults is how many paths one call returns.
const maxGlobResults = 100

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
		return none, nil
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
		rel string
		mod int64
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
		if doublestar.MatchUnvalidated(rest, r) {
			matches = append(matches, match{e.Rel, e.ModTime.UnixNano()})
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(matches) == 0 {
		return none, nil
	}
	slices.SortFunc(matches, func(x, y match) int {
		if x.mod != y.mod {
			if x.mod > y.mod {
				return -1
			}
			return 1
		}
		return strings.Compare(x.rel, y.rel)
	})
	var b strings.Builder
	for _, m := range matches[:min(len(matches), maxGlobResults)] {
		b.WriteString(m.rel)
		b.WriteByte('\n')
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if len(matches) > maxGlobResults {
		out += fmt.Sprintf("\n(showing the %d newest of %d matches: narrow the pattern or path)", maxGlobResults, len(matches))
	}
	return out, nil
}

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
