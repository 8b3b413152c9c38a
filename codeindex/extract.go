package codeindex

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/agentls/agentls/workspace"
)

// An extractor parses files and runs the tags queries. It owns one parser
// per language and one query cursor: tree-sitter parsers and cursors are not
// safe for concurrent use, so each goroutine has its own extractor and
// closes it when done.
type extractor struct {
	parsers map[*Language]*sitter.Parser
	qc      *sitter.QueryCursor
	caps    []capture // reused by runQuery
	part    []capture // reused by runDefsRange
	sk      skelOut   // reused by skeletonDefs
	// skState says, within one skeletonDefs, whether a buildPass that
	// gave up has built the file's skeleton already (x.sk): 1 it has, -1
	// the file has none, 0 not tried. parseDefs then does not build it
	// again.
	skState int8
	raw     []rawDef // reused by collect
	stack   []*rawDef
	text    []byte
	buf     []byte    // reused by read
	lua     luaParser // reused by luaDefs
	luaIDs  *luaIDs   // the capture ids of Lua's patterns, on first use
	fr      *workspace.FileReader

	rust    rustReader // reused by rustDefs
	rustIDs *rustIDs   // the capture ids of Rust's patterns, on first use

	cs    csReader // reused by csDefs
	csIDs *csIDs   // the capture ids of C#'s patterns, on first use

	js    jsReader // reused by jsDefs
	jsIDs *jsIDs   // the capture ids of JavaScript's patterns, on first use

	py    pyReader // reused by pyDefs
	pyIDs *pyIDs   // the capture ids of Python's patterns, on first use

	java    javaReader // reused by javaDefs
	javaIDs *javaIDs   // the capture ids of Java's patterns, on first use
}

func newExtractor() *extractor {
	return &extractor{
		parsers: make(map[*Language]*sitter.Parser),
		qc:      sitter.NewQueryCursor(),
	}
}

// Close frees the parsers and the cursor.
func (x *extractor) Close() {
	for _, p := range x.parsers {
		p.Close()
	}
	x.parsers = nil
	x.qc.Close()
	if x.fr != nil {
		x.fr.Close()
	}
}

func (x *extractor) parser(l *Language) (*sitter.Parser, error) {
	if err := l.load(); err != nil {
		return nil, err
	}
	p := x.parsers[l]
	if p == nil {
		p = sitter.NewParser()
		p.SetLanguage(l.lang)
		x.parsers[l] = p
	}
	return p, nil
}

// parse parses src, reusing old (already edited) when not nil.
func (x *extractor) parse(ctx context.Context, l *Language, src []byte, old *sitter.Tree) (*sitter.Tree, error) {
	p, err := x.parser(l)
	if err != nil {
		return nil, err
	}
	defer l.parsing()()
	if safe, changed := rubySafe(l, src); changed {
		return p.ParseCtx(ctx, nil, safe) // (old from another text cannot serve)
	}
	return p.ParseCtx(ctx, old, src)
}

type rawDef struct {
	name       string
	nameAt     [2]uint32 // the name and container in the extractor's text
	contAt     [2]uint32
	contRng    [2]uint32 // bytes of the container in the file
	kind       Kind
	inner      bool   // see emit
	container  string // explicit
	scope      bool   // a container only, not a symbol
	pattern    uint16
	start, end uint32 // bytes of the definition
	rng        sitter.Range
	nameRng    sitter.Range
}

// skeletonDefs returns the definitions of a file from a parse of only
// what holds them, where the language can tell (see Language.skeleton):
// the skeleton's text is parsed and queried in one cgo call, and the
// captures mapped back to the file.
//
// A panic in reading the text (a bug, in a reader of any file of the
// workspace) is an error: the file is left out, the server goes on.
func (x *extractor) skeletonDefs(l *Language, src []byte) (defs []def, err error) {
	defer func() {
		if r := recover(); r != nil {
			defs, err = nil, fmt.Errorf("reading the %s definitions failed: %v", l.Name, r)
		}
	}()
	if defs, ok := x.passDefs(l, src); ok {
		return defs, nil
	}
	x.skState = 0
	if l.buildPass != nil && l.load() == nil && l.buildPass(x, l, src) {
		return x.collect(l, src, &x.sk), nil // the captures of its skeleton, mapped
	}
	st := x.skState
	x.skState = 0
	return x.parseDefsOf(l, src, st)
}

