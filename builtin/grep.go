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
	src, skipped, err := grepSource(s, abs, rel, filter, a)
	if err != nil {
		return "", err
	}
	out, err := textsearch.Search(ctx, q, src)
	if sk := skipped(); err == nil && out == noMatches && sk != nil {
		out += notSearched(sk, rel, a)
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
// arguments select, as the workspace's merged walk gives them: an open
// buffer stands for its disk file, and buffers with no file on disk are
// listed where the walk would have found them.
func grepSource(s *workspace.Session, abs, rel string, filter *textsearch.Filter, a grepArgs) (_ textsearch.Source, skipped func() *workspace.Skipped, _ error) {
	ws := s.WS
	buf, isBuf := bufferOf(ws, abs)
	st, statErr := os.Stat(abs)
	if statErr == nil && !st.IsDir() && !st.Mode().IsRegular() && !isBuf {
		// A FIFO named on purpose gets an answer; one met by a walk is passed over.
		return nil, nil, workspace.NotRegularError{Path: rel, Mode: st.Mode()}
	}
	if statErr == nil && st.Mode().IsRegular() && ws.IsDeniedLink(abs) {
		// A hard link to a denied file: missing, as read_file says.
		return nil, nil, fmt.Errorf("%s does not exist; find paths with glob or ls", rel)
	}
	if statErr == nil && !st.IsDir() || statErr != nil && isBuf {
		// One file: searched whatever the filters and ignore rules say, as rg does.
		f := textsearch.File{Abs: abs, Rel: rel, Explicit: true}
		if statErr == nil {
			f.Size = st.Size()
		}
		if isBuf {
			f.Text = []byte(buf.Text)
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
		}, noSkipped, nil
	}
	if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
		return nil, nil, statErr
	}
	opts := workspace.WalkOptions{
		Hidden:         a.Hidden,
		IncludeIgnored: a.IncludeIgnored,
		Parallel:       textsearch.Workers(),
		NoStat:         true,
		Skipped:        &workspace.Skipped{},
	}
	// The table lists what a walk of the whole folder visits; a search
	// inside a hidden or ignored directory walks that directory itself.
	inTable := rel == "." || statErr == nil && !hiddenPath(rel) && (a.IncludeIgnored || !ws.Ignored(abs, true))
	if table := textsearch.SessionTable(s, opts); table != nil && inTable {
		return table.Source(rel, filter, bufferText(ws)), table.Skipped, nil
	}
	if statErr != nil && !ws.HasBuffersUnder(abs) {
		return nil, nil, fmt.Errorf("%s does not exist; find paths with glob or ls", rel)
	}
	walked := func() *workspace.Skipped { return opts.Skipped }
	return func(ctx context.Context, fn func(textsearch.File)) error {
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
			if b, ok := bufferOf(ws, e.Abs); ok {
				f.Text = []byte(b.Text)
			} else if e.Buffer {
				return nil // closed since the walk saw it
			}
			fn(f)
			return nil
		})
	}, walked, nil
}

func noSkipped() *workspace.Skipped { return nil }

// bufferText gives the text of the open buffer of abs, which a search reads
// instead of the file.
func bufferText(ws *workspace.Workspace) textsearch.Overlay {
	return func(abs string) ([]byte, bool) {
		if b, ok := bufferOf(ws, abs); ok {
			return []byte(b.Text), true
		}
		return nil, false
	}
}

// bufferOf is the open buffer of abs, unless its file is a hard link to a
// denied file (whose disk copy the search's readers refuse too).
func bufferOf(ws *workspace.Workspace, abs string) (workspace.Buffer, bool) {
	b, ok := ws.Buffer(abs)
	if !ok || ws.IsDeniedLink(abs) {
		return workspace.Buffer{}, false
	}
	return b, true
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
