package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const lsDescription = "List a directory as a tree, to depth levels (default 2), at most limit lines (default 1000). Directories end in /; deeper ones show their entry count. Skips gitignored files unless include_ignored."

const lsSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "directory, relative to the workspace root (default: the root)"},
		"depth": {"type": "integer", "minimum": 1, "description": "levels to show (default 2)"},
		"include_ignored": {"type": "boolean", "description": "also list gitignored entries"},
		"limit": {"type": "integer", "minimum": 1, "description": "lines shown (default 1000)"},
		"offset": {"type": "integer", "minimum": 0, "description": "lines to skip, as a cut result says"}
	},
	"additionalProperties": false
}`

// Limits of one listing.
const (
	defaultLsDepth = 2
	maxLsPerDir    = 100   // entries shown per subdirectory
	defaultLsLines = 1000  // lines shown by default
	maxLsVisits    = 50000 // entries walked before giving up
)

type ls struct{}

func init() { registry.RegisterBuiltin(ls{}) }

func (ls) Name() string            { return "ls" }
func (ls) Description() string     { return lsDescription }
func (ls) Schema() json.RawMessage { return json.RawMessage(lsSchema) }
func (ls) ReadOnly() bool          { return true }

// lsNode is one entry of the tree.
type lsNode struct {
	name     string
	dir      bool
	link     string // symlink target
	hidden   bool   // a symlink to a denied file: its target is not shown
	unsaved  bool   // an open buffer with no file on disk
	children []*lsNode
	count    int // entries below a directory at the depth limit
}

func (ls) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Path           string `json:"path"`
		Depth          *int   `json:"depth"`
		IncludeIgnored bool   `json:"include_ignored"`
		Limit          int    `json:"limit"`
		Offset         int    `json:"offset"`
	}
	if err := unmarshalArgs(args, &a); err != nil {
		return "", err
	}
	depth := defaultLsDepth
	if a.Depth != nil {
		depth = max(1, *a.Depth)
	}
	s, err := workspace.From(ctx)
	if err != nil {
		return "", err
	}
	abs, rel, err := s.WS.Resolve(a.Path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil && s.WS.HasBuffersUnder(abs):
		// A directory that only open buffers make: listed like one on disk.
	case err != nil:
		return "", fmt.Errorf("%s does not exist; list its parent to see what is there", rel)
	case !st.IsDir():
		return "", fmt.Errorf("%s is a file, not a directory; read it with read_file", rel)
	}

	root := &lsNode{name: rel, dir: true}
	dirs := map[string]*lsNode{abs: root}
	visits := 0
	stopped := false
	// With a stat per entry the walk also passes over hard links to denied
	// files (a name the deny list does not cover, which reads as missing).
	opts := workspace.WalkOptions{Hidden: true, IncludeIgnored: a.IncludeIgnored}
	err = s.WS.Walk(ctx, abs, opts, func(e workspace.WalkEntry) error {
		visits++
		if visits > maxLsVisits {
			stopped = true
			return fs.SkipAll
		}
		parent := dirs[filepath.Dir(e.Abs)]
		if parent == nil {
			return nil // under a directory beyond the depth (cannot happen: skipped)
		}
		d := 1 + strings.Count(strings.TrimPrefix(e.Abs[len(abs):], string(filepath.Separator)), string(filepath.Separator))
		if d > depth {
			parent.count++
			if e.IsDir {
				return fs.SkipDir
			}
			return nil
		}
		n := &lsNode{name: e.Name(), dir: e.IsDir, unsaved: e.Buffer && !e.IsDir}
		if e.Mode&fs.ModeSymlink != 0 {
			n.link, _ = s.WS.Readlink(e.Abs) // beneath the root: a swapped parent cannot lead out
			if _, _, err := s.WS.Resolve(e.Abs); errors.Is(err, fs.ErrNotExist) {
				// It leads to a file on the deny list: its name is not shown.
				n.link, n.hidden = "", true
			}
		}
		parent.children = append(parent.children, n)
		if e.IsDir {
			dirs[e.Abs] = n
		}
		return nil
	})
	if err != nil {
		return "", err
	}

	// The listed directory shows all its entries, a page at a time; a
	// subdirectory shows maxLsPerDir and says how many more it has.
	var lines []string
	var render func(n *lsNode, indent string, level int)
	render = func(n *lsNode, indent string, level int) {
		var b strings.Builder
		b.WriteString(indent)
		b.WriteString(n.name)
		switch {
		case n.dir && len(n.children) == 0 && n.count == 0:
			b.WriteString("/ (empty)")
		case n.dir && level == depth:
			fmt.Fprintf(&b, "/ (%s)", plural(n.count, "entry"))
		case n.dir:
			b.WriteString("/")
		case n.hidden:
			b.WriteString(" (symlink)")
		case n.link != "":
			b.WriteString(" -> " + n.link)
		case n.unsaved:
			b.WriteString(" (unsaved buffer, not on disk)")
		}
		lines = append(lines, b.String())
		for i, c := range n.children {
			if i == maxLsPerDir && level > 0 {
				lines = append(lines, fmt.Sprintf("%s  … %d more entries in %s/ (ls it to see them)", indent, len(n.children)-i, n.name))
				break
			}
			render(c, indent+"  ", level+1)
		}
	}
	render(root, "", 0)
	limit := defaultLsLines
	if a.Limit > 0 {
		limit = a.Limit
	}
	out := pageLines(lines, a.Offset, limit, "lines", func(l string) string { return l })
	if stopped {
		out += fmt.Sprintf("\n(stopped after %d entries: list a subdirectory, or pass a smaller depth)", maxLsVisits)
	}
	return out, nil
}