// buildSkeleton builds the skeleton of src into x.sk for a buildPass,
// and notes it for parseDefsOf should the pass give up.
func (x *extractor) buildSkeleton(l *Language, src []byte) bool {
	ok := l.skeleton(&x.sk, src)
	x.skState = -1
	if ok {
		x.skState = 1
	}
	return ok
}

// passDefs returns the definitions of a file found by its language's
// defsPass, without a parse; ok is false when the language has none or
// it cannot read the file.
func (x *extractor) passDefs(l *Language, src []byte) (defs []def, ok bool) {
	if l.defsPass == nil || l.load() != nil || !l.defsPass(x, l, src) {
		return nil, false
	}
	return x.collect(l, src, nil), true
}

// parseDefs is skeletonDefs by a parse (of the skeleton, where the
// language has one), without the language's defsPass.
func (x *extractor) parseDefs(l *Language, src []byte) ([]def, error) {
	return x.parseDefsOf(l, src, 0)
}

// parseDefsOf is parseDefs, given skState: whether x.sk holds src's
// skeleton already (1), src has none (-1), or it is to be built (0).
func (x *extractor) parseDefsOf(l *Language, src []byte, skState int8) ([]def, error) {
	p, err := x.parser(l)
	if err != nil {
		return nil, err
	}
	text := src
	sk := skState == 1 || skState == 0 && l.skeleton != nil && l.skeleton(&x.sk, src)
	if sk {
		text = x.sk.buf
	}
	text, _ = rubySafe(l, text)
	unlock := l.parsing()
	if l.walk.c != nil {
		x.caps, err = parseWalk(p, text, l.walk, l.defDepth(), x.caps)
	} else {
		x.caps, err = parseRun(p, text, x.qc, l.defs, l.defDepth(), x.caps) // load compiled it
	}
	unlock()
	if err != nil {
		return nil, err
	}
	if !sk {
		return x.collect(l, src, nil), nil
	}
	for i := range x.caps {
		x.sk.toFile(&x.caps[i].rng)
	}
	return x.collect(l, src, &x.sk), nil
}

func (l *Language) defDepth() uint32 {
	if l.maxDepth > 0 {
		return l.maxDepth
	}
	return anyDepth
}

// definitions runs the definitions query of l on tree.
func (x *extractor) definitions(l *Language, tree *sitter.Tree, src []byte, path string) []Symbol {
	return symbols(x.treeDefs(l, rootOf(tree), src), path)
}

// treeDefs finds the definitions of l in the tree of root (the walk, or
// the query where the walk cannot take the patterns).
func (x *extractor) treeDefs(l *Language, root node, src []byte) []def {
	x.caps = x.defCaptures(l, root, 0, math.MaxUint32, true)
	return x.collect(l, src, nil)
}

// defCaptures returns the captures of the definitions patterns of l in
// the tree of root over bytes [lo, hi) as runQueryRange does: with the
// walk, or the query where the walk cannot take the patterns.
func (x *extractor) defCaptures(l *Language, root node, lo, hi uint32, within bool) []capture {
	if l.walk.c != nil {
		return walkRange(l.walk, root, l.defDepth(), lo, hi, within, x.caps)
	}
	return runQueryRange(x.qc, l.defs, root, l.defDepth(), lo, hi, within, x.caps) // load compiled it
}

// maxDescend is how deep changedDefs looks for the changed spans below
// the root (see agentls_spans).
const maxDescend = 48

// changedDefs returns the definitions of tree, an incremental parse of old
// after edit e, from prev (the definitions of old, before the edit):
// the query runs only over the parts that the edit touches or that the
// parse made anew (changedSpans: children of the root, or of the node
// holding the edit, a class or a function, when the edit lies inside
// one), and the definitions after the edit move with it. ok is false when
// a definition of prev crosses a boundary of those spans, or the
// definitions around them changed (the caller then queries the whole
// tree).
func (x *extractor) changedDefs(l *Language, old, tree ctree, src []byte, e sitter.EditInput, prev []def) (syms []def, ok bool) {
	if syms, ok = x.changedDefsIn(l, old, tree, src, e, prev); ok {
		return syms, true
	}
	// The definitions around the edit changed (a name typed in, a
	// definition's start or end moved): the edit taken as the whole of
	// the innermost definition of prev around it, then of the one
	// around that, costs what those hold instead of the whole tree.
	for range maxWiden {
		w, ok := widenEdit(prev, src, e)
		if !ok {
			return nil, false
		}
		e = w
		if syms, ok = x.changedDefsIn(l, old, tree, src, e, prev); ok {
			return syms, true
		}
	}
	return nil, false
}

