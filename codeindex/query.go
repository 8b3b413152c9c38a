package codeindex

import (
	"bytes"
	"context"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"
)

// Tier says how a search query matched a name, best first.
type Tier uint8

const (
	TierExact Tier = iota
	TierExactFold
	TierPrefix
	TierSubstring
	TierFuzzy
	tierNone
)

// SearchQuery selects symbols by name.
type SearchQuery struct {
	Query string
	Kind  Kind   // 0: any kind
	Path  string // a file or directory prefix, relative to the root; "" or "." for all
	Limit int    // 0: 50
}

// A Match is a symbol found by Search.
type Match struct {
	Symbol
	Tier Tier
}

// Search finds definitions whose names match q.Query: exact, then
// case-insensitive exact, prefix, substring and fuzzy (the query's letters
// in order) matches; within a tier shorter names first, and for one name
// types and functions before fields and variables.
func (ix *Index) Search(q SearchQuery) []Match {
	ix.followDeny()
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	lq := lowerASCII(q.Query)
	prefix := pathPrefix(q.Path)
	type cand struct {
		ne   *nameEntry
		tier Tier
	}
	less := func(a, b cand) int {
		if a.tier != b.tier {
			return int(a.tier) - int(b.tier)
		}
		if len(a.ne.name) != len(b.ne.name) {
			return len(a.ne.name) - len(b.ne.name)
		}
		return strings.Compare(a.ne.name, b.ne.name)
	}
	ix.mu.RLock()
	// Keep the best names only: sort and cut whenever the list grows
	// large.
	keep := 4*limit + 64
	var cands []cand
	worst := cand{tier: tierNone}
	nsyms := 0
	consider := func(ne *nameEntry, t Tier) {
		if len(ne.syms) == 0 || (prefix != "" || q.Kind != 0) && !slices.ContainsFunc(ne.syms, func(r symRef) bool {
			return inPath(r.f.rel, prefix) && (q.Kind == 0 || r.def().Kind == q.Kind)
		}) {
			return
		}
		c := cand{ne, t}
		if worst.ne != nil && less(c, worst) >= 0 {
			return
		}
		cands = append(cands, c)
		nsyms += len(ne.syms)
		if len(cands) >= 4*keep {
			slices.SortFunc(cands, less)
			cands = cands[:keep]
			worst = cands[keep-1]
		}
	}
	// Exact, prefix and substring matches: one scan of the lower-case names.
	if lq != "" && !strings.Contains(lq, "\n") {
		blob := unsafe.String(unsafe.SliceData(ix.blob), len(ix.blob))
		for off, i := 0, 0; ; {
			k := strings.Index(blob[off:], lq)
			if k < 0 {
				break
			}
			hit := off + k
			// The entry holding hit: the last start <= hit.
			n := len(ix.starts)
			base := i
			i = base + sort.Search(n-base, func(j int) bool { return int(ix.starts[base+j]) > hit }) - 1
			ne := ix.entries[i]
			t := TierSubstring
			if hit == int(ix.starts[i]) {
				switch {
				case ne.name == q.Query:
					t = TierExact
				case len(ne.lower) == len(lq):
					t = TierExactFold
				default:
					t = TierPrefix
				}
			}
			consider(ne, t)
			i++
			if i >= n {
				break
			}
			off = int(ix.starts[i])
		}
	}
	// Fuzzy matches only when the better ones are too few: names that start
	// with the query's first letter and hold the rest in order (nr finds
	// NewReader), scanning only the names with that first letter.
	if nsyms < limit && len(lq) >= 2 {
		for _, ne := range ix.byFirst[lq[0]] {
			if !strings.Contains(ne.lower, lq) && fuzzy(ne.lower, lq) {
				consider(ne, TierFuzzy)
			}
		}
	}
	slices.SortFunc(cands, less)
	var out []Match
	for _, c := range cands {
		start := len(out)
		for _, r := range c.ne.syms {
			if d := r.def(); inPath(r.f.rel, prefix) && (q.Kind == 0 || d.Kind == q.Kind) {
				out = append(out, Match{Symbol: d.symbol(r.f.rel), Tier: c.tier})
			}
		}
		group := out[start:]
		sort.Slice(group, func(a, b int) bool { return matchLess(&group[a], &group[b]) })
		if len(out) >= limit {
			out = out[:limit]
			break
		}
	}
	ix.mu.RUnlock()
	ix.fillMatches(out)
	return out
}

