// Package nav backs the server's navigation with the code index: document
// and workspace symbols, go-to-definition, references, and the
// agentls.indexStatus command. It plugs into the server as an
// lsp.Extension; each folder's index starts building when its session
// starts and follows the folder's buffers from then on.
//
// Invariants: answers are go.lsp.dev/protocol's Location, DocumentSymbol
// and SymbolInformation, with ranges in the connection's position encoding
// computed from the text the client sees (its open buffer, else the disk);
// a position outside every folder answers an empty list, never an error;
// the index build runs on the extension's goroutine, never on the read
// loop, and ends with its folder's session.
package nav

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/codeindex"
	"github.com/agentls/agentls/lsp"
)

// CmdIndexStatus is the command reporting a folder's index state.
const CmdIndexStatus = "agentls.indexStatus"

// Extension is the navigation extension. The zero value is ready to use.
type Extension struct {
	// Options for each folder's index (tests point CacheDir at a temp dir).
	Options codeindex.Options
}

var _ lsp.Extension = (*Extension)(nil)

// Capabilities advertises the navigation providers.
func (x *Extension) Capabilities(caps *protocol.ServerCapabilities) {
	caps.DocumentSymbolProvider = true
	caps.WorkspaceSymbolProvider = true
	caps.DefinitionProvider = true
	caps.ReferencesProvider = true
}

// Commands adds agentls.indexStatus.
func (x *Extension) Commands() map[string]lsp.CommandFunc {
	return map[string]lsp.CommandFunc{CmdIndexStatus: indexStatus}
}

// Methods adds the navigation requests.
func (x *Extension) Methods() map[string]lsp.MethodFunc {
	return map[string]lsp.MethodFunc{
		"textDocument/documentSymbol": documentSymbol,
		"workspace/symbol":            workspaceSymbol,
		"textDocument/definition":     definition,
		"textDocument/references":     references,
	}
}