// maxWiden is how many times changedDefs widens an edit to the definition
// around it before it gives up.
const maxWiden = 2

// widenEdit returns e (an edit that turned the text of prev into src)
// widened to the whole of the innermost definition of prev that holds it
// (and is larger), as an edit of the same texts: the text outside it is
// the same in both. ok is false when no definition holds e, or one is
// not where prev says (positions past the text).
func widenEdit(prev []def, src []byte, e sitter.EditInput) (w sitter.EditInput, ok bool) {
	start := Pos{e.StartPoint.Row, e.StartPoint.Column}
	oldEnd := Pos{e.OldEndPoint.Row, e.OldEndPoint.Column}
	newEnd := Pos{e.NewEndPoint.Row, e.NewEndPoint.Column}
	var best *def
	for i := range prev {
		d := &prev[i]
		if posLess(start, d.Range.Start) || posLess(d.Range.End, oldEnd) || d.Range.Start == start && d.Range.End == oldEnd {
			continue
		}
		if best == nil || !posLess(d.Range.Start, best.Range.Start) && !posLess(best.Range.End, d.Range.End) {
			best = d
		}
	}
	if best == nil {
		return e, false
	}
	// The definition's start, before the edit: back from the edit's
	// start, in text the edit left alone.
	a := int(e.StartIndex)
	for row := e.StartPoint.Row; row > best.Range.Start.Line; row-- {
		k := bytes.LastIndexByte(src[:a], '\n')
		if k < 0 {
			return e, false
		}
		a = k
	}
	if best.Range.Start.Line < e.StartPoint.Row {
		a++ // the line's start
	} else {
		a -= int(e.StartPoint.Column) // a line's start
	}
	a += int(best.Range.Start.Col)
	// Its end, after the edit: forward from the edit's new end.
	np := movePos(best.Range.End, oldEnd, newEnd)
	c := int(e.NewEndIndex)
	if np.Line == newEnd.Line {
		c += int(np.Col - newEnd.Col)
	} else {
		for row := newEnd.Line; row < np.Line; row++ {
			k := bytes.IndexByte(src[c:], '\n')
			if k < 0 {
				return e, false
			}
			c += k + 1
		}
		c += int(np.Col)
	}
	delta := int(e.NewEndIndex) - int(e.OldEndIndex)
	if a < 0 || a > int(e.StartIndex) || c < int(e.NewEndIndex) || c > len(src) || c-delta < a {
		return e, false
	}
	return sitter.EditInput{
		StartIndex:  uint32(a),
		OldEndIndex: uint32(c - delta),
		NewEndIndex: uint32(c),
		StartPoint:  sitter.Point{Row: best.Range.Start.Line, Column: best.Range.Start.Col},
		OldEndPoint: sitter.Point{Row: best.Range.End.Line, Column: best.Range.End.Col},
		NewEndPoint: sitter.Point{Row: np.Line, Column: np.Col},
	}, true
}

