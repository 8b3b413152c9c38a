package builtin

// What the file tools share: decoding arguments, the read-check-write cycle
// of the editing tools, and the shape of their reports.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/workspace"
)

// unmarshalArgs decodes a tool's arguments. The registry has validated them
// against the schema, so an error here is unusual; it still reads well.
func unmarshalArgs(args json.RawMessage, dst any) error {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, dst); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

// sessionArgs decodes a call's arguments into dst and returns the session
// the call runs in: the start of every tool.
func sessionArgs(ctx context.Context, args json.RawMessage, dst any) (*workspace.Session, error) {
	if err := unmarshalArgs(args, dst); err != nil {
		return nil, err
	}
	return workspace.From(ctx)
}

// changeFile is the cycle every tool that edits an existing file goes
// through: under the file's write lock it reads the merged view (buffer
// first), refuses a file this session has not read or that changed since,
// lets change compute the new text, writes it through the session's editor
// and records what it wrote as read. A change that returns the text as it
// was writes nothing and returns a zero WriteResult.
func changeFile(ctx context.Context, s *workspace.Session, abs string, change func(f *workspace.File) (string, error)) (before *workspace.File, after string, res workspace.WriteResult, err error) {
	unlock := s.WS.LockPath(abs)
	defer unlock()
	f, err := s.WS.ReadFile(abs)
	if err != nil {
		if errors.Is(err, workspace.ErrNotExist) {
			return nil, "", res, fmt.Errorf("%s does not exist; create it with write_file", s.WS.Rel(abs))
		}
		if errors.Is(err, workspace.ErrTooLarge) {
			return nil, "", res, fmt.Errorf("%s is over %d MiB, too large to edit here", s.WS.Rel(abs), workspace.MaxTextFile>>20)
		}
		return nil, "", res, err
	}
	if s.Reads != nil {
		if err := s.Reads.CheckFresh(f); err != nil {
			return nil, "", res, err
		}
	}
	after, err = change(f)
	if err != nil {
		return nil, "", res, err
	}
	if len(after) > workspace.MaxTextFile {
		return nil, "", res, tooLargeResult(s.WS.Rel(abs), len(after))
	}
	if after == f.Text {
		return f, after, res, nil
	}
	res, err = writeText(ctx, s, editRequest(f, after))
	return f, after, res, err
}

// editRequest is the write of text over prev, keeping prev's encoding, line
// endings and mode, and the buffer version it was computed against.
func editRequest(prev *workspace.File, text string) workspace.WriteRequest {
	req := workspace.WriteRequest{Abs: prev.Abs, Text: text, Format: prev.Format, Mode: prev.Mode, Version: -1}
	if prev.FromBuffer {
		req.Version = prev.Version
	}
	return req
}

// writeText writes through the session's editor. The caller holds the
// file's write lock. Afterwards the new state counts as read, so the agent
// can go on editing what it wrote.
func writeText(ctx context.Context, s *workspace.Session, req workspace.WriteRequest) (workspace.WriteResult, error) {
	res, err := s.Editor.Write(ctx, req)
	if err != nil {
		return res, fmt.Errorf("write %s: %w", s.WS.Rel(req.Abs), err)
	}
	if s.Reads != nil {
		// Mark only what we wrote: if someone changed the file in between,
		// the next edit must be told so.
		if f, err := s.WS.ReadFile(req.Abs); err == nil && f.Text == req.Text {
			s.Reads.MarkRead(f)
		}
	}
	return res, nil
}

// report puts together what a write tool returns: a one-line summary, the
// diff, and the editor's note (such as a change left unsaved in a buffer).
func report(summary, diff, note string) string {
	var b strings.Builder
	b.WriteString(summary)
	if diff != "" {
		b.WriteByte('\n')
		b.WriteString(strings.TrimSuffix(diff, "\n"))
	}
	if note != "" {
		b.WriteString("\nNote: ")
		b.WriteString(note)
	}
	return b.String()
}

// countLines is the number of lines of a "\n"-separated text.
func countLines(text string) int {
	if text == "" {
		return 0
	}
	n := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// plural is "1 line", "2 lines", "3 entries".
func plural(n int, word string) string {
	switch {
	case n == 1:
		return fmt.Sprintf("%d %s", n, word)
	case strings.HasSuffix(word, "y"):
		return fmt.Sprintf("%d %sies", n, word[:len(word)-1])
	}
	return fmt.Sprintf("%d %ss", n, word)
}