// fill sets Signature and Doc of syms from the current text of their files.
// Results are remembered per file entry (an entry is replaced when its file
// changes), so that repeated queries, like a workspace/symbol request per
// keystroke, read no file. The caller must not hold mu.
func (ix *Index) fill(syms []Symbol) {
	type need struct {
		i int
		f *fileEntry
	}
	byPath := make(map[string][]need)
	var order []string
	ix.mu.RLock()
	ix.descMu.Lock()
	for i := range syms {
		s := &syms[i]
		f := ix.files[s.Path]
		if v, ok := ix.desc[descKey{s.Path, s.Name, s.NameRange.Start}]; ok && v.f == f {
			s.Signature, s.Doc = v.sig, v.doc
			continue
		}
		if byPath[s.Path] == nil {
			order = append(order, s.Path)
		}
		byPath[s.Path] = append(byPath[s.Path], need{i, f})
	}
	ix.descMu.Unlock()
	ix.mu.RUnlock()
	for _, p := range order {
		needs := byPath[p]
		l := LanguageFor(p)
		src := ix.textOf(p)
		if l == nil || src == nil {
			continue
		}
		group := make([]Symbol, len(needs))
		for k, n := range needs {
			group[k] = syms[n.i]
		}
		describe(l, src, group)
		ix.descMu.Lock()
		if len(ix.desc) > 1<<14 {
			clear(ix.desc)
		}
		if ix.desc == nil {
			ix.desc = make(map[descKey]descVal)
		}
		for k, n := range needs {
			syms[n.i] = group[k]
			s := &group[k]
			ix.desc[descKey{s.Path, s.Name, s.NameRange.Start}] = descVal{n.f, s.Signature, s.Doc}
		}
		ix.descMu.Unlock()
	}
}

type descKey struct {
	path, name string
	pos        Pos
}

type descVal struct {
	f        *fileEntry // the entry the text was read for
	sig, doc string
}

func (ix *Index) fillMatches(ms []Match) {
	syms := make([]Symbol, len(ms))
	for i := range ms {
		syms[i] = ms[i].Symbol
	}
	ix.fill(syms)
	for i := range ms {
		ms[i].Symbol = syms[i]
	}
}

// textOf returns the text of a file: its buffer when open, else the disk.
func (ix *Index) textOf(rel string) []byte {
	ix.bufMu.Lock()
	b := ix.buffers[rel]
	ix.bufMu.Unlock()
	if b != nil {
		return b.src
	}
	src, err := ix.readDisk(rel)
	if err != nil {
		return nil
	}
	return src
}