// changedDefsIn is changedDefs for the edit e as it is.
func (x *extractor) changedDefsIn(l *Language, old, tree ctree, src []byte, e sitter.EditInput, prev []def) (syms []def, ok bool) {
	descend := uint32(maxDescend)
	if l.maxDepth > 0 {
		descend = 0 // definitions are near the root: its children are small
	}
	spans, depth := changedSpans(old, tree, e, descend)
	if spans == nil || len(spans) > 32 {
		return nil, false
	}
	start := Pos{e.StartPoint.Row, e.StartPoint.Column}
	oldEnd := Pos{e.OldEndPoint.Row, e.OldEndPoint.Column}
	newEnd := Pos{e.NewEndPoint.Row, e.NewEndPoint.Column}
	shift := func(p Pos) Pos { return movePos(p, oldEnd, newEnd) }   // p at or after the edit's old end
	unshift := func(p Pos) Pos { return movePos(p, newEnd, oldEnd) } // p at or after the edit's new end
	// The spans in the old text: each is before the edit, after it, or
	// holds it.
	olds := make([]Range, len(spans))
	for i, s := range spans {
		switch {
		case !posLess(start, s.lop) && !posLess(s.hip, newEnd): // holds the edit
			olds[i] = Range{s.lop, unshift(s.hip)}
		case !posLess(start, s.hip): // before it
			olds[i] = Range{s.lop, s.hip}
		case !posLess(s.lop, newEnd): // after it
			olds[i] = Range{unshift(s.lop), unshift(s.hip)}
		default:
			return nil, false
		}
	}
	// The definitions of prev outside the spans, in runs copied whole
	// (keystrokes in a file of thousands of definitions copy them all).
	const (
		drop = iota
		keep // before the edit
		move // after it
	)
	syms = make([]def, 0, len(prev)+8)
	run, runAct := 0, drop
	flush := func(end int) {
		if runAct == drop || run == end {
			return
		}
		n := len(syms)
		syms = append(syms, prev[run:end]...)
		if runAct == move {
			for i := n; i < len(syms); i++ {
				d := &syms[i]
				d.Range = Range{shift(d.Range.Start), shift(d.Range.End)}
				d.NameRange = Range{shift(d.NameRange.Start), shift(d.NameRange.End)}
			}
		}
	}
	for i := range prev {
		s := &prev[i]
		in, around := false, false
		for _, r := range olds {
			if !posLess(r.Start, s.Range.End) || !posLess(s.Range.Start, r.End) {
				continue // apart (touching ends are apart)
			}
			if !posLess(s.Range.Start, r.Start) && !posLess(r.End, s.Range.End) {
				in = true
				break
			}
			if depth > 0 && posLess(s.Range.Start, r.Start) && !posLess(s.Range.End, r.End) {
				around = true // a definition the spans lie in (a class)
				continue
			}
			// A span that starts where the definition does is that
			// definition made anew (its end moved: a body emptied), not
			// one inside it: it goes across, as any other boundary.

			return nil, false // across a boundary
		}
		act := drop
		switch {
		case in:
		case around:
			// It holds the edit: its end moves, its name stays out of it.
			if !posLess(s.Range.Start, start) || posLess(s.Range.End, oldEnd) {
				return nil, false
			}
			d := *s
			d.Range.End = shift(d.Range.End)
			switch {
			case !posLess(start, d.NameRange.End):
			case !posLess(d.NameRange.Start, oldEnd):
				d.NameRange = Range{shift(d.NameRange.Start), shift(d.NameRange.End)}
			default:
				return nil, false
			}
			flush(i)
			syms = append(syms, d)
			run, runAct = i+1, drop
			continue
		case !posLess(start, s.Range.End): // before the edit
			act = keep
		case !posLess(s.Range.Start, oldEnd): // after it
			act = move
		default:
			return nil, false
		}
		if act != runAct {
			flush(i)
			run, runAct = i, act
		}
	}
	flush(len(prev))
	// Moved by the edit or not, they keep their order (by the start of
	// their names: those after the edit all move alike); what the spans
	// give is merged in.
	var added []def
	queried := false
	if depth == 0 {
		for _, s := range spans {
			if s.lo >= s.hi {
				continue
			}
			if !x.runDefsRange(l, tree.root(), s.lo, s.hi, true) {
				return nil, false
			}
			added = append(added, x.collect(l, src, nil)...)
		}
	} else {
		// The spans lie in nodes that old has too (a class, a function):
		// the definitions and scopes around the edit, the containers of
		// what the spans hold and of what prev gives outside them, must
		// be old's, else the whole tree is queried again.
		lo, hi := e.StartIndex, e.NewEndIndex
		if !x.runDefsRange(l, old.root(), lo, hi, false) {
			return nil, false
		}
		was, okOld := x.around(l, src, lo, hi)
		if !okOld {
			return nil, false
		}
		for _, s := range spans {
			if s.lo >= s.hi {
				continue
			}
			if !x.runDefsRange(l, tree.root(), s.lo, s.hi, false) {
				return nil, false
			}
			raw := x.raws(l, src, nil)
			keep := raw[:0]
			var is []rawDef
			for _, d := range raw {
				switch {
				case d.start >= s.lo && d.end <= s.hi && d.nameRng.StartByte >= s.lo && d.nameRng.EndByte <= s.hi:
					d.inner = true
					keep = append(keep, d)
				case d.start < lo && d.end > hi:
					if d.nameRng.EndByte >= lo && d.nameRng.StartByte <= hi || d.contRng[1] > d.contRng[0] && d.contRng[1] >= lo && d.contRng[0] <= hi {
						return nil, false // its name or container is in the edit
					}
					keep = append(keep, d)
					is = append(is, d)
				case d.end <= s.lo || d.start >= s.hi:
					// Beside the span, in a subtree taken over from old.
				default:
					return nil, false
				}
			}
			if !sameAround(was, is) {
				return nil, false
			}
			added = append(added, x.emit(l, keep, true)...)
			queried = true
		}
		if !queried {
			return nil, false // nothing checked the definitions around the edit
		}
	}
	slices.SortStableFunc(added, cmpNameStart)
	return mergeDefs(syms, added), true
}

