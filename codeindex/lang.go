package codeindex

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/lua"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

//go:embed queries/*.scm
var queryFS embed.FS

// A Language is one grammar with its tags query. The compiled queries are
// shared by every goroutine (tree-sitter queries are immutable once
// compiled); parsers and cursors are not, and live in an extractor.
type Language struct {
	Name       string   // "go", "python", ...
	Extensions []string // with the dot
	Query      string   // file name under queries/, shared by dialects (tsx uses its own)
	grammar    func() *sitter.Language
	syn        *syntax // comments, literals, bodies, imports (syntax.go)

	// skeleton (from syn, set by load), when set, makes out the text to parse for a definitions-only
	// tree (function bodies left out) and how it maps to the file; false
	// means the whole file.
	skeleton func(out *skelOut, src []byte) bool
	// defsPass, when set, finds the definitions of a file (in x.caps,
	// as the walk of a full parse would) without parsing it, or reports
	// false for text it cannot read (Lua: luaDefs).
	defsPass func(x *extractor, l *Language, src []byte) bool
	// buildPass is a defsPass for the files of a build only (skeletonDefs),
	// not for buffers, which keep a tree for their incremental updates
	// (Rust: rustDefs; C#: csDefs). It reads the skeleton (x.sk) and maps
	// its captures to the file; collect, given x.sk, fixes their ends and
	// starts as for a parse of the skeleton.
	buildPass func(x *extractor, l *Language, src []byte) bool
	// maxDepth, when not 0, is the deepest node where a definitions pattern
	// starts (the root is at 0).
	maxDepth uint32
	// topMethodIsFunction: a method outside any container is a function (Ruby).
	topMethodIsFunction bool
	// capsConstants: an ALL_CAPS variable is a constant (Python, Ruby, Lua).
	capsConstants bool
	// serialParse: the grammar's external scanner keeps its state in
	// globals (tree-sitter-lua's ending_char and level_count), so two of
	// its parses at once read each other's: they take turns (parseMu).
	// Without it the cold build of the Lua corpus lost or gained the
	// definitions of a few files from one run to the next.
	serialParse bool
	parseMu     sync.Mutex
	// resetScanner, with serialParse, puts the scanner's globals in their
	// initial state before each parse: tree-sitter-lua's does not when a
	// parse starts, so the same text parsed twice in a row could give two
	// trees (seen: 9 and 7 definitions, by turns, of a file with an
	// unterminated string; FuzzBufferEdits).
	resetScanner func()

	once           sync.Once
	lang           *sitter.Language
	defSrc, refSrc []byte // the two halves of the query's text
	err            error
	// The compiled queries: each on first use (defsQuery, refsQuery).
	defsOnce, refsOnce sync.Once
	defs               *sitter.Query // definitions: @name, @definition.KIND, @container, @scope
	refs               *sitter.Query // references: @name, @reference.KIND
	defsErr, refsErr   error
	defInfo            []captureInfo // by capture id
	defNames           []string      // the definitions' capture names, by id
	// walk finds the matches of defs without the query engine (walk.go);
	// its zero value (a pattern it cannot take) leaves them to defs.
	walk    walker
	walkErr error
	refInfo []captureInfo
}

type captureInfo struct {
	role int // capName, capDef, capContainer, capScope, capRef
	kind Kind
}

const (
	capOther = iota
	capName
	capDef
	capContainer
	capScope
	capRef
)

var languages = []*Language{
	{Name: "go", syn: goSyntax, maxDepth: 1, Extensions: []string{".go"}, Query: "go.scm", grammar: golang.GetLanguage},
	{Name: "python", syn: pythonSyntax, capsConstants: true, buildPass: pyDefs, Extensions: []string{".py", ".pyi"}, Query: "python.scm", grammar: python.GetLanguage},
	{Name: "javascript", syn: jsSyntax, buildPass: jsDefs, Extensions: []string{".js", ".jsx", ".mjs", ".cjs"}, Query: "javascript.scm", grammar: javascript.GetLanguage},
	{Name: "typescript", syn: tsSyntax, Extensions: []string{".ts", ".mts", ".cts"}, Query: "typescript.scm", grammar: typescript.GetLanguage},
	{Name: "tsx", syn: tsxSyntax, Extensions: []string{".tsx"}, Query: "tsx.scm", grammar: tsx.GetLanguage},
	{Name: "rust", syn: rustSyntax, buildPass: rustDefs, Extensions: []string{".rs"}, Query: "rust.scm", grammar: rust.GetLanguage},
	{Name: "java", syn: javaSyntax, buildPass: javaDefs, Extensions: []string{".java"}, Query: "java.scm", grammar: java.GetLanguage},
	{Name: "c", syn: cSyntax, Extensions: []string{".c", ".h"}, Query: "c.scm", grammar: c.GetLanguage},
	{Name: "cpp", syn: cppSyntax, Extensions: []string{".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp"}, Query: "cpp.scm", grammar: cpp.GetLanguage},
	{Name: "csharp", syn: csharpSyntax, buildPass: csDefs, Extensions: []string{".cs"}, Query: "csharp.scm", grammar: csharp.GetLanguage},
	{Name: "ruby", syn: rubySyntax, topMethodIsFunction: true, Extensions: []string{".rb", ".rake", ".gemspec"}, Query: "ruby.scm", grammar: ruby.GetLanguage},
	{Name: "php", syn: phpSyntax, Extensions: []string{".php"}, Query: "php.scm", grammar: php.GetLanguage},
	{Name: "lua", syn: luaSyntax, capsConstants: true, serialParse: true, resetScanner: resetLuaScanner, defsPass: luaDefs, Extensions: []string{".lua"}, Query: "lua.scm", grammar: lua.GetLanguage},
}