func matchLess(a, b *Match) bool {
	if ra, rb := kindRank(a.Kind), kindRank(b.Kind); ra != rb {
		return ra < rb
	}
	if len(a.Name) != len(b.Name) {
		return len(a.Name) < len(b.Name)
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	if a.Path != b.Path {
		return pathLess(a.Path, b.Path)
	}
	return posLess(a.NameRange.Start, b.NameRange.Start)
}

// pathLess orders shallower paths first, then lexically: package roots
// before vendored and test data copies.
func pathLess(a, b string) bool {
	da, db := strings.Count(a, "/"), strings.Count(b, "/")
	if da != db {
		return da < db
	}
	return a < b
}

func kindRank(k Kind) int {
	switch k {
	case KindClass, KindStruct, KindInterface, KindType, KindEnum, KindModule:
		return 0
	case KindFunction, KindMethod, KindMacro:
		return 1
	case KindConstant:
		return 2
	}
	return 3
}

// fuzzy reports whether s starts with the first byte of q and holds the
// others in order.
func fuzzy(s, q string) bool {
	if len(q) > len(s) || len(q) < 2 || s[0] != q[0] {
		return false
	}
	i := 0
	for j := 0; j < len(s) && i < len(q); j++ {
		if s[j] == q[i] {
			i++
		}
	}
	return i == len(q)
}

func pathPrefix(p string) string {
	p = strings.Trim(path.Clean("/"+strings.ReplaceAll(p, "\\", "/")), "/")
	return p
}

func inPath(rel, prefix string) bool {
	return prefix == "" || rel == prefix || strings.HasPrefix(rel, prefix) && rel[len(prefix)] == '/'
}

// Definition finds the definitions of name, or of Container.name; from,
// when not empty, is the file asking: its own definitions come first, then
// those of its directory. With no exact match, a case-insensitive one is
// tried.
func (ix *Index) Definition(name, from string) []Symbol {
	ix.followDeny()
	container := ""
	if i := strings.LastIndexAny(name, ".:#"); i > 0 && i < len(name)-1 {
		container, name = qualifier(strings.TrimRight(name[:i], ".:#")), name[i+1:]
	}
	ix.mu.RLock()
	var out []Symbol
	collect := func(ne *nameEntry) {
		for _, r := range ne.syms {
			if d := r.def(); container == "" || containerMatches(qualifier(d.Container), container) {
				out = append(out, d.symbol(r.f.rel))
			}
		}
	}
	if ne := ix.names[name]; ne != nil {
		collect(ne)
	}
	if len(out) == 0 {
		lower := strings.ToLower(name)
		for _, ne := range ix.names {
			if ne.lower == lower && len(ne.syms) > 0 {
				collect(ne)
			}
		}
	}
	ix.mu.RUnlock()
	sortNear(out, from, func(s *Symbol) (string, Pos) { return s.Path, s.NameRange.Start })
	// The code's own definitions before those of tests, fixtures and
	// vendored code (a test stub of Base is seldom the Base asked for).
	slices.SortStableFunc(out, func(a, b Symbol) int { return cmpBool(isSecondary(a.Path), isSecondary(b.Path)) })
	ix.fill(out)
	return out
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// qualifier writes a container path with "." between its parts, whatever
// the language wrote (A::B, a.b, A#b).
func qualifier(q string) string {
	q = strings.ReplaceAll(q, "::", ".")
	return strings.ReplaceAll(q, "#", ".")
}

// containerMatches reports whether a definition's container (dotted) fits
// the one asked for: equal, or one ends with the other at a part boundary
// (ClassMethods asked, Associations.ClassMethods indexed; a.b.C asked, C
// indexed).
func containerMatches(have, want string) bool {
	return have == want || strings.HasSuffix(have, "."+want) || strings.HasSuffix(want, "."+have) && have != ""
}

// sortNear orders items: those in file from first, then its directory, then
// the rest by path; by position within a file.
func sortNear[T any](items []T, from string, key func(*T) (string, Pos)) {
	fromDir := path.Dir(from)
	rank := func(p string) int {
		switch {
		case from == "":
			return 2
		case p == from:
			return 0
		case path.Dir(p) == fromDir:
			return 1
		}
		return 2
	}
	sort.SliceStable(items, func(i, j int) bool {
		pi, ai := key(&items[i])
		pj, aj := key(&items[j])
		if ri, rj := rank(pi), rank(pj); ri != rj {
			return ri < rj
		}
		if pi != pj {
			return pathLess(pi, pj)
		}
		return posLess(ai, aj)
	})
}

// Outline returns the definitions of one file in order (nested ones
// after their container); Nest makes a tree of them. ok is false when the
// file is not indexed.
func (ix *Index) Outline(p string) (syms []Symbol, ok bool) {
	ix.followDeny()
	rel, _ := ix.paths(p)
	ix.mu.RLock()
	f := ix.files[rel]
	if f == nil {
		ix.mu.RUnlock()
		return nil, false
	}
	syms = symbols(f.defs(), f.rel)
	ix.mu.RUnlock()
	ix.fill(syms)
	return syms, true
}

// Node is a symbol with the symbols nested in it.
type Node struct {
	Symbol
	Children []*Node
}

// Nest builds the tree of a file's symbols by range containment; syms are
// in the order Outline returns them.
func Nest(syms []Symbol) []*Node {
	sorted := append([]Symbol(nil), syms...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i].Range, sorted[j].Range
		if a.Start != b.Start {
			return posLess(a.Start, b.Start)
		}
		return posLess(b.End, a.End)
	})
	var roots []*Node
	var stack []*Node
	for _, s := range sorted {
		n := &Node{Symbol: s}
		for len(stack) > 0 && !contains(stack[len(stack)-1].Range, s.Range) {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, n)
		} else {
			p := stack[len(stack)-1]
			p.Children = append(p.Children, n)
		}
		stack = append(stack, n)
	}
	return nestMembers(roots)
}