// mergeDefs merges added into syms, both in order by the start of their
// names, as a stable sort of syms then added would: in place, moving the
// definitions of syms after each one added at once.
func mergeDefs(syms, added []def) []def {
	n, m := len(syms), len(added)
	if m == 0 {
		return syms
	}
	syms = slices.Grow(syms, m)[:n+m]
	hi := n // syms[:hi] are not yet moved
	for k := m - 1; k >= 0; k-- {
		d := &added[k]
		pos := sort.Search(hi, func(i int) bool { return cmpNameStart(syms[i], *d) > 0 })
		copy(syms[pos+k+1:hi+k+1], syms[pos:hi])
		syms[pos+k] = *d
		hi = pos
	}
	return syms
}

// around returns the definitions and scopes of x.caps (a query of old,
// edited, over the edit [lo, hi)) that hold the edit, with their names
// read from src (the new text: they lie outside the edit); ok is false
// when one's name or container is in the edit.
func (x *extractor) around(l *Language, src []byte, lo, hi uint32) (out []rawDef, ok bool) {
	for _, c := range x.caps {
		if c.rng.EndByte > uint32(len(src)) || c.rng.StartByte > c.rng.EndByte {
			return nil, false
		}
	}
	for _, d := range x.raws(l, src, nil) {
		if d.start < lo && d.end > hi {
			if d.nameRng.EndByte >= lo && d.nameRng.StartByte <= hi || d.contRng[1] > d.contRng[0] && d.contRng[1] >= lo && d.contRng[0] <= hi {
				return nil, false
			}
			out = append(out, d)
		}
	}
	return out, true
}

// sameAround reports whether the definitions around the edit are the same
// before and after it (outer ones first in both).
func sameAround(a, b []rawDef) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		p, q := &a[i], &b[i]
		if p.name != q.name || p.kind != q.kind || p.scope != q.scope || p.container != q.container ||
			p.start != q.start || p.end != q.end || p.nameRng.StartByte != q.nameRng.StartByte || p.pattern != q.pattern {
			return false
		}
	}
	return true
}

// collect makes the definitions of a file from the captures of its
// definitions query (x.caps), moving ends and starts by the fixes of sk
// (the skeleton the captures come from; nil: none).
func (x *extractor) collect(l *Language, src []byte, sk *skelOut) []def {
	return x.emit(l, x.raws(l, src, sk), false)
}

