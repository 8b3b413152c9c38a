package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const readFileDescription = "Read a text file (the editor's unsaved buffer when it is open). Returns numbered lines `N→text`; offset (the 1-based line to start at) and limit read a window of a long file. Read a file before editing it."

const readFileSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "file path, relative to the workspace root"},
		"offset": {"type": "integer", "minimum": 0, "description": "line number to start at, 1-based as printed (default 1)"},
		"limit": {"type": "integer", "minimum": 1, "description": "number of lines (default 2000)"}
	},
	"required": ["path"],
	"additionalProperties": false
}`

// Limits of one read_file result.
const (
	defaultReadLines = 2000
	maxLineChars     = 2000
	// maxReadBytes keeps a result under the registry's cut, so that the
	// continuation trailer, not a truncation note, says where to go on.
	maxReadBytes = registry.MaxResultBytes - 1024
)

type readFile struct{}

func init() { registry.RegisterBuiltin(readFile{}) }

func (readFile) Name() string            { return "read_file" }
func (readFile) Description() string     { return readFileDescription }
func (readFile) Schema() json.RawMessage { return json.RawMessage(readFileSchema) }
func (readFile) ReadOnly() bool          { return true }

func (readFile) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Path   string `json:"path"`
		Offset *int   `json:"offset"`
		Limit  *int   `json:"limit"`
	}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	abs, rel, err := s.WS.Resolve(a.Path)
	if err != nil {
		return "", err
	}
	// offset is the 1-based line number read_file, grep and code_index
	// print; 0 is taken as 1.
	offset, limit := 0, defaultReadLines
	if a.Offset != nil {
		offset = max(1, *a.Offset) - 1
	}
	if a.Limit != nil && *a.Limit > 0 {
		limit = *a.Limit
	}
	f, err := s.WS.ReadFile(abs)
	if errors.Is(err, workspace.ErrTooLarge) && (a.Offset != nil || a.Limit != nil) {
		// A window of a file of any size, streamed: only the window is
		// held, never the file.
		win, err := s.WS.ReadLines(abs, offset, limit, maxLineChars, maxReadBytes)
		if err != nil {
			return "", err
		}
		return numberWindow(rel, win.Lines, offset, win.Total)
	}
	if err != nil {
		if errors.Is(err, workspace.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist; find files with glob or ls", rel)
		}
		return "", err
	}
	if s.Reads != nil {
		s.Reads.MarkRead(f)
	}
	out, err := numberLines(rel, f.Text, offset, limit)
	if err != nil {
		return "", err
	}
	if b, ok := s.WS.Buffer(abs); ok && b.Dirty {
		out += "\n(this is the editor's buffer, with changes not yet saved to disk)"
	}
	return out, nil
}

// numberLines renders the 0-based lines [offset, offset+limit) of text as
// read_file shows them (see numberWindow).
func numberLines(rel, text string, offset, limit int) (string, error) {
	if text == "" {
		return fmt.Sprintf("(%s is empty)", rel), nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var win []workspace.Line
	for _, line := range lines[min(offset, len(lines)):min(len(lines), offset+limit)] {
		n := utf8.RuneCountInString(line)
		if n > maxLineChars {
			line = firstRunes(line, maxLineChars)
		}
		win = append(win, workspace.Line{Text: line, Chars: n})
	}
	return numberWindow(rel, win, offset, len(lines))
}

// numberWindow renders win, the lines from 0-based line offset on of a file
// of total lines (-1: not known, more follow), as read_file shows them: the
// line number right-aligned, "→", the line. Lines longer than maxLineChars
// come cut, and get a marker; the output stops short of maxReadBytes, and a
// trailer says how to read on.
func numberWindow(rel string, win []workspace.Line, offset, total int) (string, error) {
	if total == 0 {
		return fmt.Sprintf("(%s is empty)", rel), nil
	}
	if total >= 0 && offset >= total {
		return "", fmt.Errorf("offset %d is past the end of %s, which has %s", offset+1, rel, plural(total, "line"))
	}
	end := offset + len(win)
	width := len(strconv.Itoa(end))
	var b strings.Builder
	cut := 0
	i := offset
	for ; i < end; i++ {
		line, long := win[i-offset].Text, false
		if n := win[i-offset].Chars; n > maxLineChars {
			line = firstRunes(line, maxLineChars) + fmt.Sprintf("… [line cut: %d characters in all]", n)
			long = true
		}
		if i > offset && b.Len()+len(line)+width+8 > maxReadBytes {
			break
		}
		if long {
			cut++
		}
		b.WriteString(strings.Repeat(" ", width-len(strconv.Itoa(i+1))))
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString("→")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	out := strings.TrimSuffix(b.String(), "\n")
	switch {
	case total < 0:
		out += fmt.Sprintf("\n(lines %d-%d of a file too large to count; call read_file with offset %d to read on)", offset+1, i, i+1)
	case i < total:
		out += fmt.Sprintf("\n(lines %d-%d of %d; call read_file with offset %d to read on)", offset+1, i, total, i+1)
	}
	if cut > 0 {
		out += fmt.Sprintf("\n(%s cut at %d characters)", plural(cut, "long line"), maxLineChars)
	}
	return out, nil
}

// firstRunes is the first n characters of s.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
