package codeindex

import (
	"context"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// A Ranked symbol is a definition with its importance: the PageRank of its
// file in the graph of references between files, shared out over the
// names through which other files reach it (Aider's repo map, in short).
type Ranked struct {
	Symbol
	Score float64
}

type rankCache struct {
	mu     sync.Mutex
	gen    uint64
	focus  string             // the focus files the ranking was personalised toward
	ranked []Ranked           // all definitions that other files use, best first
	files  map[string]float64 // each file's PageRank
}

// Ranked returns the definitions used from other files, most important
// first, under path (a file or directory prefix; "" for all). References
// are counted lexically (identifiers equal to a defined name), which is
// what a ranking needs and costs one pass over the files; the result is
// kept until the index changes.
func (ix *Index) Ranked(ctx context.Context, path string) ([]Ranked, error) {
	return ix.rankedFor(ctx, path, nil)
}

// rankedFor is Ranked personalised toward the focus files (rel paths): the
// files the session works on and the open buffers.
func (ix *Index) rankedFor(ctx context.Context, path string, focus []string) ([]Ranked, error) {
	ix.followDeny()
	all, err := ix.rankAll(ctx, focus)
	if err != nil {
		return nil, err
	}
	prefix := pathPrefix(path)
	if prefix == "" {
		return all, nil
	}
	var out []Ranked
	for _, r := range all {
		if inPath(r.Path, prefix) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (ix *Index) rankAll(ctx context.Context, focusList []string) ([]Ranked, error) {
	rc := &ix.rank
	rc.mu.Lock()
	defer rc.mu.Unlock()
	ix.mu.RLock()
	gen := ix.gen
	focus := make(map[string]bool, len(focusList))
	for _, f := range focusList {
		focus[f] = true
	}
	for _, f := range ix.files {
		if f.open {
			focus[f.rel] = true
		}
	}
	focusKey := strings.Join(sortedSet(focus), "\x00")
	if rc.ranked != nil && rc.gen == gen && rc.focus == focusKey {
		ix.mu.RUnlock()
		return rc.ranked, nil
	}
	files := make([]*fileEntry, 0, len(ix.files))
	for _, f := range ix.files {
		files = append(files, f)
	}
	definers := make(map[string][]int32, len(ix.names))
	ix.mu.RUnlock()
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	fileIdx := make(map[*fileEntry]int32, len(files))
	for i, f := range files {
		fileIdx[f] = int32(i)
	}
	for i, f := range files {
		if f.lang.syn.testData && isTestData(f.rel) {
			continue // fixtures define names they do not own (func nil, type int)
		}
		for _, s := range f.defs() {
			if len(s.Name) < 2 || s.Kind == KindVariable && s.Container != "" {
				continue
			}
			// Members (methods, fields) are reached only through a selector
			// (x.name, x->name, X::name); the "." key says so.
			k := s.Name
			if s.Kind == KindMethod || s.Kind == KindField {
				k = "." + s.Name
			}
			d := definers[k]
			if n := len(d); n == 0 || d[n-1] != int32(i) {
				definers[k] = append(d, int32(i))
			}
		}
	}

	// Uses of defined names per file, in parallel.
	goModule, goModuleOK := goImportPath(ix.ws.Root())
	uses := make([]map[use]int, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range ix.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				src := ix.source(files[i])
				if src == nil {
					continue
				}
				m := make(map[use]int)
				// Go: a selector's qualifier may name an imported package.
				isGo := files[i].lang.syn.imports != nil
				var imports map[string]string
				if isGo {
					imports = files[i].lang.syn.imports(files[i].lang.syn, src)
				}
				scanIdents(files[i].lang, src, func(id, qual []byte, selector bool) {
					_, top := definers[string(id)]
					_, member := definers["."+string(id)]
					switch {
					case !selector:
						if top {
							m[use{name: string(id)}]++
						}
					case !isGo:
						// x.name: a member, or a name of module x.
						if top || member {
							m[use{name: string(id), how: useSelector}]++
						}
					default:
						if imp, ok := imports[string(qual)]; ok {
							// pkg.Name: a package of this module, else outside the workspace.
							dir, ok := strings.CutPrefix(imp, goModule+"/")
							if goModule == "" {
								dir, ok = imp, true
							}
							if imp == goModule {
								dir, ok = ".", true
							}
							if ok && goModuleOK && top {
								m[use{name: string(id), how: usePackage, dir: dir}]++
							}
						} else if member {
							m[use{name: string(id), how: useMember}]++
						}
					}
				})
				uses[i] = m
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Edges A → B (A uses a name B defines), weighted; PageRank over files.
	type edge struct {
		to   int32
		name string
		w    float64
	}
	// A file's uses of its own names (b == a) do not count toward its
	// PageRank, but share its rank out to them: a big file that uses its
	// Server type throughout ranks Server among its own names.
	out := make([][]edge, len(files))
	outW := make([]float64, len(files))   // all edges
	otherW := make([]float64, len(files)) // edges to other files
	for a, m := range uses {
		isGo := files[a].lang.syn.imports != nil // unqualified names are the package's
		dirA := path.Dir(files[a].rel)
		for u, c := range m {
			var d []int32
			switch u.how {
			case useName, usePackage:
				d = definers[u.name]
			case useMember:
				d = definers["."+u.name]
			case useSelector:
				d = append(definers[u.name][:len(definers[u.name]):len(definers[u.name])], definers["."+u.name]...)
			}
			// The files the use can refer to; a name that could be any of
			// many says little about which.
			cand := make([]int32, 0, len(d))
			for _, b := range d {
				rb := files[b].rel
				switch {
				case files[b].lang.family() != files[a].lang.family():
					continue
				case isGo && u.how == useName && path.Dir(rb) != dirA: // unqualified: this package
					continue
				case u.how == usePackage && path.Dir(rb) != u.dir:
					continue
				}
				cand = append(cand, b)
			}
			if len(cand) == 0 || len(cand) > maxDefiners {
				continue // too common a name to tell anything
			}
			w := math.Sqrt(float64(c)) / float64(len(cand)) * nameWeight(u.name, len(d))
			for _, b := range cand {
				out[a] = append(out[a], edge{b, u.name, w})
				outW[a] += w
				if b != int32(a) {
					otherW[a] += w
				}
			}
		}
	}
	n := float64(len(files))
	// The random surfer jumps mostly to the focus files when there are any
	// (PageRank personalised as Aider's map is toward the files in the
	// chat), else to any file.
	const focusShare = 0.8
	teleport := make([]float64, len(files))
	nFocus := 0
	for _, f := range files {
		if focus[f.rel] {
			nFocus++
		}
	}
	for i, f := range files {
		teleport[i] = 1 / n
		if nFocus > 0 {
			teleport[i] *= 1 - focusShare
			if focus[f.rel] {
				teleport[i] += focusShare / float64(nFocus)
			}
		}
	}
	rank := slices.Clone(teleport)
	const damping = 0.85
	for range 20 {
		nr := make([]float64, len(files))
		dangling := 0.0
		for a, es := range out {
			if otherW[a] == 0 {
				dangling += rank[a]
				continue
			}
			for _, e := range es {
				if e.to != int32(a) {
					nr[e.to] += damping * rank[a] * e.w / otherW[a]
				}
			}
		}
		for i := range nr {
			nr[i] += (1-damping)*teleport[i] + damping*dangling*teleport[i]
		}
		rank = nr
	}
	share := make(map[string]float64)
	for _, f := range files {
		share[f.lang.family()] += 1 / n
	}
	// Share each edge's rank out to the definitions of its name.
	type key struct {
		file int32
		name string
	}
	score := make(map[key]float64)
	fanIn := make(map[key]int) // other files using the name
	for a, es := range out {
		for _, e := range es {
			if e.to != int32(a) {
				fanIn[key{e.to, e.name}]++
			}
			// A small family of files (a few scripts beside a Go module) passes
			// all its rank through few edges; weigh it by its share of files.
			score[key{e.to, e.name}] += rank[a] * e.w / outW[a] * share[files[a].lang.family()]
		}
	}
	var ranked []Ranked
	for i, f := range files {
		// A definition in a test, fixture or vendored file is seldom what
		// a reader of the map is after.
		mul := 1.0
		if isSecondary(f.rel) {
			mul = 0.1
		}
		for _, s := range f.defs() {
			k := key{int32(i), s.Name}
			if sc := score[k]; sc > 0 && fanIn[k] > 0 {
				// PageRank's share, times how widely the name is used: a
				// type every test and package uses beats a helper that one
				// busy file calls.
				sc *= math.Log2(1 + float64(fanIn[k]))
				if f.lang.Name == "go" && !isExported(s.Name) {
					sc *= 0.5 // Go's unexported names are the package's own
				}
				ranked = append(ranked, Ranked{Symbol: s.symbol(f.rel), Score: sc * mul})
			}
		}
	}
	sort.SliceStable(ranked, func(i, j int) bool {
		if ranked[i].Score != ranked[j].Score {
			return ranked[i].Score > ranked[j].Score
		}
		return ranked[i].Path < ranked[j].Path
	})
	rc.files = make(map[string]float64, len(files))
	for i, f := range files {
		rc.files[f.rel] = rank[i]
	}
	rc.gen, rc.focus, rc.ranked = gen, focusKey, ranked
	return ranked, nil
}

func isExported(name string) bool {
	return name != "" && name[0] >= 'A' && name[0] <= 'Z'
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// nameWeight is how much a use of name tells about the file defining it:
// less for a name defined in many files, a very short one, a private one
// (_name) or a method name every language's library has (new, map, to_s,
// Ok, None, default, Get, String…).
func nameWeight(name string, definers int) float64 {
	w := 1.0
	if definers > 5 {
		w *= 0.1
	}
	switch {
	case len(name) <= 2:
		w *= 0.1
	case len(name) == 3:
		w *= 0.3
	}
	if strings.HasPrefix(name, "_") {
		w *= 0.1
	}
	if commonNames()[strings.ToLower(name)] {
		w *= 0.1
	}
	return w
}

// commonNames are method and constructor names found throughout standard
// libraries, compared in lower case (built on first use).
var commonNames = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`new init default ok none some err error string to_s to_str tostring
		inspect hash hashcode equals eq cmp len size count get set put add pop push append insert remove
		delete clear reset update map each filter reduce collect select find any all include extend
		require class module call apply run start stop close open read write flush lock unlock wait
		next value values keys key items item copy clone dup from into as_ref as_str fmt format parse
		load dump encode decode send name type id data self this main setup teardown test value_of
		writestring readfrom writeto less swap compare serialize deserialize display debug drop`) {
		m[n] = true
	}
	return m
})

// isSecondary reports whether rel is a test, fixture, example or vendored
// file, whose definitions rank below the code's own.
func isSecondary(rel string) bool {
	base := path.Base(rel)
	if strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "test_") || strings.Contains(base, "_test.") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.HasSuffix(strings.TrimSuffix(base, path.Ext(base)), "_spec") {
		return true
	}
	for _, dir := range strings.Split(path.Dir(rel), "/") {
		switch dir {
		case "test", "tests", "testdata", "spec", "specs", "fixtures", "fixture", "__tests__", "vendor", "node_modules", "third_party", "examples", "example", "testing", "mocks", "mock":
			return true
		}
	}
	return false
}

func isTestData(rel string) bool {
	return strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/")
}

// A use is how a file refers to a defined name.
type use struct {
	name string
	how  uint8
	dir  string // usePackage: the package's directory
}

const (
	useName     = iota // unqualified
	useSelector        // x.name, x->name, X::name (not Go)
	useMember          // Go: x.name where x is not an imported package
	usePackage         // Go: pkg.name, pkg a package of the workspace's module
)

// goImportPath returns the import path of the workspace root: its module's
// path joined with where the root lies in the module (the nearest go.mod at
// or above it; "std" is Go's own source, whose import paths have no module
// prefix). ok is false outside a module.
func goImportPath(root string) (string, bool) {
	for dir := root; ; dir = filepath.Dir(dir) {
		if mod := goModulePath(filepath.Join(dir, "go.mod")); mod != "" {
			rel, err := filepath.Rel(dir, root)
			if err != nil {
				return "", false
			}
			rel = filepath.ToSlash(rel)
			switch {
			case mod == "std" && rel == ".":
				return "", true
			case mod == "std":
				return rel, true
			case rel == ".":
				return mod, true
			}
			return mod + "/" + rel, true
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}

// goModulePath returns the module path of a go.mod file, or "".
func goModulePath(gomod string) string {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// goImports returns the imports of a Go file by the name they are used
// with (the alias, or the last element of the path), read by Go's lexer
// up to the first declaration (imports come first).
func goImports(sx *syntax, src []byte) map[string]string {
	imports := make(map[string]string)
	lx := lexer{sx: sx, src: src}
	off := 0
	next := func() (tokKind, []byte) { // the next token that is not space or a comment
		for {
			k, e := lx.next(off)
			s := off
			off = e
			if k != tSpace && k != tComment {
				return k, src[s:e]
			}
		}
	}
	add := func(name string, lit []byte) {
		if len(lit) < 2 {
			return
		}
		p := string(lit[1 : len(lit)-1]) // "path" or `path`
		if name == "" {
			name = path.Base(p)
			if len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
				name = path.Base(path.Dir(p)) // .../foo/v2 is package foo
			}
		}
		if name != "_" && name != "." {
			imports[name] = p
		}
	}
	// spec reads one import spec whose first token is k, t; false when it
	// is not one.
	spec := func(k tokKind, t []byte) bool {
		name := ""
		if k == tIdent || k == tPunct && string(t) == "." {
			name = string(t)
			k, t = next()
		}
		if k != tString {
			return false
		}
		add(name, t)
		return true
	}
	for {
		k, t := next()
		switch {
		case k == tPunct && string(t) == ";":
		case k == tIdent && string(t) == "package":
			next()
		case k == tIdent && string(t) == "import":
			k, t = next()
			if k != tPunct || string(t) != "(" {
				if !spec(k, t) {
					return imports
				}
				continue
			}
			for {
				k, t = next()
				if k == tPunct && string(t) == ";" {
					continue
				}
				if k == tPunct && string(t) == ")" || !spec(k, t) {
					break
				}
			}
		default:
			return imports
		}
	}
}

// maxDefiners: a name defined in more files than this (String, Error,
// New...) says nothing about which one a use refers to, and would make
// the graph quadratic.
const maxDefiners = 8

// family groups languages whose files use each other's definitions.
func (l *Language) family() string { return l.syn.family }

// scanIdents calls fn with every identifier of src outside comments and
// literals (read by the language's lexer, see lexer.go; a preprocessor
// line's identifiers count), whether it follows a selector (., ->, ::, :)
// and, after a '.', the identifier before it (x in x.name).
func scanIdents(l *Language, src []byte, fn func(id, qual []byte, selector bool)) {
	sx := *l.syn
	sx.preproc, sx.jsx = false, false
	lx := lexer{sx: &sx, src: src}
	for off := 0; off < len(src); {
		k, e := lx.next(off)
		switch k {
		case tEOF:
			return
		case tBad: // an unterminated literal: read on from the next byte
			lx.operand = false
			off++
			continue
		case tIdent:
			s := off
			var qual []byte
			if s > 1 && src[s-1] == '.' && isIdentByte(src[s-2]) {
				q := s - 1
				for q > 0 && isIdentByte(src[q-1]) {
					q--
				}
				qual = src[q : s-1]
			}
			fn(src[s:e], qual, s > 0 && (src[s-1] == '.' || src[s-1] == ':' || src[s-1] == '>'))
		}
		off = e
	}
}

// source returns the current text of an indexed file: its buffer when
// open, else the disk.
func (ix *Index) source(f *fileEntry) []byte {
	if f.open {
		ix.bufMu.Lock()
		b := ix.buffers[f.rel]
		ix.bufMu.Unlock()
		if b != nil {
			return b.src
		}
	}
	src, err := ix.readDisk(f.rel)
	if err != nil {
		return nil
	}
	return src
}

// Map renders the most important definitions under path within lines
// lines: files in order of their best symbol, each followed by its
// symbols with line numbers and signatures.
func (ix *Index) Map(ctx context.Context, path string, lines int) (string, error) {
	return ix.MapFocus(ctx, path, lines, nil)
}

// MapFocus is Map with the ranking personalised toward the focus files
// (rel paths: what the session read or edited; open buffers always count).
func (ix *Index) MapFocus(ctx context.Context, path string, lines int, focus []string) (string, error) {
	ix.followDeny()
	ranked, err := ix.rankedFor(ctx, path, focus)
	if err != nil {
		return "", err
	}
	if lines <= 0 {
		lines = 60
	}
	// Take symbols best first until the lines (headers included) run out.
	byFile := make(map[string][]Ranked)
	var order []string
	used := 0
	for _, r := range ranked {
		if r.Kind == KindField || r.Kind == KindVariable {
			continue
		}
		cost := 1
		if byFile[r.Path] == nil {
			cost++
		}
		if used+cost > lines {
			if used >= lines {
				break
			}
			continue
		}
		if byFile[r.Path] == nil {
			order = append(order, r.Path)
		}
		byFile[r.Path] = append(byFile[r.Path], r)
		used += cost
	}
	var b strings.Builder
	for _, p := range order {
		syms := make([]Symbol, len(byFile[p]))
		for i, r := range byFile[p] {
			syms[i] = r.Symbol
		}
		sort.Slice(syms, func(i, j int) bool { return posLess(syms[i].NameRange.Start, syms[j].NameRange.Start) })
		ix.fill(syms)
		fmt.Fprintf(&b, "%s:\n", p)
		for _, s := range syms {
			fmt.Fprintf(&b, "  %d: %s\n", s.NameRange.Start.Line+1, s.Signature)
		}
	}
	return b.String(), nil
}