// raws makes the matches of the captures of a definitions query (x.caps)
// definitions and scopes, one per name node, outer ones first.
func (x *extractor) raws(l *Language, src []byte, sk *skelOut) []rawDef {
	// The names and containers go into one string per file (x.text, then
	// text): one allocation instead of one per string.
	raw := x.raw[:0]
	x.text = x.text[:0]
	for i := 0; i < len(x.caps); {
		m := x.caps[i].match
		var d rawDef
		named, hasDef := false, false
		for ; i < len(x.caps) && x.caps[i].match == m; i++ {
			c := &x.caps[i]
			d.pattern = c.pattern
			info := l.defInfo[c.index]
			switch info.role {
			case capName:
				d.nameRng = c.rng
				if l.syn.leadingComments {
					// The name may start where the comments before it
					// do (after the previous token), and a skeleton
					// leaves them out.
					l.syn.skipComments(src, &d.nameRng)
				}
				name := trimName(src, &d.nameRng)
				d.nameAt = [2]uint32{uint32(len(x.text)), uint32(len(x.text) + len(name))}
				x.text = append(x.text, name...)
				named = true
			case capDef:
				d.kind = info.kind
				d.rng = c.rng
				if sk != nil {
					fixEnd(sk.fixes, &d.rng)
					fixStart(sk.starts, &d.rng)
				}
				if l.syn.leadingComments {
					l.syn.skipComments(src, &d.rng)
				}
				hasDef = true
			case capScope:
				d.scope = true
				d.rng = c.rng
				hasDef = true
			case capContainer:
				r := c.rng
				if l.syn.leadingComments {
					l.syn.skipComments(src, &r) // as for the name
				}
				d.contRng = [2]uint32{r.StartByte, r.EndByte}
				d.contAt = [2]uint32{uint32(len(x.text)), uint32(len(x.text)) + r.EndByte - r.StartByte}
				x.text = append(x.text, src[r.StartByte:r.EndByte]...)
			}
		}
		if !named || !hasDef || d.nameAt[0] == d.nameAt[1] {
			continue
		}
		if l.syn.reserved != nil && l.syn.reserved[string(x.text[d.nameAt[0]:d.nameAt[1]])] {
			continue // a keyword: the grammar's reading of an annotation comment
		}
		d.start, d.end = d.rng.StartByte, d.rng.EndByte
		raw = append(raw, d)
	}
	x.raw = raw
	if len(raw) == 0 {
		return raw
	}
	text := string(x.text)
	for i := range raw {
		d := &raw[i]
		d.name = text[d.nameAt[0]:d.nameAt[1]]
		d.container = text[d.contAt[0]:d.contAt[1]]
	}
	// One symbol per name node: the first pattern that matched it wins.
	slices.SortFunc(raw, func(a, b rawDef) int {
		if a.nameRng.StartByte != b.nameRng.StartByte {
			return cmp.Compare(a.nameRng.StartByte, b.nameRng.StartByte)
		}
		if a.scope != b.scope {
			if b.scope { // a definition before a scope on the same name
				return -1
			}
			return 1
		}
		return cmp.Compare(a.pattern, b.pattern)
	})
	uniq := raw[:1]
	for _, d := range raw[1:] {
		last := &uniq[len(uniq)-1]
		if d.nameRng.StartByte == last.nameRng.StartByte && d.scope == last.scope {
			continue
		}
		uniq = append(uniq, d)
	}
	raw = uniq
	// Containers by nesting: outer definitions first.
	slices.SortStableFunc(raw, func(a, b rawDef) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		return cmp.Compare(b.end, a.end)
	})
	return raw
}

// emit makes symbols of raws (outer ones first), the innermost definition
// or scope around each its container; with innerOnly, only of those
// marked inner (the others give the containers).
func (x *extractor) emit(l *Language, raw []rawDef, innerOnly bool) []def {
	if len(raw) == 0 {
		return nil
	}
	syms := make([]def, 0, len(raw))
	stack := x.stack[:0]
	for i := range raw {
		d := &raw[i]
		for len(stack) > 0 && stack[len(stack)-1].end <= d.start {
			stack = stack[:len(stack)-1]
		}
		var parent *rawDef
		for j := len(stack) - 1; j >= 0; j-- {
			if p := stack[j]; p.start != d.start || p.end != d.end {
				parent = p
				break
			}
		}
		stack = append(stack, d)
		if d.scope || innerOnly && !d.inner {
			continue
		}
		kind, container := d.kind, d.container
		if container == "" && parent != nil {
			container = parent.name
		}
		switch {
		case kind == KindFunction && parent != nil && (parent.scope || parent.kind.isContainer() && parent.kind != KindModule):
			kind = KindMethod
		case kind == KindMethod && parent == nil && d.container == "" && l.topMethodIsFunction:
			kind = KindFunction
		case kind == KindVariable && isAllCaps(d.name) && l.capsConstants:
			kind = KindConstant
		}
		syms = append(syms, def{
			Name:      d.name,
			Kind:      kind,
			Container: container,
			Range:     toRange(d.rng),
			NameRange: toRange(d.nameRng),
		})
	}
	clear(stack)
	x.stack = stack[:0]
	slices.SortStableFunc(syms, cmpNameStart)
	return syms
}