// nestMembers puts top-level methods under their type: Go methods with a
// receiver, Rust methods of an impl block, anything whose container is a
// type the file defines. Methods of a type defined elsewhere are grouped
// under one node named after it.
func nestMembers(roots []*Node) []*Node {
	types := map[string]*Node{}
	for _, n := range roots {
		if n.Kind != KindMethod && n.Kind != KindFunction && n.Kind != KindVariable && n.Kind != KindConstant && types[n.Name] == nil {
			types[n.Name] = n
		}
	}
	var out []*Node
	for _, n := range roots {
		c := qualifier(n.Container)
		if i := strings.LastIndexByte(c, '.'); i >= 0 {
			c = c[i+1:]
		}
		if n.Kind != KindMethod || c == "" || types[c] == n {
			out = append(out, n)
			continue
		}
		t := types[c]
		if t == nil {
			t = &Node{Symbol: Symbol{Name: c, Kind: KindType, Path: n.Path, Range: n.Range, NameRange: n.NameRange}}
			types[c] = t
			out = append(out, t)
		}
		t.Children = append(t.Children, n)
		if posLess(t.Range.End, n.Range.End) && t.Range.Start == t.Children[0].Range.Start {
			t.Range.End = n.Range.End // a group spans its methods
		}
	}
	return out
}

func contains(outer, inner Range) bool {
	return !posLess(inner.Start, outer.Start) && !posLess(outer.End, inner.End) && outer != inner
}

// Definitions returns every definition of the index, by path then position
// (for `agentls index`).
func (ix *Index) Definitions() []Symbol {
	ix.followDeny()
	ix.mu.RLock()
	rels := make([]string, 0, len(ix.files))
	n := 0
	for rel, f := range ix.files {
		rels = append(rels, rel)
		n += f.ndefs()
	}
	sort.Strings(rels)
	out := make([]Symbol, 0, n)
	for _, rel := range rels {
		defs := ix.files[rel].defs()
		for i := range defs {
			out = append(out, defs[i].symbol(rel))
		}
	}
	ix.mu.RUnlock()
	return out
}

// RefQuery selects references.
type RefQuery struct {
	Name  string // a name, or Container.name (uses through another receiver are left out)
	Path  string // a file or directory prefix; "" for all
	From  string // the asking file: its references come first, then its directory's
	Limit int    // 0: 100
}

