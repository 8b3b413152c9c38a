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

const moveFileDescription = "Rename or move a file or directory. Creates the destination's parent directories; refuses an existing destination unless overwrite."

const moveFileSchema = `{
	"type": "object",
	"properties": {
		"source": {"type": "string", "description": "path to move, relative to the workspace root"},
		"destination": {"type": "string", "description": "new path, including the file name"},
		"overwrite": {"type": "boolean", "description": "replace an existing destination file (default false)"}
	},
	"required": ["source", "destination"],
	"additionalProperties": false
}`

type moveFile struct{}

func init() { registry.RegisterBuiltin(moveFile{}) }

func (moveFile) Name() string            { return "move_file" }
func (moveFile) Description() string     { return moveFileDescription }
func (moveFile) Schema() json.RawMessage { return json.RawMessage(moveFileSchema) }
func (moveFile) ReadOnly() bool          { return false }
func (moveFile) Annotations() registry.Annotations {
	return registry.Annotations{Destructive: true}
}

func (moveFile) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Source      string `json:"source"`
		Destination string `json:"destination"`
		Overwrite   bool   `json:"overwrite"`
	}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	src, srcRel, err := s.WS.ResolveWrite(a.Source)
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(a.Destination, "/") {
		// "dir/": into that directory, keeping the name, as mv does.
		a.Destination += filepath.Base(src)
	}
	dst, dstRel, err := s.WS.ResolveWrite(a.Destination)
	if err != nil {
		return "", err
	}
	if srcRel == "." || dstRel == "." {
		return "", errors.New("the workspace root cannot be moved or replaced")
	}
	if src == dst {
		return "", fmt.Errorf("source and destination are both %s", srcRel)
	}
	// Lock both paths, in a fixed order so two moves cannot deadlock.
	first, second := src, dst
	if second < first {
		first, second = second, first
	}
	defer s.WS.LockPath(first)()
	defer s.WS.LockPath(second)()

	st, err := os.Lstat(src)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist; find files with glob or ls", srcRel)
		}
		return "", err
	}
	if st.IsDir() && strings.HasPrefix(dstRel, srcRel+"/") {
		return "", fmt.Errorf("cannot move %s into itself (%s)", srcRel, dstRel)
	}
	if err := s.WS.CheckMove(ctx, src, dst); err != nil {
		return "", err
	}
	replacing := false
	if dt, err := os.Lstat(dst); err == nil && !os.SameFile(st, dt) { // the same file: a change of case
		replacing = true
		switch {
		case dt.IsDir():
			return "", fmt.Errorf("%s is an existing directory: give the full new path (such as %s/%s), or delete the directory first", dstRel, dstRel, st.Name())
		case !a.Overwrite:
			return "", fmt.Errorf("%s already exists; pass overwrite: true to replace it", dstRel)
		case st.IsDir():
			return "", fmt.Errorf("%s is a file; a directory cannot replace it", dstRel)
		}
	}

	// A file the agent had read (and that has not changed since) stays read
	// under its new name.
	var read *workspace.File
	if s.Reads != nil && !st.IsDir() {
		if f, err := s.WS.ReadFile(src); err == nil && s.Reads.CheckFresh(f) == nil {
			read = f
		}
	}
	note, err := s.Editor.Rename(ctx, src, dst, a.Overwrite)
	if err != nil {
		return "", fmt.Errorf("move %s to %s: %w", srcRel, dstRel, err)
	}
	if s.Reads != nil {
		s.Reads.Forget(src)
		s.Reads.Forget(dst)
		if read != nil {
			if f, err := s.WS.ReadFile(dst); err == nil && f.Hash == read.Hash {
				s.Reads.MarkRead(f)
			}
		}
	}
	what := "Moved"
	if st.IsDir() {
		what = "Moved directory"
		srcRel, dstRel = srcRel+"/", dstRel+"/"
	}
	summary := fmt.Sprintf("%s %s → %s.", what, srcRel, dstRel)
	if replacing {
		summary = fmt.Sprintf("%s %s → %s, replacing the file that was there.", what, srcRel, dstRel)
	}
	return report(summary, "", note), nil
}