// cmpNameStart orders definitions by the start of their names.
func cmpNameStart(a, b def) int {
	if a.NameRange.Start == b.NameRange.Start {
		return 0
	}
	if posLess(a.NameRange.Start, b.NameRange.Start) {
		return -1
	}
	return 1
}

// references runs the references query of l on the tree of root. When want is not
// empty only references to that name are returned. Positions in defs (the
// names of definitions) are not references.
func (x *extractor) references(l *Language, root node, src []byte, path, want string, defs []Symbol) []Ref {
	isDef := make(map[Pos]bool, len(defs))
	for _, d := range defs {
		isDef[d.NameRange.Start] = true
	}
	q, refInfo, err := l.refsQuery()
	if err != nil {
		return nil // the query's text is the package's (TestWalkCompiles compiles it)
	}
	x.caps = runQuery(x.qc, q, root, anyDepth, x.caps)
	var refs []Ref
	seen := make(map[uint32]bool)
	for i := 0; i < len(x.caps); {
		m := x.caps[i].match
		var name *sitter.Range
		kind := KindRef
		for ; i < len(x.caps) && x.caps[i].match == m; i++ {
			c := &x.caps[i]
			info := refInfo[c.index]
			switch info.role {
			case capName:
				name = &c.rng
			case capRef:
				kind = info.kind
				if kind == KindType {
					kind = KindTypeRef
				}
			}
		}
		if name == nil {
			continue
		}
		s, e := name.StartByte, name.EndByte
		if want != "" && (int(e-s) != len(want) || string(src[s:e]) != want) {
			continue
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		r := toRange(*name)
		if isDef[r.Start] {
			continue
		}
		refs = append(refs, Ref{
			Name:  string(src[s:e]),
			Kind:  kind,
			Path:  path,
			Range: r,
			Line:  lineAt(src, s, r.Start.Col),
		})
	}
	sort.Slice(refs, func(i, j int) bool { return posLess(refs[i].Range.Start, refs[j].Range.Start) })
	return refs
}

// trimName returns the text of r, moving r past leading white space (some
// grammars start a node at the end of the previous line).
func trimName(src []byte, r *sitter.Range) []byte {
	b := src[r.StartByte:r.EndByte]
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		if b[0] == '\n' {
			r.StartPoint.Row++
			r.StartPoint.Column = 0
		} else {
			r.StartPoint.Column++
		}
		r.StartByte++
		b = b[1:]
	}
	return bytes.TrimRight(b, " \t\r\n")
}

func toRange(r sitter.Range) Range {
	return Range{
		Start: Pos{Line: r.StartPoint.Row, Col: r.StartPoint.Column},
		End:   Pos{Line: r.EndPoint.Row, Col: r.EndPoint.Column},
	}
}

// movePos returns position p, at or after from, moved as the text from
// there on moves when from becomes to (an edit's old end and new end).
func movePos(p, from, to Pos) Pos {
	if p.Line == from.Line {
		return Pos{to.Line, to.Col + p.Col - from.Col}
	}
	return Pos{p.Line - from.Line + to.Line, p.Col}
}

