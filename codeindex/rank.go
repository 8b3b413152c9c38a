package codeindex

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path"
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

	// Identifier counts per file, in parallel.
	uses := make([]map[string]int, len(files))
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
				m := make(map[string]int)
				scanIdents(files[i].lang, src, func(id []byte, selector bool) {
					_, top := definers[string(id)]
					if selector {
						// x.name: a member, or a name of package or module x.
						if _, member := definers["."+string(id)]; member || top {
							m["."+string(id)]++
						}
					} else if top {
						m[string(id)]++
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
		for k, c := range m {
			name := strings.TrimPrefix(k, ".")
			d := definers[name]
			if name != k {
				d = append(d[:len(d):len(d)], definers[k]...)
			}
			if len(d) > maxDefiners {
				continue // too common a name to tell anything
			}
			w := math.Sqrt(float64(c)) / float64(len(d))
			// In Go an unqualified name is of the file's own package.
			samePkg := name == k && files[a].lang.Name == "go"
			for _, b := range d {
				if b == int32(a) || files[b].lang.family() != files[a].lang.family() ||
					samePkg && path.Dir(files[b].rel) != path.Dir(files[a].rel) {
					continue
				}
				out[a] = append(out[a], edge{b, name, w})
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
	// Share each edge's rank out to the definitions of its name.
	type key struct {
		file int32
		name string
	}
	score := make(map[key]float64)
	for a, es := range out {
		for _, e := range es {
			score[key{e.to, e.name}] += rank[a] * e.w / outW[a]
		}
	}
	var ranked []Ranked
	for i, f := range files {
		for _, s := range f.syms {
			if sc := score[key{int32(i), s.Name}]; sc > 0 {
				ranked = append(ranked, Ranked{Symbol: s, Score: sc})
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
// string literals (a lexical approximation that works for every language
// indexed: line comments by the language's markers, /* */ blocks, quotes),
// and whether it follows a selector (., ->, ::, :).
func scanIdents(l *Language, src []byte, fn func(id []byte, selector bool)) {
	block := l.comments[0] == "//"
	for off := 0; off < len(src); {
		c := src[off]
		switch {
		case isIdentByte(c):
			s := off
			for off < len(src) && isIdentByte(src[off]) {
				off++
			}
			if c < '0' || c > '9' {
				fn(src[s:off], s > 0 && (src[s-1] == '.' || src[s-1] == ':' || src[s-1] == '>'))
			}
			continue
		case c == '"' || c == '\'' || c == '`':
			if c == '`' {
				if i := bytes.IndexByte(src[off+1:], '`'); i >= 0 {
					off += i + 2
					continue
				}
				off++
				continue
			}
			off = skipQuoted(src, off, c)
			continue
		case block && c == '/' && off+1 < len(src) && src[off+1] == '*':
			if i := bytes.Index(src[off+2:], []byte("*/")); i >= 0 {
				off += i + 4
			} else {
				off = len(src)
			}
			continue
		case l.lineComment(src[off:]) != "":
			if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
				off += i
			} else {
				off = len(src)
			}
			continue
		}
		off++
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
	src, err := readDisk(ix.abs(f.rel))
	if err != nil {
		return nil
	}
	return src
}

// Map renders the most important definitions under path within lines
// lines: files in order of their best symbol, each followed by its
// symbols with line numbers and signatures.
func (ix *Index) Map(ctx context.Context, path string, lines int) (string, error) {
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
