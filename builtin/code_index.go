package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/codeindex"
	"github.com/agentls/agentls/registry"
)

const codeIndexDescription = "Look up symbols in the workspace's live index (open buffers included) instead of grepping. search: definitions whose names match query; definition: where query (name or Type.name) is defined; references: its uses, found by name; outline: a file's symbols; map: the central definitions of the workspace or path, leaning to files you read; status. Returns path:line lines for read_file."

const codeIndexSchema = `{
	"type": "object",
	"properties": {
		"action": {"type": "string", "enum": ["search", "definition", "references", "outline", "map", "status"], "description": "what to look up"},
		"query": {"type": "string", "description": "a symbol name, or part of one for search; Type.name for a member"},
		"path": {"type": "string", "description": "a file or directory to look in; the file for outline"},
		"kind": {"type": "string", "enum": ["function", "method", "class", "struct", "interface", "type", "enum", "constant", "variable", "field", "module", "macro"], "description": "only symbols of this kind"},
		"limit": {"type": "integer", "minimum": 1, "description": "most results (default 50); for map, most lines (default 60)"}
	},
	"required": ["action"],
	"additionalProperties": false
}`

// buildWait is how long a call waits for an index that is still building
// before it answers from what is indexed so far (an editor session builds
// it from the start; the command line, with no read tracking, waits for
// the whole build).
const buildWait = 5 * time.Second

type codeIndex struct{}

func init() { registry.RegisterBuiltin(codeIndex{}) }

func (codeIndex) Name() string            { return "code_index" }
func (codeIndex) Description() string     { return codeIndexDescription }
func (codeIndex) Schema() json.RawMessage { return json.RawMessage(codeIndexSchema) }
func (codeIndex) ReadOnly() bool          { return true }

func (codeIndex) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		Action string `json:"action"`
		Query  string `json:"query"`
		Path   string `json:"path"`
		Kind   string `json:"kind"`
		Limit  int    `json:"limit"`
	}
	s, err := sessionArgs(ctx, args, &a)
	if err != nil {
		return "", err
	}
	var kind codeindex.Kind
	if a.Kind != "" {
		k, ok := codeindex.ParseKind(a.Kind)
		if !ok {
			return "", fmt.Errorf("unknown kind %q", a.Kind)
		}
		kind = k
	}
	rel := ""
	if a.Path != "" {
		_, r, err := s.WS.Resolve(a.Path)
		if err != nil {
			return "", err
		}
		if r != "." {
			rel = r
		}
	}
	ix := codeindex.For(s)
	wait := buildWait
	if s.Reads == nil {
		wait = 24 * time.Hour // a one-shot command line session: the whole build, bounded by ctx
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	ix.Wait(wctx)
	cancel()
	if err := ctx.Err(); err != nil {
		return "", err
	}
	needQuery := func() error {
		if strings.TrimSpace(a.Query) == "" {
			return fmt.Errorf("action %s needs a query (a symbol name)", a.Action)
		}
		return nil
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 50
	}
	var b strings.Builder
	switch a.Action {
	case "status":
		writeStatus(&b, ix.Status())
		return b.String(), nil
	case "search":
		if err := needQuery(); err != nil {
			return "", err
		}
		ms := ix.Search(codeindex.SearchQuery{Query: a.Query, Kind: kind, Path: rel, Limit: limit})
		if len(ms) == 0 {
			return emptyAnswer(ix, rel, fmt.Sprintf("no symbol matches %q", a.Query)), nil
		}
		for _, m := range ms {
			writeSymbol(&b, m.Symbol, false)
		}
	case "definition":
		if err := needQuery(); err != nil {
			return "", err
		}
		var syms []codeindex.Symbol
		scope := scopeOf(rel)
		for _, sym := range ix.Definition(a.Query, rel) {
			if (kind == 0 || sym.Kind == kind) && (scope == "" || strings.HasPrefix(sym.Path, scope+"/")) {
				syms = append(syms, sym)
			}
		}
		if len(syms) == 0 {
			return emptyAnswer(ix, rel, fmt.Sprintf("no definition of %q", a.Query)), nil
		}
		for i, sym := range syms {
			if i == limit {
				fmt.Fprintf(&b, "(%d more; pass a path or a kind to narrow)\n", len(syms)-limit)
				break
			}
			writeSymbol(&b, sym, true)
		}
	case "references":
		if err := needQuery(); err != nil {
			return "", err
		}
		refs, err := ix.References(ctx, codeindex.RefQuery{Name: a.Query, Path: scopeOf(rel), From: rel, Limit: limit})
		if err != nil {
			return "", err
		}
		if len(refs) == 0 {
			return emptyAnswer(ix, rel, fmt.Sprintf("no references to %q", a.Query)), nil
		}
		// References are found by name, not by type: say so once.
		how := "found by name: uses of other symbols with this name may be among them"
		if strings.ContainsAny(strings.Trim(a.Query, ".:#"), ".:#") {
			how = "found by name; uses through another receiver are left out where the text shows it, those through the named one come first"
		}
		fmt.Fprintf(&b, "(%s)\n", how)
		for _, r := range refs {
			fmt.Fprintf(&b, "%s:%d: %s %s\n", r.Path, r.Range.Start.Line+1, r.Kind, r.Line)
		}
		if len(refs) == limit {
			fmt.Fprintf(&b, "(limit %d reached; pass a path or a larger limit)\n", limit)
		}
	case "outline":
		if rel == "" {
			return "", fmt.Errorf("outline needs a path (a file); for a directory use action map")
		}
		abs, _, _ := s.WS.Resolve(a.Path)
		if st, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("%s does not exist; find files with glob or ls", rel)
		} else if st.IsDir() {
			return "", fmt.Errorf("%s is a directory: outline takes a file; for a directory's main symbols use action map with this path", rel)
		}
		syms, ok := ix.Outline(rel)
		if !ok {
			if codeindex.LanguageFor(rel) == nil {
				return fmt.Sprintf("%s: language not indexed (indexed: %s)", rel, languageList()), nil
			}
			return emptyAnswer(ix, rel, fmt.Sprintf("%s is not in the index (missing, ignored, over 1 MiB or minified)", rel)), nil
		}
		if len(syms) == 0 {
			return fmt.Sprintf("%s: no symbols", rel), nil
		}
		fmt.Fprintf(&b, "%s\n", rel)
		writeOutline(&b, codeindex.Nest(syms), 1)
	case "map":
		if a.Limit <= 0 {
			limit = 60
		}
		// Personalised toward what this session read or edited (and the
		// open buffers, which the index adds).
		var focus []string
		if s.Reads != nil {
			for _, abs := range s.Reads.Paths() {
				focus = append(focus, s.WS.Rel(abs))
			}
		}
		m, err := ix.MapFocus(ctx, rel, limit, focus)
		if err != nil {
			return "", err
		}
		if m == "" {
			return emptyAnswer(ix, rel, "no symbol is referenced from another file"), nil
		}
		b.WriteString(m)
	default:
		return "", fmt.Errorf("unknown action %q: use search, definition, references, outline, map or status", a.Action)
	}
	if ix.Building() {
		st := ix.Status()
		fmt.Fprintf(&b, "(the index is still building: %d files so far; results may be incomplete)\n", st.Files)
	}
	return b.String(), nil
}