func posLess(a, b Pos) bool {
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

const maxSignature = 200

// describe fills the Signature and Doc of syms, all of one file of
// language l whose text is src. Symbols whose name is not where they say
// (src changed since they were found) are left as they are. The index
// keeps neither (they would be a third of its memory) and fills them in
// for the symbols it returns.
func describe(l *Language, src []byte, syms []Symbol) {
	var starts []int // line start offsets, computed up to the line needed
	lineStart := func(line uint32) int {
		if starts == nil {
			starts = append(starts, 0)
		}
		for len(starts) <= int(line) {
			last := starts[len(starts)-1]
			i := bytes.IndexByte(src[last:], '\n')
			if i < 0 {
				return -1
			}
			starts = append(starts, last+i+1)
		}
		return starts[line]
	}
	for i := range syms {
		s := &syms[i]
		ls := lineStart(s.NameRange.Start.Line)
		off := ls + int(s.NameRange.Start.Col)
		if ls < 0 || off+len(s.Name) > len(src) || string(src[off:off+len(s.Name)]) != s.Name {
			continue
		}
		s.Signature = lineAt(src, uint32(off), s.NameRange.Start.Col)
		if ds := lineStart(s.Range.Start.Line); ds >= 0 {
			s.Doc = docAbove(l, src, uint32(ds)+s.Range.Start.Col, s.Range.Start.Col)
		}
	}
}

// lineAt returns the trimmed line that holds byte off, col bytes into it.
func lineAt(src []byte, off, col uint32) string {
	start := off - col
	if int(start) > len(src) {
		return ""
	}
	line := src[start:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimSpace(line)
	if len(line) > maxSignature {
		line = line[:maxSignature]
		for len(line) > 0 && line[len(line)-1]&0xC0 == 0x80 { // keep UTF-8 whole
			line = line[:len(line)-1]
		}
		if len(line) > 0 && line[len(line)-1] >= 0xC0 {
			line = line[:len(line)-1]
		}
	}
	return string(line)
}

// docAbove returns the first line of text of the comments that end on the
// line above the definition starting at byte off (col bytes into its
// line): line comments on the lines right above it, or a block comment
// (C's /* */, Lua's --[[ ]]) that ends there. The lines where they may
// start are found by the comment markers of the language's syntax
// record; its lexer then reads them, so that a marker in a string or a
// line of code before a block comment is not taken for a comment.
func docAbove(l *Language, src []byte, off, col uint32) string {
	lineStart := int(off - col)
	if lineStart <= 0 || lineStart > len(src) {
		return ""
	}
	sx := l.syn
	start := lineStart
	for start > 0 {
		ls := bytes.LastIndexByte(src[:start-1], '\n') + 1
		line := bytes.TrimSpace(src[ls : start-1])
		if len(line) > 0 && l.lineComment(line) != "" {
			start = ls
			continue
		}
		if open := sx.blockOpen(line); open != "" {
			if k := bytes.LastIndex(src[:start-1], []byte(open)); k >= 0 {
				start = bytes.LastIndexByte(src[:k], '\n') + 1
				continue
			}
		}
		break
	}
	if start == lineStart {
		return ""
	}
	// The comments of the last group that ends on the line above: a blank
	// line, code or a directive between comments starts a new group.
	lx := lexer{sx: sx, src: src[:lineStart]}
	var group [][2]int // inner text of each comment
	after := 0         // newlines since the last comment
	for o := start; o < lineStart; {
		k, e := lx.next(o)
		switch k {
		case tSpace:
			after += bytes.Count(src[o:e], []byte{'\n'})
			if after > 1 {
				group = group[:0]
			}
		case tComment:
			if after > 1 || bytes.HasPrefix(src[o:], []byte("#!")) {
				group = group[:0]
			}
			if !bytes.HasPrefix(src[o:], []byte("#!")) {
				group = append(group, lx.inner)
			}
			after = 0
		case tEOF:
			o = lineStart
			continue
		default:
			group = group[:0]
			after = 0
		}
		o = e
	}
	if after != 1 {
		return "" // the comments do not end on the line above
	}
	for _, in := range group {
		for _, ln := range bytes.Split(src[in[0]:in[1]], []byte("\n")) {
			ln = bytes.TrimSpace(ln)
			if len(ln) > 0 && sx.lineComments != nil {
				// ///, //!, ##, ---: more of the marker's character; * of a block.
				ln = bytes.TrimLeft(ln, sx.lineComments[0][:1]+"*!")
			}
			if ln = bytes.TrimSpace(ln); len(ln) > 0 {
				return clip(ln)
			}
		}
	}
	return ""
}

func clip(b []byte) string {
	if len(b) > maxSignature {
		b = b[:maxSignature]
	}
	return strings.ToValidUTF8(string(b), "")
}

// lineComment returns the comment marker that starts line, or "".
func (l *Language) lineComment(line []byte) string {
	for _, m := range l.syn.lineComments {
		if bytes.HasPrefix(line, []byte(m)) {
			if m == "#" && (bytes.HasPrefix(line, []byte("#!")) || bytes.HasPrefix(line, []byte("#["))) {
				return ""
			}
			return m
		}
	}
	return ""
}

func isAllCaps(s string) bool {
	hasUpper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			hasUpper = true
		case c >= '0' && c <= '9', c == '_':
		default:
			return false
		}
	}
	return hasUpper
}
