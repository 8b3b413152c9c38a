package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/textsearch"
	"github.com/agentls/agentls/workspace"
)

const grepDescription = "Search file contents with a regular expression (RE2), like ripgrep, over unsaved editor buffers and disk; gitignore-aware. Returns `path:line:text` lines sorted by path, or paths, or per-file counts."

const grepSchema = `{
	"type": "object",
	"properties": {
		"pattern": {"type": "string", "description": "RE2 regular expression (a literal with fixed_strings)"},
		"path": {"type": "string", "description": "file or directory to search, relative to the workspace root (default: all)"},
		"glob": {"type": "string", "description": "only files matching this glob, e.g. *.go, *.{ts,tsx}, src/**/*.py; a leading ! excludes, e.g. !**/vendor/**"},
		"type": {"type": "string", "description": "only files of this ripgrep type, e.g. go, py, js, ts, rust, java, c, cpp, md, json, yaml, sh"},
		"case_insensitive": {"type": "boolean", "description": "ignore case"},
		"fixed_strings": {"type": "boolean", "description": "pattern is a literal string, not a regex"},
		"multiline": {"type": "boolean", "description": "let matches span lines; . matches newlines"},
		"context": {"type": "integer", "minimum": 0, "maximum": 50, "description": "lines of context before and after each match (content mode)"},
		"output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"], "description": "content (default): path:line:text; files_with_matches: paths; count: path:N"},
		"max_results": {"type": "integer", "minimum": 1, "description": "matches (content) or files shown (default 200)"},
		"offset": {"type": "integer", "minimum": 0, "description": "matches (content) or files to skip, as a cut result says"},
		"include_ignored": {"type": "boolean", "description": "also search files excluded by .gitignore/.ignore"},
		"hidden": {"type": "boolean", "description": "also search hidden files and directories"}
	},
	"required": ["pattern"],
	"additionalProperties": false
}`

type grepTool struct{}

func init() { registry.RegisterBuiltin(grepTool{}) }

func (grepTool) Name() string            { return "grep" }
func (grepTool) Description() string     { return grepDescription }
func (grepTool) Schema() json.RawMessage { return json.RawMessage(grepSchema) }
func (grepTool) ReadOnly() bool          { return true }

type grepArgs struct {
	Pattern         string `json:"pattern"`
	Path            string `json:"path"`
	Glob            string `json:"glob"`
	Type            string `json:"type"`
	CaseInsensitive bool   `json:"case_insensitive"`
	FixedStrings    bool   `json:"fixed_strings"`
	Multiline       bool   `json:"multiline"`
	Context         int    `json:"context"`
	OutputMode      string `json:"output_mode"`
	MaxResults      int    `json:"max_results"`
	Offset          int    `json:"offset"`
	IncludeIgnored  bool   `json:"include_ignored"`
	Hidden          bool   `json:"hidden"`

	budget time.Duration // time allowed; 0: textsearch.DefaultBudget
}

func (grepTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a grepArgs
	if err := unmarshalArgs(args, &a); err != nil {
		return "", err
	}
	return runGrep(ctx, a, registry.MaxResultBytes-1024)
}

// runGrep runs one search whose output stops at maxBytes (0: no limit).
func runGrep(ctx context.Context, a grepArgs, maxBytes int) (string, error) {
	s, err := workspace.From(ctx)
	if err != nil {
		return "", err
	}
	if a.Pattern == "" {
		return "", errors.New("pattern is empty; give a regular expression or a literal with fixed_strings")
	}
	pat, err := textsearch.Compile(a.Pattern, textsearch.PatternOptions{
		FixedStrings:    a.FixedStrings,
		CaseInsensitive: a.CaseInsensitive,
		Multiline:       a.Multiline,
	})
	if err != nil {
		return "", err
	}
	mode, err := textsearch.ParseMode(a.OutputMode)
	if err != nil {
		return "", err
	}
	filter, err := textsearch.NewFilter(a.Glob, a.Type)
	if err != nil {
		return "", err
	}
	p := a.Path
	if p == "" {
		p = "."
	}
	abs, rel, err := s.WS.Resolve(p)
	if err != nil {
		return "", err
	}
	q := textsearch.Query{
		Pattern:    pat,
		Mode:       mode,
		Context:    a.Context,
		MaxResults: a.MaxResults,
		Offset:     a.Offset,
		MaxBytes:   maxBytes,
		Budget:     a.budget,
		Workspace:  s.WS,
	}
	skipped := &workspace.Skipped{}
	src, err := grepSource(s, abs, rel, filter, a, &skipped)
	if err != nil {
		return "", err
	}
	out, err := textsearch.Search(ctx, q, src)
	if err == nil && out == noMatches {
		out += notSearched(skipped, rel, a)
	}
	return out, err
}

// noMatches is what textsearch.Search says when nothing matched.
const noMatches = "No matches found."

