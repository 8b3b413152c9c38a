package codeindex

/*
#include "tsapi.h"

// tree-sitter-lua's external scanner keeps its state in two globals and
// leaves them as they are when a parse starts (its deserialize of no state
// returns at once): a parse began in the state the one before ended in.
extern char ending_char;
extern uint8_t level_count;
static void agentls_lua_reset(void) { ending_char = 0; level_count = 0; }

// agentls_run runs query q from root and returns every capture of every
// match, in match order, in one malloc'd array of *count records (the
// caller frees it): one cgo call per file instead of several per node.
static agentls_capture *agentls_run_range(TSQueryCursor *qc, const TSQuery *q, TSNode *root, uint32_t depth, uint32_t lo, uint32_t hi, bool within, uint32_t *count);

static agentls_capture *agentls_run(TSQueryCursor *qc, const TSQuery *q, TSNode *root, uint32_t depth, uint32_t *count) {
	return agentls_run_range(qc, q, root, depth, 0, UINT32_MAX, true, count);
}

// agentls_run_range is agentls_run for the matches that touch bytes
// [lo, hi): with within, only those whose captures all lie in the range;
// else also those of patterns rooted above the range (the cursor's byte
// range alone lets them through), whose captures may lie anywhere.
static agentls_capture *agentls_run_range(TSQueryCursor *qc, const TSQuery *q, TSNode *root, uint32_t depth, uint32_t lo, uint32_t hi, bool within, uint32_t *count) {
	ts_query_cursor_set_max_start_depth(qc, depth);
	ts_query_cursor_set_byte_range(qc, lo, hi);
	ts_query_cursor_exec(qc, q, *root);
	size_t cap = 64, n = 0;
	agentls_capture *out = malloc(cap * sizeof *out);
	TSQueryMatch m;
	uint32_t ord = 0;
	bool all = !within || (lo == 0 && hi == UINT32_MAX);
	while (out && ts_query_cursor_next_match(qc, &m)) {
		if (!all) {
			bool in = true;
			for (uint16_t i = 0; i < m.capture_count && in; i++) {
				TSNode node = m.captures[i].node;
				in = ts_node_start_byte(node) >= lo && ts_node_end_byte(node) <= hi;
			}
			if (!in) {
				continue;
			}
		}
		for (uint16_t i = 0; i < m.capture_count; i++) {
			if (n == cap) {
				cap *= 2;
				agentls_capture *grown = realloc(out, cap * sizeof *out);
				if (!grown) {
					free(out);
					out = NULL;
					break;
				}
				out = grown;
			}
			TSNode node = m.captures[i].node;
			TSPoint s = ts_node_start_point(node), e = ts_node_end_point(node);
			agentls_capture c = {ord, m.pattern_index, (uint16_t)m.captures[i].index,
				ts_node_start_byte(node), ts_node_end_byte(node), s.row, s.column, e.row, e.column};
			out[n++] = c;
		}
		ord++;
	}
	ts_query_cursor_set_byte_range(qc, 0, UINT32_MAX);
	*count = out ? n : 0;
	return out;
}

// agentls_kids_over returns the children of root that overlap [lo, hi)
// as the query cursor counts overlap (ending after lo, starting before
// hi), *n of them, in a malloc'd array (NULL when out of memory).
static TSNode *agentls_kids_over(TSNode root, uint32_t lo, uint32_t hi, uint32_t *n) {
	*n = 0;
	size_t cap = 4;
	TSNode *out = malloc(cap * sizeof *out);
	TSTreeCursor c = ts_tree_cursor_new(root);
	if (out && ts_tree_cursor_goto_first_child_for_byte(&c, lo) >= 0) {
		do {
			TSNode k = ts_tree_cursor_current_node(&c);
			if (ts_node_start_byte(k) >= hi) {
				break;
			}
			if (ts_node_end_byte(k) <= lo) {
				continue;
			}
			if (*n == cap) {
				cap *= 2;
				TSNode *g = realloc(out, cap * sizeof *g);
				if (!g) {
					free(out);
					out = NULL;
					break;
				}
				out = g;
			}
			out[(*n)++] = k;
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return out;
}

typedef struct {
	uint32_t lo, hi;
	TSPoint lop, hip;
} agentls_span_t;

static int agentls_cmp_span(const void *a, const void *b) {
	uint32_t x = ((const agentls_span_t *)a)->lo, y = ((const agentls_span_t *)b)->lo;
	return x < y ? -1 : x > y;
}

typedef struct {
	agentls_span_t *v;
	size_t n, cap;
} agentls_spans_t;

static bool agentls_push(agentls_spans_t *s, agentls_span_t x) {
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		agentls_span_t *g = realloc(s->v, s->cap * sizeof *g);
		if (!g) {
			return false;
		}
		s->v = g;
	}
	s->v[s->n++] = x;
	return true;
}

static agentls_span_t agentls_span_of(TSNode k) {
	return (agentls_span_t){ts_node_start_byte(k), ts_node_end_byte(k), ts_node_start_point(k), ts_node_end_point(k)};
}

// agentls_same reports whether a (of nu) and b (of old, edited: in the
// same coordinates) are the same subtree: the same object (taken over
// from old), or nodes of the same kinds over the same bytes all the way
// down (the parser builds again nodes it cannot reuse, those of grammars
// with conflicts above all, over text that did not change); a lies
// outside the edit. *budget bounds the nodes compared.
static bool agentls_same(TSNode a, TSNode b, int32_t *budget) {
	if (a.id == b.id) {
		return true;
	}
	uint32_t n = ts_node_child_count(a);
	if (--*budget < 0 || ts_node_symbol(a) != ts_node_symbol(b) || ts_node_start_byte(a) != ts_node_start_byte(b) ||
		ts_node_end_byte(a) != ts_node_end_byte(b) || n != ts_node_child_count(b) ||
		ts_node_is_extra(a) != ts_node_is_extra(b) || ts_node_is_missing(a) != ts_node_is_missing(b)) {
		return false;
	}
	if (n == 0) {
		return true;
	}
	TSTreeCursor ca = ts_tree_cursor_new(a), cb = ts_tree_cursor_new(b);
	bool same = ts_tree_cursor_goto_first_child(&ca) && ts_tree_cursor_goto_first_child(&cb);
	while (same) {
		same = agentls_same(ts_tree_cursor_current_node(&ca), ts_tree_cursor_current_node(&cb), budget);
		bool na = ts_tree_cursor_goto_next_sibling(&ca), nb = ts_tree_cursor_goto_next_sibling(&cb);
		if (!na || !nb) {
			same = same && na == nb;
			break;
		}
	}
	ts_tree_cursor_delete(&ca);
	ts_tree_cursor_delete(&cb);
	return same;
}

// agentls_twin returns the child of old's node op that starts at start,
// or op itself when none does.
static TSNode agentls_twin(TSTreeCursor *c, TSNode op, uint32_t start) {
	ts_tree_cursor_reset(c, op);
	if (ts_tree_cursor_goto_first_child_for_byte(c, start) < 0) {
		return op;
	}
	TSNode k = ts_tree_cursor_current_node(c);
	while (ts_node_start_byte(k) < start && ts_tree_cursor_goto_next_sibling(c)) {
		k = ts_tree_cursor_current_node(c);
	}
	return ts_node_start_byte(k) == start ? k : op;
}

// agentls_spans returns the parts of tree nu, an incremental parse of old
// (edited, so in the same coordinates), where definitions may have
// changed: [lo, hi) (the edit, its points in edit) and the children of the
// root that touch it, then each child over a range where the trees differ
// (ts_tree_get_changed_ranges) that is not one of old's (the same
// subtree, or one built again the same: agentls_same), tokens and
// comments too. Spans are in order, the adjacent ones joined; *n is
// their number (the caller frees them).
//
// Below the root, up to maxDescend levels: when the edit lies strictly
// inside one child of the node looked at, and strictly inside one child
// of the same kind of old's node, that child is looked into instead of
// being a span (a keystroke in a method of a class is then the method's
// span, not the class's), its children are read in the same way. *depth
// is the number of levels descended (the nodes on the way hold the spans:
// the caller checks that their definitions did not change; each is of
// the kind of old's, so that patterns naming it match the children
// taken over as they did).
static agentls_span_t *agentls_spans(const TSTree *old, const TSTree *nu, agentls_span_t edit, uint32_t maxDescend, uint32_t *n, uint32_t *depth) {
	*n = 0;
	*depth = 0;
	bool ok = true;
	int32_t budget = 50000;
	agentls_spans_t out = {0}, touch = {0};
	ok = agentls_push(&out, edit);
	TSNode parent = ts_tree_root_node(nu), oparent = ts_tree_root_node(old);
	if (ts_node_symbol(parent) != ts_node_symbol(oparent)) {
		// Patterns that name the root (a top-level variable) no longer
		// match what they did: the whole tree is one span.
		ok = ok && agentls_push(&out, agentls_span_of(parent));
	}
	// Where the trees differ (tree-sitter skips the subtrees they share):
	// only the children over those ranges and the edit are looked at, a
	// list of thousands of children costs a few steps.
	uint32_t nchanged = 0;
	TSRange *changed = ts_tree_get_changed_ranges(old, nu, &nchanged);
	agentls_spans_t look = {0};
	ok = ok && agentls_push(&look, edit);
	for (uint32_t i = 0; ok && i < nchanged; i++) {
		ok = agentls_push(&look, (agentls_span_t){changed[i].start_byte, changed[i].end_byte, changed[i].start_point, changed[i].end_point});
	}
	free(changed);
	if (ok) {
		qsort(look.v, look.n, sizeof *look.v, agentls_cmp_span);
	}
	TSTreeCursor c = ts_tree_cursor_new(parent), oc = ts_tree_cursor_new(oparent);
	for (uint32_t level = 0; ok; level++) {
		touch.n = 0;
		TSNode inner = parent; // the one child touching the edit, strictly around it
		const void *last_id = NULL;
		uint32_t last_s = 0;
		for (size_t r = 0; ok && r < look.n; r++) {
			uint32_t lo = look.v[r].lo, hi = look.v[r].hi;
			ts_tree_cursor_reset(&c, parent);
			if (ts_tree_cursor_goto_first_child_for_byte(&c, lo > 0 ? lo - 1 : 0) < 0) {
				continue;
			}
			do {
				TSNode k = ts_tree_cursor_current_node(&c);
				uint32_t s = ts_node_start_byte(k), e = ts_node_end_byte(k);
				if (s > hi) {
					break;
				}
				if (e < lo || last_id && (s < last_s || s == last_s && k.id == last_id)) {
					continue; // before the range, or seen for the range before
				}
				last_id = k.id;
				last_s = s;
				bool touches = s <= edit.hi && e >= edit.lo;
				if (!touches) {
					TSNode twin = agentls_twin(&oc, oparent, s);
					if (twin.id != oparent.id && agentls_same(k, twin, &budget)) {
						continue; // old's
					}
					// (A token or a comment that is not old's is a span
					// too, though it defines nothing: old may have had
					// definitions there, code that a comment now holds.)
				}
				if (touches) {
					if (touch.n == 0 && s < edit.lo && e > edit.hi) {
						inner = k;
					}
					ok = agentls_push(&touch, agentls_span_of(k));
				} else {
					ok = agentls_push(&out, agentls_span_of(k));
				}
			} while (ok && ts_tree_cursor_goto_next_sibling(&c));
		}
		if (!ok) {
			break;
		}
		// Look into the one touching child when old has one too.
		TSNode oinner = oparent;
		if (touch.n == 1 && inner.id != parent.id && level < maxDescend && ts_node_child_count(inner) > 0) {
			uint32_t found = 0;
			ts_tree_cursor_reset(&oc, oparent);
			if (ts_tree_cursor_goto_first_child_for_byte(&oc, edit.lo) >= 0) {
				do {
					TSNode k = ts_tree_cursor_current_node(&oc);
					uint32_t s = ts_node_start_byte(k), e = ts_node_end_byte(k);
					if (s > edit.hi) {
						break;
					}
					if (e >= edit.lo) {
						found++;
						if (s < edit.lo && e > edit.hi) {
							oinner = k;
						}
					}
				} while (ts_tree_cursor_goto_next_sibling(&oc));
			}
			if (found != 1 || oinner.id == oparent.id || ts_node_symbol(oinner) != ts_node_symbol(inner)) {
				oinner = oparent;
			}
		}
		if (oinner.id == oparent.id) {
			for (size_t i = 0; ok && i < touch.n; i++) {
				ok = agentls_push(&out, touch.v[i]);
			}
			break;
		}
		parent = inner;
		oparent = oinner;
		*depth = level + 1;
	}
	ts_tree_cursor_delete(&c);
	ts_tree_cursor_delete(&oc);
	free(touch.v);
	free(look.v);
	if (!ok) {
		free(out.v);
		return NULL;
	}
	size_t m = out.n;
	agentls_span_t *v = out.v;
	qsort(v, m, sizeof *v, agentls_cmp_span);
	size_t j = 0;
	for (size_t i = 1; i < m; i++) {
		if (v[i].lo <= v[j].hi) {
			if (v[i].hi > v[j].hi) {
				v[j].hi = v[i].hi;
				v[j].hip = v[i].hip;
			}
		} else {
			v[++j] = v[i];
		}
	}
	*n = m ? j + 1 : 0;
	return v;
}

// agentls_parse_run parses text (length bytes) afresh, runs q on the tree
// and frees the tree: the build's one cgo call per file. *parsed is false
// when the parser gave no tree.
static agentls_capture *agentls_parse_run(TSParser *p, const char *text, uint32_t length, TSQueryCursor *qc, const TSQuery *q, uint32_t depth, uint32_t *count, bool *parsed) {
	*count = 0;
	TSTree *tree = ts_parser_parse_string(p, NULL, text, length);
	*parsed = tree != NULL;
	if (!tree) {
		return NULL;
	}
	TSNode root = ts_tree_root_node(tree);
	agentls_capture *out = agentls_run(qc, q, &root, depth, count);
	ts_tree_delete(tree);
	return out;
}
// agentls_error_around reports whether the deepest node of t that holds
// [lo, hi], or its parent unless that is the root, has a syntax error in
// it.
static bool agentls_error_around(const TSTree *t, uint32_t lo, uint32_t hi) {
	TSNode root = ts_tree_root_node(t), parent = root, cur = root;
	TSTreeCursor c = ts_tree_cursor_new(root);
	while (ts_tree_cursor_goto_first_child_for_byte(&c, lo) >= 0) {
		TSNode k = ts_tree_cursor_current_node(&c);
		if (ts_node_start_byte(k) > lo || ts_node_end_byte(k) < hi) {
			break;
		}
		parent = cur;
		cur = k;
	}
	ts_tree_cursor_delete(&c);
	return ts_node_has_error(cur) || parent.id != root.id && ts_node_has_error(parent);
}
*/
import "C"

