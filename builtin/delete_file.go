package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const deleteFileDescription = "Delete a file, or a directory and everything in it with recursive: true. Never the workspace root or .git."

const deleteFileSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "path to delete, relative to the workspace root"},
		"recursive": {"type": "boolean", "description": "required to delete a directory (default false)"}
	},
	"required": ["path"],
	"additionalProperties": false
}`

type deleteFile struct{}

func init() { registry.RegisterBuiltin(deleteFile{}) }

func (deleteFile) Name() string            { return "delete_file" }
func (deleteFile) Description() string     { return deleteFileDescription }
func (deleteFile) Schema() json.RawMessage { return json.RawMessage(deleteFileSchema) }
func (deleteFile) ReadOnly() bool          { return false }
func (deleteFile) Annotations() registry.Annotations {
	return registry.Annotations{Destructive: true, Idempotent: true}
}

func (deleteFile) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Path      string `json:"path"`
		Recursive bool   `json:"recursive"`
	}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	abs, rel, err := s.WS.ResolveWrite(a.Path)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", errors.New("refusing to delete the workspace root")
	}
	defer s.WS.LockPath(abs)()
	st, err := os.Lstat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist; find files with glob or ls", rel)
		}
		return "", err
	}
	if !st.IsDir() {
		var before string
		if f, err := s.WS.ReadFile(abs); err == nil {
			before = f.Text
		}
		note, err := s.Editor.Delete(ctx, abs, false)
		if err != nil {
			return "", fmt.Errorf("delete %s: %w", rel, err)
		}
		if s.Reads != nil {
			s.Reads.Forget(abs)
		}
		return report(fmt.Sprintf("Deleted %s.", rel), shortDiff(rel, before, "", maxDeletedDiffLines), note), nil
	}

	if !a.Recursive {
		n := "some entries"
		if ents, err := os.ReadDir(abs); err == nil {
			n = plural(len(ents), "entry")
		}
		return "", fmt.Errorf("%s is a directory with %s; pass recursive: true to delete it and everything in it", rel, n)
	}
	// Count what goes, and refuse to take a git repository (a submodule or a
	// nested clone) with it: its history may exist nowhere else.
	var files []string
	checkGit := func(dir string) error {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return fmt.Errorf("%s contains a git repository (%s/.git); refusing to delete it", rel, s.WS.Rel(dir))
		}
		return nil
	}
	err = checkGit(abs)
	if err == nil {
		err = s.WS.Walk(ctx, abs, workspace.WalkOptions{Hidden: true, IncludeIgnored: true, DiskOnly: true}, func(e workspace.WalkEntry) error {
			if e.IsDir {
				return checkGit(e.Abs)
			}
			files = append(files, e.Abs)
			return nil
		})
	}
	if err != nil {
		return "", err
	}
	note, err := s.Editor.Delete(ctx, abs, true)
	if err != nil {
		return "", fmt.Errorf("delete %s: %w", rel, err)
	}
	if s.Reads != nil {
		for _, f := range files {
			s.Reads.Forget(f)
		}
	}
	return report(fmt.Sprintf("Deleted directory %s/ and the %s in it.", rel, plural(len(files), "file")), "", note), nil
}
