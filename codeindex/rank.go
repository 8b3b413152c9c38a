package codeindex

import (
	"context"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
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
	ranked []Ranked // all definitions that other files use, best first
}

// Ranked returns the definitions used from other files, most important
// first, under path (a file or directory prefix; "" for all). References
// are counted lexically (identifiers equal to a defined name), which is
// what a ranking needs and costs one pass over the files; the result is
// kept until the index changes.
func (ix *Index) Ranked(ctx context.Context, path string) ([]Ranked, error) {
	ix.followDeny()
	all, err := ix.rankAll(ctx)
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

func (ix *Index) rankAll(ctx context.Context) ([]Ranked, error) {
	rc := &ix.rank
	rc.mu.Lock()
	defer rc.mu.Unlock()
	ix.mu.RLock()
	gen := ix.gen
	if rc.ranked != nil && rc.gen == gen {
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
		if isTestData(f.rel) {
			continue // fixtures define names they do not own (func nil, type int)
		}
		for _, s := range f.syms {
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
	goModule := goModulePath(filepath.Join(ix.ws.Root(), "go.mod"))
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
				isGo := files[i].lang.Name == "go"
				var imports map[string]string
				if isGo {
					imports = goImports(src)
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
							if dir, ok := strings.CutPrefix(imp, goModule+"/"); ok && goModule != "" && top {
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
	out := make([][]edge, len(files))
	outW := make([]float64, len(files))
	for a, m := range uses {
		isGo := files[a].lang.Name == "go"
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
			if len(d) > maxDefiners {
				continue // too common a name to tell anything
			}
			w := math.Sqrt(float64(c)) / float64(len(d))
			for _, b := range d {
				rb := files[b].rel
				switch {
				case b == int32(a), files[b].lang.family() != files[a].lang.family():
					continue
				case isGo && u.how == useName && path.Dir(rb) != dirA: // unqualified: this package
					continue
				case u.how == usePackage && path.Dir(rb) != u.dir:
					continue
				}
				out[a] = append(out[a], edge{b, u.name, w})
				outW[a] += w
			}
		}
	}
	n := float64(len(files))
	rank := make([]float64, len(files))
	for i := range rank {
		rank[i] = 1 / n
	}
	const damping = 0.85
	for range 20 {
		nr := make([]float64, len(files))
		dangling := 0.0
		for a, es := range out {
			if outW[a] == 0 {
				dangling += rank[a]
				continue
			}
			for _, e := range es {
				nr[e.to] += damping * rank[a] * e.w / outW[a]
			}
		}
		for i := range nr {
			nr[i] += (1-damping)/n + damping*dangling/n
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
	for a, es := range out {
		for _, e := range es {
			// A small family of files (a few scripts beside a Go module) passes
			// all its rank through few edges; weigh it by its share of files.
			score[key{e.to, e.name}] += rank[a] * e.w / outW[a] * share[files[a].lang.family()]
		}
	}
	var ranked []Ranked
	for i, f := range files {
		for _, s := range f.syms {
			if sc := score[key{int32(i), s.Name}]; sc > 0 {
				ranked = append(ranked, Ranked{Symbol: s.symbol(f.rel), Score: sc})
			}
		}
	}
	sort.SliceStable(ranked, func(i, j int) bool {
		if ranked[i].Score != ranked[j].Score {
			return ranked[i].Score > ranked[j].Score
		}
		return ranked[i].Path < ranked[j].Path
	})
	rc.gen, rc.ranked = gen, ranked
	return ranked, nil
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
// with (the alias, or the last element of the path).
func goImports(src []byte) map[string]string {
	imports := make(map[string]string)
	add := func(spec string) {
		f := strings.Fields(spec)
		if len(f) == 0 {
			return
		}
		p := strings.Trim(f[len(f)-1], `"`+"`")
		name := path.Base(p)
		if len(f) >= 2 {
			name = f[0]
		} else if strings.HasPrefix(name, "v") && len(name) > 1 && name[1] >= '0' && name[1] <= '9' {
			name = path.Base(path.Dir(p)) // .../foo/v2 is package foo
		}
		if name != "_" && name != "." {
			imports[name] = p
		}
	}
	inBlock := false
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case inBlock && line == ")":
			inBlock = false
		case inBlock:
			add(line)
		case line == "import (":
			inBlock = true
		case strings.HasPrefix(line, "import "):
			add(strings.TrimPrefix(line, "import "))
		case strings.HasPrefix(line, "func ") || strings.HasPrefix(line, "type ") || strings.HasPrefix(line, "var ") || strings.HasPrefix(line, "const "):
			return imports // imports come first
		}
	}
	return imports
}

// maxDefiners: a name defined in more files than this (String, Error,
// New...) says nothing about which one a use refers to, and would make
// the graph quadratic.
const maxDefiners = 8

// family groups languages whose files use each other's definitions.
func (l *Language) family() string {
	switch l.Name {
	case "javascript", "typescript", "tsx":
		return "js"
	case "c", "cpp":
		return "c"
	}
	return l.Name
}

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
	ix.followDeny()
	ranked, err := ix.Ranked(ctx, path)
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