// byExt maps a file extension to its language. It is built on first use
// of a language, together with the keyword tables of the syntax records
// (syntax.init), rather than when the package starts: a process that never
// indexes (agentls call grep) does without both, about 200 KB of maps whose
// pages it would fault in at start (issue 19). Every use of a language
// goes through Languages, LanguageFor or LanguageByName, which build them.
var byExt = sync.OnceValue(func() map[string]*Language {
	m := make(map[string]*Language)
	ready := make(map[*syntax]bool)
	for _, l := range languages {
		if !ready[l.syn] {
			l.syn.init()
			ready[l.syn] = true
		}
		for _, e := range l.Extensions {
			m[e] = l
		}
	}
	return m
})

// Languages lists the indexed languages in a fixed order.
func Languages() []*Language {
	byExt()
	return languages
}

// LanguageFor returns the language of a file by its extension, or nil.
func LanguageFor(name string) *Language {
	return byExt()[strings.ToLower(path.Ext(name))]
}

// LanguageByName returns a language by its Name, or nil.
func LanguageByName(name string) *Language {
	byExt()
	for _, l := range languages {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// refsMarker separates the definition patterns of a .scm file from its
// reference patterns, so that the cold build runs only the cheap half.
var refsMarker = []byte(";; references")

func (l *Language) load() error {
	l.once.Do(func() {
		src, err := queryFS.ReadFile("queries/" + l.Query)
		if err != nil {
			l.err = fmt.Errorf("query of %s: %w", l.Name, err)
			return
		}
		defSrc, refSrc, ok := bytes.Cut(src, refsMarker)
		if !ok {
			l.err = fmt.Errorf("query of %s: no %q section", l.Name, refsMarker)
			return
		}
		l.defSrc, l.refSrc = defSrc, refSrc
		l.lang = l.grammar()
		l.skeleton = l.syn.skeleton()
		// The walk needs no query: tree-sitter's compile of a query (its
		// analysis) costs 5-130 ms a language (C++ the most), which a
		// cold build no longer pays. The queries are compiled when first
		// used (defsQuery, refsQuery).
		p := sitter.NewParser()
		p.SetLanguage(l.lang)
		var names []string
		l.walk, names, l.walkErr = compileWalk(p, l.Name, defSrc)
		p.Close()
		if l.walk.c != nil {
			l.defNames, l.defInfo = names, captureInfos(names)
			return
		}
		q, err := l.defsQuery()
		if err != nil {
			l.err = err
			return
		}
		l.defNames = captureNames(q)
		l.defInfo = captureInfos(l.defNames)
	})
	return l.err
}

// defsQuery returns the definitions query of l (loaded), compiled on first
// use: the incremental update runs it over ranges, and where the walk
// cannot take the patterns, everything does.
func (l *Language) defsQuery() (*sitter.Query, error) {
	l.defsOnce.Do(func() {
		q, err := sitter.NewQuery(l.defSrc, l.lang)
		if err != nil {
			l.defsErr = fmt.Errorf("definitions query of %s: %w", l.Name, err)
			return
		}
		if l.walk.c != nil && !slices.Equal(captures(q), l.defInfo) {
			// The walk numbers the captures as tree-sitter does (by first
			// appearance); checked by TestWalkCompiles.
			l.defsErr = fmt.Errorf("definitions query of %s: its captures are not the walk's", l.Name)
			return
		}
		l.defs = q
	})
	return l.defs, l.defsErr
}

// refsQuery returns the references query of l (loaded) and its captures,
// compiled on first use.
func (l *Language) refsQuery() (*sitter.Query, []captureInfo, error) {
	l.refsOnce.Do(func() {
		q, err := sitter.NewQuery(l.refSrc, l.lang)
		if err != nil {
			l.refsErr = fmt.Errorf("references query of %s: %w", l.Name, err)
			return
		}
		l.refs, l.refInfo = q, captures(q)
	})
	return l.refs, l.refInfo, l.refsErr
}

// parsing takes the language's turn to parse when its parses must take
// turns (serialParse); call the function it returns when the parse ends.
func (l *Language) parsing() func() {
	if !l.serialParse {
		return func() {}
	}
	l.parseMu.Lock()
	if l.resetScanner != nil {
		l.resetScanner()
	}
	return l.parseMu.Unlock
}

// captures returns the roles of q's captures, by id.
func captures(q *sitter.Query) []captureInfo { return captureInfos(captureNames(q)) }

// captureNames returns the capture names of q, by id.
func captureNames(q *sitter.Query) []string {
	names := make([]string, q.CaptureCount())
	for i := range names {
		names[i] = q.CaptureNameForId(uint32(i))
	}
	return names
}

// captureInfos returns the roles of captures by their names, by id.
func captureInfos(names []string) []captureInfo {
	info := make([]captureInfo, len(names))
	for i, name := range names {
		switch {
		case name == "name":
			info[i].role = capName
		case name == "container":
			info[i].role = capContainer
		case name == "scope":
			info[i].role = capScope
		case strings.HasPrefix(name, "definition."):
			info[i] = captureInfo{role: capDef, kind: kindOf(strings.TrimPrefix(name, "definition."))}
		case strings.HasPrefix(name, "reference."):
			info[i] = captureInfo{role: capRef, kind: kindOf(strings.TrimPrefix(name, "reference."))}
		}
	}
	return info
}