// References finds uses of a name: files that contain it are parsed in
// full (open buffers use their tree) and their references query run, the
// asking file and its directory first, until Limit references are found.
func (ix *Index) References(ctx context.Context, q RefQuery) ([]Ref, error) {
	ix.followDeny()
	name, container := q.Name, ""
	if i := strings.LastIndexAny(name, ".:#"); i >= 0 && i < len(name)-1 {
		container, name = qualifier(strings.TrimRight(name[:i], ".:#")), name[i+1:]
		if j := strings.LastIndexByte(container, '.'); j >= 0 {
			container = container[j+1:] // the innermost part is what a receiver names
		}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	prefix := pathPrefix(q.Path)
	from, _ := ix.paths(q.From)
	if q.From == "" {
		from = ""
	}
	type cand struct {
		rel  string
		lang *Language
	}
	ix.mu.RLock()
	var cands []cand
	for rel, f := range ix.files {
		if inPath(rel, prefix) {
			cands = append(cands, cand{rel, f.lang})
		}
	}
	ix.mu.RUnlock()
	sortNear(cands, from, func(c *cand) (string, Pos) { return c.rel, Pos{} })

	needle := []byte(name)
	var out []Ref
	workers := ix.opts.Workers
	chunk := 8 * workers
	for i := 0; i < len(cands) && len(out) < limit; i += chunk {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		part := cands[i:min(i+chunk, len(cands))]
		results := make([][]Ref, len(part))
		var wg sync.WaitGroup
		next := make(chan int, len(part))
		for k := range part {
			next <- k
		}
		close(next)
		for range min(workers, len(part)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var x *extractor
				defer func() {
					if x != nil {
						x.Close()
					}
				}()
				for k := range next {
					if ctx.Err() != nil {
						continue
					}
					c := part[k]
					if refs, src, ok := ix.bufferRefs(c.rel, name); ok {
						results[k] = byReceiver(refs, src, c.lang, container)
						continue
					}
					src, err := ix.readDisk(c.rel)
					if err != nil || !containsWord(src, needle) {
						continue
					}
					if x == nil {
						x = newExtractor()
					}
					tree, err := x.parse(ctx, c.lang, src, nil)
					if err != nil {
						continue
					}
					defs := x.definitions(c.lang, tree, src, c.rel)
					results[k] = byReceiver(x.references(c.lang, rootOf(tree), src, c.rel, name, defs), src, c.lang, container)
					tree.Close()
				}
			}()
		}
		wg.Wait()
		for _, r := range results {
			out = append(out, r...)
		}
	}
	if container != "" {
		// Uses through the named receiver first, then the asking file's.
		slices.SortStableFunc(out, func(a, b Ref) int {
			return cmpBool(!a.receiverMatch, !b.receiverMatch)*2 + cmpBool(a.Path != from, b.Path != from)
		})
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, ctx.Err()
}

// byReceiver keeps, of the uses of a member of container, those whose
// receiver or qualifier can be it, as far as the text tells: x.name where
// x is the container (any case, underscores aside: Searcher, searcher) is
// kept and marked; Other::name or Other.name with another capitalised
// name is left out; a bare name(…) is left out in languages where a method
// needs a receiver (Go, Rust, Python, JavaScript, TypeScript); anything
// else (self.name, worker.name) is kept, since it cannot be told.
func byReceiver(refs []Ref, src []byte, lang *Language, container string) []Ref {
	if container == "" || len(refs) == 0 {
		return refs
	}
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	want := norm(container)
	lineStarts := []int{0}
	for i, c := range src {
		if c == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	out := refs[:0]
	for _, r := range refs {
		ln := int(r.Range.Start.Line)
		if ln >= len(lineStarts) {
			out = append(out, r)
			continue
		}
		at := min(lineStarts[ln]+int(r.Range.Start.Col), len(src))
		before := src[lineStarts[ln]:at]
		recv, sel := receiverBefore(before)
		switch {
		case sel && recv != "" && norm(recv) == want:
			r.receiverMatch = true
			out = append(out, r)
		case sel && recv != "" && recv[0] >= 'A' && recv[0] <= 'Z':
			// another type's member
		case !sel && needsReceiver(lang):
			// a free function of the same name
		default:
			out = append(out, r)
		}
	}
	return out
}

// receiverBefore reads the text before a name: whether a selector (., ->,
// ::, :) comes right before it, and the identifier before that selector.
func receiverBefore(b []byte) (recv string, selector bool) {
	i := len(b)
	switch {
	case i >= 2 && (string(b[i-2:]) == "::" || string(b[i-2:]) == "->"):
		i -= 2
	case i >= 1 && (b[i-1] == '.' || b[i-1] == ':'):
		i--
	default:
		return "", false
	}
	if i > 0 && b[i-1] == ')' { // new(Searcher).name, (x).name: no name to read
		return "", true
	}
	j := i
	for j > 0 && (isIdentByte(b[j-1])) {
		j--
	}
	return string(b[j:i]), true
}

func needsReceiver(l *Language) bool {
	if l == nil {
		return false
	}
	switch l.Name {
	case "go", "rust", "python", "javascript", "typescript", "tsx":
		return true
	}
	return false
}

// bufferRefs runs the references query on the tree of an open buffer.
func (ix *Index) bufferRefs(rel, name string) ([]Ref, []byte, bool) {
	ix.bufMu.Lock()
	defer ix.bufMu.Unlock()
	b := ix.buffers[rel]
	if b == nil {
		return nil, nil, false
	}
	if !containsWord(b.src, []byte(name)) {
		return nil, nil, true
	}
	if b.pending {
		ix.catchUpLocked(rel, b)
		b = ix.buffers[rel]
	}
	if b.tree.c == nil {
		// Its definitions were read without a parse (passDefs): the
		// tree is made now, and kept until the next change.
		tree, err := ix.bufx.parseTree(b.lang, b.src, ctree{})
		if err != nil {
			return nil, b.src, true
		}
		b.tree = tree
	}
	defs := symbols(ix.bufx.treeDefs(b.lang, b.tree.root(), b.src), rel)
	return ix.bufx.references(b.lang, b.tree.root(), b.src, rel, name, defs), b.src, true
}

// containsWord reports whether w occurs in src as a whole identifier.
func containsWord(src, w []byte) bool {
	for off := 0; ; {
		i := bytes.Index(src[off:], w)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(w)
		if (i == 0 || !isIdentByte(src[i-1])) && (end == len(src) || !isIdentByte(src[end])) {
			return true
		}
		off = i + 1
	}
}

// IdentAt returns the identifier of text around byte offset off (touching
// it on either side), or "".
func IdentAt(text string, off int) string {
	if off < 0 || off > len(text) {
		return ""
	}
	s, e := off, off
	for s > 0 && isIdentByte(text[s-1]) {
		s--
	}
	for e < len(text) && isIdentByte(text[e]) {
		e++
	}
	return text[s:e]
}

// NameAt returns the identifier at a position of a file (line 0-based, col
// a byte offset), read from its buffer or the disk; "" when there is none.
func (ix *Index) NameAt(p string, line, col int) string {
	ix.settle()
	rel, abs := ix.paths(p)
	var src []byte
	ix.bufMu.Lock()
	if b := ix.buffers[rel]; b != nil {
		src = b.src
	}
	ix.bufMu.Unlock()
	if src == nil {
		var err error
		if src, _, err = ix.ws.ReadRaw(abs); err != nil {
			return ""
		}
	}
	for ; line > 0; line-- {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return ""
		}
		src = src[i+1:]
	}
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		src = src[:i]
	}
	if col > len(src) {
		return ""
	}
	s, e := col, col
	for s > 0 && isIdentByte(src[s-1]) {
		s--
	}
	for e < len(src) && isIdentByte(src[e]) {
		e++
	}
	return string(src[s:e])
}