import (
	"errors"
	"math"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

const anyDepth = math.MaxUint32

// capture is one captured node of a query match.
type capture struct {
	match   uint32 // ordinal of the match
	pattern uint16
	index   uint16 // capture id
	rng     sitter.Range
}

// runQuery runs q on the tree from its root and returns all captures of
// all matches in order. Matches start no deeper than depth (the cursor
// then skips subtrees no pattern can reach, which makes a top-level-only
// query cost a fraction of a full walk).
//
// The binding neither exposes max_start_depth nor a batch call, so the C
// cursor, query and node are taken from the binding's structs (binding.go,
// checked by TestBindingLayout).
func runQuery(qc *sitter.QueryCursor, q *sitter.Query, root node, depth uint32, buf []capture) []capture {
	return runQueryRange(qc, q, root, depth, 0, math.MaxUint32, true, buf)
}

// runQueryRange is runQuery for the matches within bytes [lo, hi); with
// !within, for every match the cursor finds there, those of patterns
// rooted above the range included (their captures may lie outside it).
func runQueryRange(qc *sitter.QueryCursor, q *sitter.Query, root node, depth, lo, hi uint32, within bool, buf []capture) []capture {
	cqc := (*C.TSQueryCursor)(queryCursorC(qc))
	cq := (*C.TSQuery)(queryC(q))
	cnode := root.c
	var n C.uint32_t
	out := C.agentls_run_range(cqc, cq, &cnode, C.uint32_t(depth), C.uint32_t(lo), C.uint32_t(hi), C.bool(within), &n)
	return copyCaptures(out, n, buf)
}

// runDefsRange sets x.caps to the captures of the definitions query of
// l in the tree of root (a tree's root) over [lo, hi), as runQueryRange
// finds them, run from the root's children that overlap the range when l
// allows (see rootQuery): the same but for the matches of patterns
// rooted at the root whose captures lie outside the range (with within,
// none). ok is false when the query cannot be compiled or C is out of
// memory. (The definitions walk, slower than the query over a range in
// a long list of children, is left to whole trees.)
func (x *extractor) runDefsRange(l *Language, root node, lo, hi uint32, within bool) (ok bool) {
	q, err := l.defsQuery()
	if err != nil {
		return false
	}
	rq := rootQueryOf(l)
	if !rq.ok || uint16(C.ts_node_symbol(root.c)) != rq.symbol {
		x.caps = runQueryRange(x.qc, q, root, l.defDepth(), lo, hi, within, x.caps)
		return true
	}
	var n C.uint32_t
	kids := C.agentls_kids_over(root.c, C.uint32_t(lo), C.uint32_t(hi), &n)
	if kids == nil {
		return false
	}
	defer C.free(unsafe.Pointer(kids))
	all := x.caps[:0]
	var ord uint32
	add := func(part []capture, pat, capt []uint16) {
		next := ord
		for _, c := range part {
			c.match += ord
			next = max(next, c.match+1)
			if pat != nil {
				c.pattern, c.index = pat[c.pattern], capt[c.index]
			}
			all = append(all, c)
		}
		ord = next
	}
	for _, k := range unsafe.Slice(kids, int(n)) {
		x.part = runQueryRange(x.qc, q, node{k}, l.defDepth(), lo, hi, within, x.part)
		add(x.part, nil, nil)
		switch {
		case rq.walk.c != nil:
			x.part = walkRange(rq.walk, node{k}, 0, lo, hi, within, x.part)
		case rq.q != nil:
			x.part = runQueryRange(x.qc, rq.q, node{k}, 0, lo, hi, within, x.part)
		default:
			continue
		}
		add(x.part, rq.pat, rq.capt)
	}
	x.caps = all
	return true
}

// node is a node of a C tree (the root a query runs from).
type node struct{ c C.TSNode }

// rootOf returns the root of a tree of the binding.
func rootOf(t *sitter.Tree) node {
	return node{*(*C.TSNode)(nodeC(t.RootNode()))} // a copy: Node also holds a Go pointer
}

// ctree is a syntax tree the index owns (an editor buffer's): the C tree
// itself, parsed from the buffer's bytes where they are (the binding
// copies the text to C memory for each parse and sets a finalizer on each
// tree). The zero ctree is no tree.
// ctree is a tree of the C library; neutral: it was parsed from rubySafe's
// copy of the text, not the text itself.
type ctree struct {
	c       *C.TSTree
	neutral bool
}

func (t ctree) root() node { return node{C.ts_tree_root_node(t.c)} }

func (t ctree) hasError() bool { return bool(C.ts_node_has_error(C.ts_tree_root_node(t.c))) }

// errorAround reports whether the deepest node that holds the bytes
// [lo, hi], or its parent unless that is the root, has a syntax error.
func (t ctree) errorAround(lo, hi int) bool {
	return bool(C.agentls_error_around(t.c, C.uint32_t(lo), C.uint32_t(hi)))
}

func (t ctree) edit(e sitter.EditInput) {
	ce := C.TSInputEdit{
		start_byte:    C.uint32_t(e.StartIndex),
		old_end_byte:  C.uint32_t(e.OldEndIndex),
		new_end_byte:  C.uint32_t(e.NewEndIndex),
		start_point:   C.TSPoint{row: C.uint32_t(e.StartPoint.Row), column: C.uint32_t(e.StartPoint.Column)},
		old_end_point: C.TSPoint{row: C.uint32_t(e.OldEndPoint.Row), column: C.uint32_t(e.OldEndPoint.Column)},
		new_end_point: C.TSPoint{row: C.uint32_t(e.NewEndPoint.Row), column: C.uint32_t(e.NewEndPoint.Column)},
	}
	C.ts_tree_edit(t.c, &ce)
}

// close frees the tree (once).
func (t ctree) close() {
	if t.c != nil {
		C.ts_tree_delete(t.c)
	}
}

// parseTree parses src with l, reusing old (edited) when it is a tree.
// The parser reads src during the call only.
func (x *extractor) parseTree(l *Language, src []byte, old ctree) (ctree, error) {
	p, err := x.parser(l)
	if err != nil {
		return ctree{}, err
	}
	src, neutral := rubySafe(l, src)
	if neutral || old.neutral {
		// A text that differs from the file's in places no edit
		// touched: the old tree cannot serve.
		old = ctree{}
	}
	cp := (*C.TSParser)(parserC(p))
	ptr := (*C.char)(unsafe.Pointer(&emptyText[0]))
	if len(src) > 0 {
		ptr = (*C.char)(unsafe.Pointer(unsafe.SliceData(src)))
	}
	unlock := l.parsing()
	t := C.ts_parser_parse_string(cp, old.c, ptr, C.uint32_t(len(src)))
	unlock()
	if t == nil {
		return ctree{}, errNoTree
	}
	return ctree{t, neutral}, nil
}

// resetLuaScanner puts tree-sitter-lua's scanner in its initial state: a
// parse starts with it (Language.resetScanner).
func resetLuaScanner() { C.agentls_lua_reset() }

// span is a part of a file: bytes [lo, hi), points [lop, hip).
type span struct {
	lo, hi   uint32
	lop, hip Pos
}

// changedSpans returns the parts of tree nu (an incremental parse of old
// after edit e) that a new definitions query must cover, in order: the
// edit with the children of the root that touch it, and the children
// that are not old's. With maxDescend > 0 the spans may lie deeper,
// inside the one child that holds the edit (see agentls_spans); depth
// says how many levels. nil spans mean the C side ran out of memory.
func changedSpans(old, nu ctree, e sitter.EditInput, maxDescend uint32) (spans []span, depth uint32) {
	edit := C.agentls_span_t{
		lo:  C.uint32_t(e.StartIndex),
		hi:  C.uint32_t(e.NewEndIndex),
		lop: C.TSPoint{row: C.uint32_t(e.StartPoint.Row), column: C.uint32_t(e.StartPoint.Column)},
		hip: C.TSPoint{row: C.uint32_t(e.NewEndPoint.Row), column: C.uint32_t(e.NewEndPoint.Column)},
	}
	var n, cdepth C.uint32_t
	out := C.agentls_spans(old.c, nu.c, edit, C.uint32_t(maxDescend), &n, &cdepth)
	if out == nil {
		return nil, 0
	}
	defer C.free(unsafe.Pointer(out))
	spans = make([]span, n)
	for i, s := range unsafe.Slice(out, int(n)) {
		spans[i] = span{uint32(s.lo), uint32(s.hi), Pos{uint32(s.lop.row), uint32(s.lop.column)}, Pos{uint32(s.hip.row), uint32(s.hip.column)}}
	}
	return spans, uint32(cdepth)
}

var errNoTree = errors.New("the parser returned no tree")

// parseRun parses text afresh with p (which must have no included ranges)
// and runs q on the tree, which it frees: one cgo call, and the text is
// not copied (the binding's Parse copies it to C memory).
func parseRun(p *sitter.Parser, text []byte, qc *sitter.QueryCursor, q *sitter.Query, depth uint32, buf []capture) ([]capture, error) {
	cp := (*C.TSParser)(parserC(p))
	cqc := (*C.TSQueryCursor)(queryCursorC(qc))
	cq := (*C.TSQuery)(queryC(q))
	var ptr *C.char
	if len(text) > 0 {
		ptr = (*C.char)(unsafe.Pointer(unsafe.SliceData(text)))
	} else {
		ptr = (*C.char)(unsafe.Pointer(&emptyText[0]))
	}
	var n C.uint32_t
	var parsed C.bool
	out := C.agentls_parse_run(cp, ptr, C.uint32_t(len(text)), cqc, cq, C.uint32_t(depth), &n, &parsed)
	if !parsed {
		return buf[:0], errNoTree
	}
	return copyCaptures(out, n, buf), nil
}

var emptyText = [1]byte{}

// copyCaptures copies and frees the captures of agentls_run.
func copyCaptures(out *C.agentls_capture, n C.uint32_t, buf []capture) []capture {
	if out == nil {
		return buf[:0]
	}
	defer C.free(unsafe.Pointer(out))
	recs := unsafe.Slice(out, int(n))
	buf = buf[:0]
	for i := range recs {
		r := &recs[i]
		buf = append(buf, capture{
			match:   uint32(r.match),
			pattern: uint16(r.pattern),
			index:   uint16(r.capture),
			rng: sitter.Range{
				StartByte:  uint32(r.start_byte),
				EndByte:    uint32(r.end_byte),
				StartPoint: sitter.Point{Row: uint32(r.start_row), Column: uint32(r.start_col)},
				EndPoint:   sitter.Point{Row: uint32(r.end_row), Column: uint32(r.end_col)},
			},
		})
	}
	return buf
}
