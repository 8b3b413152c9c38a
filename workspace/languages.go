package workspace

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// Languages is what the editor's own language servers (gopls, pyright,
// tsserver…) know, asked through the editor that runs them. An Editor whose
// client offers it implements this too; tools that need it are offered only
// in such sessions.
//
// Positions here are 1-based lines and 1-based columns counted in
// characters (Unicode code points); the implementation converts them to and
// from the protocol's encoding with the document's text. Paths are absolute.
type Languages interface {
	// Diagnostics lists the diagnostics the editor knows for abs, or for
	// every document when abs is "".
	Diagnostics(ctx context.Context, abs string) ([]Diagnostic, error)
	// Locate answers definition, type_definition, implementation or
	// references at a position.
	Locate(ctx context.Context, action, abs string, at Pos) ([]Location, error)
	// Hover is the hover text (type and documentation) at a position.
	Hover(ctx context.Context, abs string, at Pos) (string, error)
	// RenameSymbol renames the symbol at a position everywhere the editor's
	// servers find it and applies the change.
	RenameSymbol(ctx context.Context, abs string, at Pos, newName string) (Applied, error)
	// CodeActions lists the actions the editor's servers offer for a span;
	// only ("quickfix", "refactor", "source") narrows them.
	CodeActions(ctx context.Context, abs string, from, to Pos, only string) ([]CodeAction, error)
	// ApplyCodeAction applies one action of a CodeActions answer.
	ApplyCodeAction(ctx context.Context, abs string, a CodeAction) (Applied, error)
	// State is what the user has open and where the cursor is.
	State(ctx context.Context) (EditorState, error)
}

// ErrNoLanguageServer is wrapped by Languages errors when no server in the
// editor handles the document: a caller may fall back to the code index.
var ErrNoLanguageServer = fmt.Errorf("no language server in the editor handles this file")

// Pos is a 1-based line and 1-based column in characters.
type Pos struct{ Line, Col int }

// Location is a span of a file.
type Location struct {
	Abs        string
	Start, End Pos
}

// Severity of a diagnostic, as LSP numbers it.
type Severity int

const (
	SeverityError   Severity = 1
	SeverityWarning Severity = 2
	SeverityInfo    Severity = 3
	SeverityHint    Severity = 4
)

func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInfo:
		return "info"
	case SeverityHint:
		return "hint"
	}
	return "error"
}

// ParseSeverity reads "error", "warning", "info" or "hint".
func ParseSeverity(s string) (Severity, bool) {
	for v := SeverityError; v <= SeverityHint; v++ {
		if v.String() == s {
			return v, true
		}
	}
	return 0, false
}

// Diagnostic is one problem a server or linter reports.
type Diagnostic struct {
	Location
	Severity Severity
	Source   string
	Code     string
	Message  string
}

// CodeAction is one action of a CodeActions answer. Data is opaque: the
// implementation needs it back to apply the action.
type CodeAction struct {
	Title     string
	Kind      string
	Preferred bool
	Disabled  string // why it cannot be applied now, or ""
	Data      []byte
}

// Applied says what a workspace edit (a rename, a code action) changed.
type Applied struct {
	Files []FileChange
	Note  string // for the model: unsaved buffers, a command the editor ran, diagnostics after the change
}

// FileChange is one file of an applied edit.
type FileChange struct {
	Abs      string
	Edits    int
	Before   string // the text before, "\n" line endings ("" for a new file)
	After    string
	InBuffer bool // changed in the editor's buffer (else on disk)
	Saved    bool
}

// EditorState is what the user has open.
type EditorState struct {
	Documents []OpenDocument
	Active    *ActiveEditor // nil when no editor has focus
}

// OpenDocument is one open buffer.
type OpenDocument struct {
	Abs      string // "" for a buffer without a file (then Name says what it is)
	Name     string
	Language string
	Version  int32
	Dirty    bool
}

// ActiveEditor is the focused editor.
type ActiveEditor struct {
	Abs        string
	Cursor     Pos
	Selections []Location // non-empty selections only
	Visible    *Location  // the lines on screen, when known
}

// FormatDiagnostics renders diagnostics at or above min as
// "path:line:col: severity [source code] message" lines, errors first, then
// by path and position; rel turns an absolute path into what the model
// sees. limit > 0 keeps that many and says how many were left out.
func FormatDiagnostics(ds []Diagnostic, min Severity, rel func(string) string, limit int) string {
	var keep []Diagnostic
	for _, d := range ds {
		if d.Severity == 0 {
			d.Severity = SeverityError
		}
		if d.Severity <= min {
			keep = append(keep, d)
		}
	}
	slices.SortStableFunc(keep, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Severity, b.Severity), cmp.Compare(a.Abs, b.Abs),
			cmp.Compare(a.Start.Line, b.Start.Line), cmp.Compare(a.Start.Col, b.Start.Col))
	})
	var b strings.Builder
	for i, d := range keep {
		if limit > 0 && i == limit {
			fmt.Fprintf(&b, "[%d more not shown]\n", len(keep)-limit)
			break
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s", rel(d.Abs), d.Start.Line, d.Start.Col, d.Severity)
		tag := strings.TrimSpace(d.Source + " " + d.Code)
		if tag != "" {
			fmt.Fprintf(&b, " [%s]", tag)
		}
		msg := strings.ReplaceAll(strings.TrimSpace(d.Message), "\n", " ")
		fmt.Fprintf(&b, " %s\n", msg)
	}
	return b.String()
}