// scopeOf is the scope of definition and references for a path: a
// directory as is; for a source file the whole workspace (the file only
// puts its own results and its directory's first).
func scopeOf(rel string) string {
	if codeindex.LanguageFor(rel) != nil {
		return ""
	}
	return rel
}

func writeSymbol(b *strings.Builder, s codeindex.Symbol, doc bool) {
	name := s.Name
	if s.Container != "" {
		name = s.Container + "." + s.Name
	}
	fmt.Fprintf(b, "%s:%d: %s %s", s.Path, s.NameRange.Start.Line+1, s.Kind, name)
	if s.Signature != "" {
		fmt.Fprintf(b, " — %s", s.Signature)
	}
	b.WriteByte('\n')
	if doc && s.Doc != "" {
		fmt.Fprintf(b, "    %s\n", s.Doc)
	}
}

func writeOutline(b *strings.Builder, nodes []*codeindex.Node, depth int) {
	for _, n := range nodes {
		start, end := n.Range.Start.Line+1, n.Range.End.Line+1
		lines := fmt.Sprint(start)
		if end > start {
			lines = fmt.Sprintf("%d-%d", start, end)
		}
		fmt.Fprintf(b, "%s%s %s %s\n", strings.Repeat("  ", depth), lines, n.Kind, n.Name)
		writeOutline(b, n.Children, depth+1)
	}
}

func writeStatus(b *strings.Builder, st codeindex.Status) {
	fmt.Fprintf(b, "%s: %d files, %d symbols", st.State, st.Files, st.Symbols)
	if len(st.Languages) > 0 {
		langs := make([]string, 0, len(st.Languages))
		for l, n := range st.Languages {
			langs = append(langs, fmt.Sprintf("%s %d", l, n))
		}
		sort.Strings(langs)
		fmt.Fprintf(b, " (%s)", strings.Join(langs, ", "))
	}
	if st.Skipped > 0 {
		fmt.Fprintf(b, "; %d skipped (over 1 MiB, minified or binary)", st.Skipped)
	}
	b.WriteByte('\n')
	if st.Error != "" {
		fmt.Fprintf(b, "error: %s\n", st.Error)
	}
}

// emptyAnswer says why nothing was found.
func emptyAnswer(ix *codeindex.Index, rel, what string) string {
	st := ix.Status()
	var b strings.Builder
	b.WriteString(what)
	if rel != "" {
		fmt.Fprintf(&b, " under %s", rel)
	}
	fmt.Fprintf(&b, " (%d files indexed", st.Files)
	if st.Files > 0 {
		fmt.Fprintf(&b, ": %s", strings.Join(sortedKeys(st.Languages), ", "))
	}
	b.WriteString(")")
	if st.State == codeindex.StateIndexing {
		b.WriteString("; the index is still building, try again shortly")
	} else {
		fmt.Fprintf(&b, "; indexed languages: %s", languageList())
	}
	b.WriteByte('\n')
	return b.String()
}

func languageList() string {
	var names []string
	for _, l := range codeindex.Languages() {
		names = append(names, l.Name)
	}
	return strings.Join(names, ", ")
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
