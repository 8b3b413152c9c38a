package builtin

// What the tools backed by the editor's own language servers share (the
// diagnostics, code_nav, rename_symbol, code_action and editor_state tools):
// finding the session's workspace.Languages, turning a line and a symbol
// into a position, and printing locations and applied edits.

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentls/agentls/workspace"
)

// languages is the session's access to the editor's language servers.
func languages(s *workspace.Session) (workspace.Languages, error) {
	if l, ok := s.Editor.(workspace.Languages); ok {
		return l, nil
	}
	return nil, errors.New("this session has no editor with language servers; use code_index")
}

// lineText is line n (1-based) of the merged view of abs, without its
// terminator; ok is false when the file cannot be read or is shorter.
func lineText(ws *workspace.Workspace, abs string, n int) (string, bool) {
	f, err := ws.ReadFile(abs)
	if err != nil {
		return "", false
	}
	return nthLine(f.Text, n)
}

func nthLine(text string, n int) (string, bool) {
	for i := 1; i < n; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return "", false
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return text, true
}

// positionArgs are the arguments that name a place: a file, a 1-based line,
// and a column or a symbol on that line.
type positionArgs struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Symbol string `json:"symbol"`
}

// resolve gives the absolute path and the position the arguments name. A
// symbol is found on the line as a whole word (the first occurrence); the
// position is its first character.
func (a positionArgs) resolve(s *workspace.Session) (string, workspace.Pos, error) {
	abs, rel, err := s.WS.Resolve(a.Path)
	if err != nil {
		return "", workspace.Pos{}, err
	}
	f, err := s.WS.ReadFile(abs)
	if err != nil {
		if errors.Is(err, workspace.ErrNotExist) {
			return "", workspace.Pos{}, fmt.Errorf("%s does not exist", rel)
		}
		return "", workspace.Pos{}, err
	}
	text, ok := nthLine(f.Text, a.Line)
	if !ok {
		return "", workspace.Pos{}, fmt.Errorf("%s has %d lines; line %d is past its end", rel, countLines(f.Text), a.Line)
	}
	switch {
	case a.Symbol != "":
		col, ok := wordColumn(text, a.Symbol)
		if !ok {
			return "", workspace.Pos{}, fmt.Errorf("%q is not on line %d of %s: %s", a.Symbol, a.Line, rel, strings.TrimSpace(text))
		}
		return abs, workspace.Pos{Line: a.Line, Col: col}, nil
	case a.Column > 0:
		if n := utf8.RuneCountInString(text); a.Column > n+1 {
			return "", workspace.Pos{}, fmt.Errorf("line %d of %s has %d characters; column %d is past its end", a.Line, rel, n, a.Column)
		}
		return abs, workspace.Pos{Line: a.Line, Col: a.Column}, nil
	}
	return "", workspace.Pos{}, fmt.Errorf("give the symbol (a name on line %d) or its column", a.Line)
}

// wordColumn is the 1-based character column of the first whole-word
// occurrence of word in line (any occurrence when none is whole).
func wordColumn(line, word string) (int, bool) {
	first := -1
	for off := 0; ; {
		i := strings.Index(line[off:], word)
		if i < 0 {
			break
		}
		i += off
		if first < 0 {
			first = i
		}
		before, _ := utf8.DecodeLastRuneInString(line[:i])
		after, _ := utf8.DecodeRuneInString(line[i+len(word):])
		if !isWordRune(before) && !isWordRune(after) {
			return utf8.RuneCountInString(line[:i]) + 1, true
		}
		off = i + len(word)
	}
	if first < 0 {
		return 0, false
	}
	return utf8.RuneCountInString(line[:first]) + 1, true
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// showPath is how a location's file is printed: relative inside the
// folder, absolute outside it (a definition in a library).
func showPath(ws *workspace.Workspace, abs string) string {
	if ws.Contains(abs) {
		return ws.Rel(abs)
	}
	return abs
}

// writeLocations prints "path:line: text" lines (text only for files inside
// the folder), at most limit of them.
func writeLocations(b *strings.Builder, ws *workspace.Workspace, locs []workspace.Location, limit int) {
	texts := map[string]string{}
	for i, l := range locs {
		if i == limit {
			fmt.Fprintf(b, "[%d of %d shown; raise limit for more]\n", limit, len(locs))
			return
		}
		line := ""
		if ws.Contains(l.Abs) {
			text, ok := texts[l.Abs]
			if !ok {
				if f, err := ws.ReadFile(l.Abs); err == nil {
					text = f.Text
				}
				texts[l.Abs] = text
			}
			line, _ = nthLine(text, l.Start.Line)
			line = strings.TrimSpace(line)
		}
		fmt.Fprintf(b, "%s:%d: %s\n", showPath(ws, l.Abs), l.Start.Line, line)
	}
}

// appliedReport is what rename_symbol and code_action return: a summary of
// the files changed, a short diff of each, and the editor's note.
func appliedReport(ws *workspace.Workspace, what string, a workspace.Applied) string {
	var b strings.Builder
	edits := 0
	for _, f := range a.Files {
		edits += f.Edits
	}
	fmt.Fprintf(&b, "%s: %s in %s", what, plural(edits, "edit"), plural(len(a.Files), "file"))
	for _, f := range a.Files {
		where := "on disk"
		switch {
		case f.InBuffer && f.Saved:
			where = "in the editor, saved"
		case f.InBuffer:
			where = "in the editor buffer, not saved"
		}
		fmt.Fprintf(&b, "\n- %s: %s (%s)", showPath(ws, f.Abs), plural(f.Edits, "edit"), where)
	}
	budget := 60
	for _, f := range a.Files {
		if budget <= 0 {
			b.WriteString("\n(diffs of the other files left out)")
			break
		}
		d := shortDiff(showPath(ws, f.Abs), f.Before, f.After, min(budget, 20))
		if d != "" {
			b.WriteByte('\n')
			b.WriteString(strings.TrimSuffix(d, "\n"))
			budget -= strings.Count(d, "\n") + 1
		}
	}
	if a.Note != "" {
		b.WriteString("\nNote: ")
		b.WriteString(a.Note)
	}
	return b.String()
}

// isNoServer reports whether err says no language server serves the file.
func isNoServer(err error) bool { return errors.Is(err, workspace.ErrNoLanguageServer) }

// markApplied records the files an applied edit changed as read, when they
// still hold what the edit made: the agent saw the diff and may go on
// editing them.
func markApplied(s *workspace.Session, a workspace.Applied) {
	if s.Reads == nil {
		return
	}
	for _, fc := range a.Files {
		if f, err := s.WS.ReadFile(fc.Abs); err == nil && strings.ReplaceAll(f.Text, "\r\n", "\n") == fc.After {
			s.Reads.MarkRead(f)
		}
	}
}
