package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const writeFileDescription = "Create a file, or replace all of an existing one (read it first). Creates parent directories. Returns a diff. Prefer edit_file to change part of a file."

const writeFileSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "file path, relative to the workspace root"},
		"content": {"type": "string", "description": "the whole new content"}
	},
	"required": ["path", "content"],
	"additionalProperties": false
}`

type writeFile struct{}

func init() { registry.RegisterBuiltin(writeFile{}) }

func (writeFile) Name() string            { return "write_file" }
func (writeFile) Description() string     { return writeFileDescription }
func (writeFile) Schema() json.RawMessage { return json.RawMessage(writeFileSchema) }
func (writeFile) ReadOnly() bool          { return false }
func (writeFile) Annotations() registry.Annotations {
	return registry.Annotations{Idempotent: true}
}

func (writeFile) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(a.Path, "/") {
		return "", fmt.Errorf("path %q ends in /: give the file's name", a.Path)
	}
	abs, rel, err := s.WS.ResolveWrite(a.Path)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", errors.New("path names the workspace root, a directory: give a file path")
	}
	text := toLF(a.Content)

	unlock := s.WS.LockPath(abs)
	defer unlock()
	prev, err := s.WS.ReadFile(abs)
	switch {
	case errors.Is(err, workspace.ErrTooLarge):
		return "", fmt.Errorf("%s is over the %d MiB limit of files the tools read and edit, so it cannot be read first; delete it with delete_file if you mean to replace it", rel, workspace.MaxTextFile>>20)
	case errors.Is(err, workspace.ErrNotExist):
		req := workspace.WriteRequest{Abs: abs, Text: text, Mode: 0o644, Create: true, Version: -1}
		req.Format.CRLF = strings.Contains(a.Content, "\r\n")
		res, err := writeText(ctx, s, req)
		if err != nil {
			return "", err
		}
		summary := fmt.Sprintf("Created %s (%s).", rel, plural(countLines(text), "line"))
		return report(summary, shortDiff(rel, "", text, maxDiffLines), res.Note), nil
	case errors.Is(err, workspace.ErrBinary):
		return "", fmt.Errorf("%s is a binary file; write_file replaces text files only (delete it with delete_file first if you mean to replace it)", rel)
	case err != nil:
		return "", err
	}
	if s.Reads != nil {
		if err := s.Reads.CheckFresh(prev); err != nil {
			return "", err
		}
	}
	if prev.Text == text {
		return fmt.Sprintf("%s already has this content; nothing was written.", rel), nil
	}
	res, err := writeText(ctx, s, editRequest(prev, text))
	if err != nil {
		return "", err
	}
	summary := fmt.Sprintf("Replaced %s (%s, was %d).", rel, plural(countLines(text), "line"), countLines(prev.Text))
	return report(summary, shortDiff(rel, prev.Text, text, maxDiffLines), res.Note), nil
}