// FolderOpened starts the folder's index build in the background, reported
// as work-done progress (shown by the client when the build takes longer
// than the server's progress delay); the index is attached to the folder's
// session and closed with it. When the client cannot watch files for the
// server, the index watches the disk itself (fsnotify).
func (x *Extension) FolderOpened(f *lsp.Folder) func() {
	opts := x.Options
	work := f.StartWork("agentls: indexing " + cmp.Or(f.Name, filepath.Base(f.WS.Root())))
	user := opts.Progress
	opts.Progress = func(done, found int, final bool) {
		if user != nil {
			user(done, found, final)
		}
		if !final && found > 0 {
			work.Report(fmt.Sprintf("%d/%d files", done, found), done*100/found)
		}
	}
	ix := codeindex.For(f.Session, opts)
	watchDisk := !f.ClientWatchesFiles()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if watchDisk {
			if err := ix.WatchDisk(); err != nil && ctx.Err() == nil {
				f.Log().Info("cannot watch the disk; changes made outside the editor reach the index only when a tool reads them", "root", f.WS.Root(), "err", err)
			}
		}
		err := ix.Wait(ctx)
		switch st := ix.Status(); {
		case err != nil:
			work.End("stopped")
		default:
			work.End(fmt.Sprintf("%d files, %d symbols", st.Files, st.Symbols))
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

func indexStatus(ctx context.Context, f *lsp.Folder, _ json.RawMessage) (any, error) {
	if f == nil {
		return codeindex.Status{State: codeindex.StateReady, Languages: map[string]int{}}, nil
	}
	return codeindex.For(f.Session).Status(), nil
}

func symbolKind(k codeindex.Kind) protocol.SymbolKind {
	switch k {
	case codeindex.KindFunction:
		return protocol.SymbolKindFunction
	case codeindex.KindMethod:
		return protocol.SymbolKindMethod
	case codeindex.KindClass:
		return protocol.SymbolKindClass
	case codeindex.KindStruct:
		return protocol.SymbolKindStruct
	case codeindex.KindInterface:
		return protocol.SymbolKindInterface
	case codeindex.KindType:
		return protocol.SymbolKindTypeParameter
	case codeindex.KindEnum:
		return protocol.SymbolKindEnum
	case codeindex.KindConstant, codeindex.KindMacro:
		return protocol.SymbolKindConstant
	case codeindex.KindField:
		return protocol.SymbolKindField
	case codeindex.KindModule:
		return protocol.SymbolKindNamespace
	default:
		return protocol.SymbolKindVariable
	}
}

// textDocumentPosition decodes the params of the navigation requests:
// protocol's params types carry work-done and partial-result tokens, whose
// ProgressToken refuses a number outside int32 and would fail the request.
type textDocumentPosition struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Position lsp.Position `json:"position"`
	Context  struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

// folderOf returns the folder holding path (the innermost one).
func folderOf(s *lsp.Server, path string) *lsp.Folder {
	var best *lsp.Folder
	for _, f := range s.Folders() {
		if f.WS.Contains(path) && (best == nil || len(f.WS.Root()) > len(best.WS.Root())) {
			best = f
		}
	}
	return best
}

// converter turns index ranges (0-based lines, byte columns) of one file
// into protocol ranges in the connection's encoding, using the text the
// client sees: the open buffer, else the file on disk.
type converter struct {
	s          *lsp.Server
	text       string
	lineStarts []int
}

func newConverter(s *lsp.Server, f *lsp.Folder, abs string) *converter {
	c := &converter{s: s}
	if d, ok := s.DocumentAt(abs); ok {
		c.text = d.Text
	} else if file, err := f.WS.ReadFile(abs); err == nil {
		c.text = file.Text
	}
	c.lineStarts = []int{0}
	for i := 0; i < len(c.text); i++ {
		if c.text[i] == '\n' {
			c.lineStarts = append(c.lineStarts, i+1)
		}
	}
	return c
}

func (c *converter) pos(p codeindex.Pos) lsp.Position {
	if int(p.Line) >= len(c.lineStarts) {
		return lsp.Position{Line: p.Line, Character: p.Col}
	}
	off := c.lineStarts[p.Line] + int(p.Col)
	return c.s.Position(c.text, min(off, len(c.text)))
}

func (c *converter) rng(r codeindex.Range) lsp.Range {
	return lsp.Range{Start: c.pos(r.Start), End: c.pos(r.End)}
}

// converters caches one converter per file of a reply.
type converters struct {
	s  *lsp.Server
	f  *lsp.Folder
	by map[string]*converter
}

func (cs *converters) location(rel string, r codeindex.Range) protocol.Location {
	abs := filepath.Join(cs.f.WS.Root(), filepath.FromSlash(rel))
	c, ok := cs.by[abs]
	if !ok {
		c = newConverter(cs.s, cs.f, abs)
		cs.by[abs] = c
	}
	return protocol.Location{URI: protocol.DocumentURI(lsp.PathToURI(abs)), Range: c.rng(r)}
}

func documentSymbol(ctx context.Context, s *lsp.Server, raw json.RawMessage) (any, error) {
	var p textDocumentPosition
	if err := json.Unmarshal(raw, &p); err != nil || p.TextDocument.URI == "" {
		return nil, lsp.InvalidParams("textDocument/documentSymbol needs textDocument.uri")
	}
	abs, ok := lsp.URIToPath(p.TextDocument.URI)
	f := folderOf(s, abs)
	if !ok || f == nil {
		return []protocol.DocumentSymbol{}, nil
	}
	syms, ok := codeindex.For(f.Session).Outline(abs)
	if !ok {
		return []protocol.DocumentSymbol{}, nil
	}
	c := newConverter(s, f, abs)
	var conv func(ns []*codeindex.Node) []protocol.DocumentSymbol
	conv = func(ns []*codeindex.Node) []protocol.DocumentSymbol {
		out := make([]protocol.DocumentSymbol, 0, len(ns))
		for _, n := range ns {
			out = append(out, protocol.DocumentSymbol{
				Name: n.Name, Detail: n.Signature, Kind: symbolKind(n.Kind),
				Range: c.rng(n.Range), SelectionRange: c.rng(n.NameRange),
				Children: conv(n.Children),
			})
		}
		return out
	}
	return conv(codeindex.Nest(syms)), nil
}

func workspaceSymbol(ctx context.Context, s *lsp.Server, raw json.RawMessage) (any, error) {
	var p struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, lsp.InvalidParams("workspace/symbol needs a query string")
	}
	out := []protocol.SymbolInformation{}
	if p.Query == "" {
		return out, nil
	}
	for _, f := range s.Folders() {
		cs := &converters{s: s, f: f, by: map[string]*converter{}}
		for _, m := range codeindex.For(f.Session).Search(codeindex.SearchQuery{Query: p.Query, Limit: 100}) {
			out = append(out, protocol.SymbolInformation{
				Name: m.Name, Kind: symbolKind(m.Kind), ContainerName: m.Container,
				Location: cs.location(m.Path, m.NameRange),
			})
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// nameAt finds the folder, the relative path and the identifier under the
// cursor of a position request.
func nameAt(s *lsp.Server, p textDocumentPosition) (f *lsp.Folder, rel, name string) {
	abs, ok := lsp.URIToPath(p.TextDocument.URI)
	if !ok {
		return nil, "", ""
	}
	if f = folderOf(s, abs); f == nil {
		return nil, "", ""
	}
	// The index wants a byte column: convert through the text the client
	// sees.
	c := newConverter(s, f, abs)
	col := int(p.Position.Character)
	if int(p.Position.Line) < len(c.lineStarts) {
		start := c.lineStarts[p.Position.Line]
		col = s.Offset(c.text, p.Position) - start
	}
	rel = f.WS.Rel(abs)
	return f, rel, codeindex.For(f.Session).NameAt(abs, int(p.Position.Line), col)
}

func definition(ctx context.Context, s *lsp.Server, raw json.RawMessage) (any, error) {
	var p textDocumentPosition
	if err := json.Unmarshal(raw, &p); err != nil || p.TextDocument.URI == "" {
		return nil, lsp.InvalidParams("textDocument/definition needs textDocument and position")
	}
	out := []protocol.Location{}
	f, rel, name := nameAt(s, p)
	if name == "" {
		return out, nil
	}
	cs := &converters{s: s, f: f, by: map[string]*converter{}}
	for _, sym := range codeindex.For(f.Session).Definition(name, rel) {
		out = append(out, cs.location(sym.Path, sym.NameRange))
	}
	return out, nil
}

func references(ctx context.Context, s *lsp.Server, raw json.RawMessage) (any, error) {
	var p textDocumentPosition
	if err := json.Unmarshal(raw, &p); err != nil || p.TextDocument.URI == "" {
		return nil, lsp.InvalidParams("textDocument/references needs textDocument and position")
	}
	out := []protocol.Location{}
	f, rel, name := nameAt(s, p)
	if name == "" {
		return out, nil
	}
	ix := codeindex.For(f.Session)
	cs := &converters{s: s, f: f, by: map[string]*converter{}}
	if p.Context.IncludeDeclaration {
		for _, sym := range ix.Definition(name, rel) {
			out = append(out, cs.location(sym.Path, sym.NameRange))
		}
	}
	refs, err := ix.References(ctx, codeindex.RefQuery{Name: name, From: rel, Limit: 1000})
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		out = append(out, cs.location(r.Path, r.Range))
	}
	return out, nil
}