// notSearched tells, after a search without matches, what the walk passed
// over under rel that hidden or include_ignored would have searched.
func notSearched(skipped *workspace.Skipped, rel string, a grepArgs) string {
	hidden, ignored, examples := skipped.Under(rel, hiddenPath, 1000)
	slices.SortFunc(examples, textsearch.ComparePaths) // the walk's order is its workers'
	examples = examples[:min(3, len(examples))]
	var parts []string
	if hidden > 0 {
		parts = append(parts, fmt.Sprintf("%s (hidden: true)", plural(hidden, "hidden entry")))
	}
	if ignored > 0 {
		parts = append(parts, fmt.Sprintf("%s (include_ignored: true)", plural(ignored, "ignored entry")))
	}
	if len(parts) == 0 {
		return ""
	}
	eg := strings.Join(examples, ", ")
	if hidden+ignored > len(examples) {
		eg += ", …"
	}
	return fmt.Sprintf(" Not searched: %s, such as %s.", strings.Join(parts, " and "), eg)
}

// grepSource lists the files under abs (a file or a directory) that the
// arguments select, each open buffer standing in for its disk file and
// buffers with no disk file included.
func grepSource(s *workspace.Session, abs, rel string, filter *textsearch.Filter, a grepArgs, skipped **workspace.Skipped) (textsearch.Source, error) {
	ws := s.WS
	buffers := map[string]*grepBuffer{}
	for _, b := range ws.Buffers() {
		if b.Path == abs || strings.HasPrefix(b.Path, abs+string(os.PathSeparator)) || rel == "." && ws.Contains(b.Path) {
			buffers[b.Path] = &grepBuffer{text: b.Text}
		}
	}
	st, statErr := os.Stat(abs)
	if statErr == nil && !st.IsDir() && !st.Mode().IsRegular() && buffers[abs] == nil {
		// A FIFO named on purpose gets an answer; one met by a walk is passed over.
		return nil, workspace.NotRegularError{Path: rel, Mode: st.Mode()}
	}
	if statErr == nil && st.Mode().IsRegular() && ws.IsDeniedLink(abs) {
		// A hard link to a denied file: missing, as read_file says.
		return nil, fmt.Errorf("%s does not exist; find paths with glob or ls", rel)
	}
	if statErr == nil && !st.IsDir() || statErr != nil && buffers[abs] != nil {
		// One file: searched whatever the filters and ignore rules say, as rg does.
		f := textsearch.File{Abs: abs, Rel: rel, Explicit: true}
		if statErr == nil {
			f.Size = st.Size()
		}
		if b := buffers[abs]; b != nil {
			f.Text = []byte(b.text)
		} else if lst, err := os.Lstat(abs); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			// A symlink named as the path, leading to a file inside the
			// folder (Resolve checked): search its target, as read_file
			// reads it; the output names the path as given.
			if real, err := filepath.EvalSymlinks(abs); err == nil && ws.Contains(real) {
				if data, _, err := ws.ReadRaw(real); err == nil {
					f.Text = append([]byte{}, data...)
				}
			}
		}
		return func(ctx context.Context, fn func(textsearch.File)) error {
			fn(f)
			return nil
		}, nil
	}
	if statErr != nil {
		if errors.Is(statErr, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist; find paths with glob or ls", rel)
		}
		return nil, statErr
	}
	opts := workspace.WalkOptions{
		Hidden:         a.Hidden,
		IncludeIgnored: a.IncludeIgnored,
		Parallel:       textsearch.Workers(),
		NoStat:         true,
		Skipped:        *skipped,
	}
	overlay := func(abs string) ([]byte, bool) {
		if b := buffers[abs]; b != nil {
			b.seen.Store(true)
			return []byte(b.text), true
		}
		return nil, false
	}
	var files textsearch.Source
	// The table lists what a walk of the whole folder visits; a search
	// inside a hidden or ignored directory walks that directory itself.
	inTable := rel == "." || !hiddenPath(rel) && (a.IncludeIgnored || !ws.Ignored(abs, true))
	if table, tableSkipped := textsearch.SessionTable(s, opts); table != nil && inTable {
		files = table.Source(rel, filter, overlay)
		*skipped = tableSkipped
	} else {
		files = func(ctx context.Context, fn func(textsearch.File)) error {
			return ws.Walk(ctx, abs, opts, func(e workspace.WalkEntry) error {
				if e.IsDir {
					if filter.SkipDir(e.Rel) {
						return fs.SkipDir
					}
					return nil
				}
				if !e.Mode.IsRegular() || !filter.Match(e.Rel) {
					return nil
				}
				f := textsearch.File{Abs: e.Abs, Rel: e.Rel, Size: e.Size}
				if text, ok := overlay(e.Abs); ok {
					f.Text = text
				}
				fn(f)
				return nil
			})
		}
	}
	return func(ctx context.Context, fn func(textsearch.File)) error {
		if err := files(ctx, fn); err != nil {
			return err
		}
		// Buffers of files not on disk yet, searched when the walk would
		// have visited them.
		for babs, b := range buffers {
			if b.seen.Load() {
				continue
			}
			if _, err := os.Lstat(babs); err == nil {
				continue // on disk and passed over by the walk
			}
			brel := ws.Rel(babs)
			if !a.Hidden && hiddenPath(strings.TrimPrefix(brel, rel+"/")) ||
				!a.IncludeIgnored && ws.Ignored(babs, false) || !filter.Match(brel) {
				continue
			}
			fn(textsearch.File{Abs: babs, Rel: brel, Text: []byte(b.text)})
		}
		return nil
	}, nil
}

type grepBuffer struct {
	text string
	seen atomic.Bool
}

// hiddenPath reports whether any element of the '/'-separated rel starts with a dot.
func hiddenPath(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return true
		}
	}
	return false
}
