package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const lsDescription = "List a directory as a tree, to depth levels (default 2). Directories end in /; deeper ones show their entry count. Skips gitignored files unless include_ignored."

const lsSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "directory, relative to the workspace root (default: the root)"},
		"depth": {"type": "integer", "minimum": 1, "description": "levels to show (default 2)"},
		"include_ignored": {"type": "boolean", "description": "also list gitignored entries"}
	},
	"additionalProperties": false
}`

// Limits of one listing.
const (
	defaultLsDepth = 2
	maxLsPerDir    = 100   // entries shown per directory
	maxLsLines     = 1000  // lines in the whole listing
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
	children []*lsNode
	count    int // entries below a directory at the depth limit
}

func (ls) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Path           string `json:"path"`
		Depth          *int   `json:"depth"`
		IncludeIgnored bool   `json:"include_ignored"`
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
	if err != nil {
		return "", fmt.Errorf("%s does not exist; list its parent to see what is there", rel)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is a file, not a directory; read it with read_file", rel)
	}

	root := &lsNode{name: rel, dir: true}
	dirs := map[string]*lsNode{abs: root}
	visits := 0
	stopped := false
	opts := workspace.WalkOptions{Hidden: true, IncludeIgnored: a.IncludeIgnored, NoStat: true}
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
		n := &lsNode{name: e.Name(), dir: e.IsDir}
		if e.Mode&fs.ModeSymlink != 0 {
			n.link, _ = s.WS.Readlink(e.Abs) // beneath the root: a swapped parent cannot lead out
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

	var b strings.Builder
	lines := 0
	var render func(n *lsNode, indent string, level int) bool
	render = func(n *lsNode, indent string, level int) bool {
		if lines >= maxLsLines {
			return false
		}
		lines++
		b.WriteString(indent)
		b.WriteString(n.name)
		switch {
		case n.dir && len(n.children) == 0 && n.count == 0:
			b.WriteString("/ (empty)")
		case n.dir && level == depth:
			fmt.Fprintf(&b, "/ (%s)", plural(n.count, "entry"))
		case n.dir:
			b.WriteString("/")
		case n.link != "":
			b.WriteString(" -> " + n.link)
		}
		b.WriteByte('\n')
		for i, c := range n.children {
			if i == maxLsPerDir {
				if lines < maxLsLines {
					lines++
					fmt.Fprintf(&b, "%s  … %d more entries in %s/\n", indent, len(n.children)-i, n.name)
				}
				break
			}
			if !render(c, indent+"  ", level+1) {
				return false
			}
		}
		return true
	}
	complete := render(root, "", 0)
	out := strings.TrimSuffix(b.String(), "\n")
	if !complete {
		out += fmt.Sprintf("\n(listing cut at %d lines: list a subdirectory, or pass a smaller depth)", maxLsLines)
	}
	if stopped {
		out += fmt.Sprintf("\n(stopped after %d entries: list a subdirectory, or pass a smaller depth)", maxLsVisits)
	}
	return out, nil
}
