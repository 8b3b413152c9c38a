package codeindex

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>

// Declarations matching tree-sitter's api.h (the version pinned in go.mod);
// the definitions come from the go-tree-sitter package linked in.
typedef struct TSQueryCursor TSQueryCursor;
typedef struct TSParser TSParser;
typedef struct TSQuery TSQuery;
typedef struct TSTree TSTree;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { TSNode node; uint32_t index; } TSQueryCapture;
typedef struct { uint32_t id; uint16_t pattern_index; uint16_t capture_count; const TSQueryCapture *captures; } TSQueryMatch;
typedef struct { TSPoint start_point; TSPoint end_point; uint32_t start_byte; uint32_t end_byte; } TSRange;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;

void ts_query_cursor_set_byte_range(TSQueryCursor *self, uint32_t start_byte, uint32_t end_byte);
TSTreeCursor ts_tree_cursor_new(TSNode node);
uint32_t ts_node_child_count(TSNode self);
bool ts_node_is_named(TSNode self);
bool ts_node_is_extra(TSNode self);
void ts_tree_cursor_delete(TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);

void ts_query_cursor_set_max_start_depth(TSQueryCursor *self, uint32_t max_start_depth);
void ts_query_cursor_exec(TSQueryCursor *self, const TSQuery *query, TSNode node);
bool ts_query_cursor_next_match(TSQueryCursor *self, TSQueryMatch *match);
TSTree *ts_parser_parse_string(TSParser *self, const TSTree *old_tree, const char *string, uint32_t length);
typedef struct { uint32_t start_byte, old_end_byte, new_end_byte; TSPoint start_point, old_end_point, new_end_point; } TSInputEdit;
void ts_tree_edit(TSTree *self, const TSInputEdit *edit);
bool ts_node_has_error(TSNode self);
TSNode ts_tree_root_node(const TSTree *self);
void ts_tree_delete(TSTree *self);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
TSPoint ts_node_start_point(TSNode self);
TSPoint ts_node_end_point(TSNode self);

typedef struct {
	uint32_t match;
	uint16_t pattern;
	uint16_t capture;
	uint32_t start_byte, end_byte;
	uint32_t start_row, start_col, end_row, end_col;
} agentls_capture;

// agentls_run runs query q from root and returns every capture of every
// match, in match order, in one malloc'd array of *count records (the
// caller frees it): one cgo call per file instead of several per node.
static agentls_capture *agentls_run_range(TSQueryCursor *qc, const TSQuery *q, TSNode *root, uint32_t depth, uint32_t lo, uint32_t hi, uint32_t *count);

static agentls_capture *agentls_run(TSQueryCursor *qc, const TSQuery *q, TSNode *root, uint32_t depth, uint32_t *count) {
	return agentls_run_range(qc, q, root, depth, 0, UINT32_MAX, count);
}

// agentls_run_range is agentls_run for the matches whose captures all lie
// in bytes [lo, hi) (the cursor's byte range alone lets through matches of
// patterns rooted above the range).
static agentls_capture *agentls_run_range(TSQueryCursor *qc, const TSQuery *q, TSNode *root, uint32_t depth, uint32_t lo, uint32_t hi, uint32_t *count) {
	ts_query_cursor_set_max_start_depth(qc, depth);
	ts_query_cursor_set_byte_range(qc, lo, hi);
	ts_query_cursor_exec(qc, q, *root);
	size_t cap = 64, n = 0;
	agentls_capture *out = malloc(cap * sizeof *out);
	TSQueryMatch m;
	uint32_t ord = 0;
	bool all = lo == 0 && hi == UINT32_MAX;
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

static int agentls_cmp_id(const void *a, const void *b) {
	uintptr_t x = (uintptr_t)*(const void *const *)a, y = (uintptr_t)*(const void *const *)b;
	return x < y ? -1 : x > y;
}

typedef struct {
	uint32_t lo, hi;
	TSPoint lop, hip;
} agentls_span_t;

// agentls_spans returns the parts of tree nu, an incremental parse of old
// (edited), where definitions may have changed: [lo, hi) (the edit, its
// points in *span on entry) and the children of the root that touch it,
// then each child the parse did not take over from old (a reused subtree
// is the same object in both trees: its text and syntax did not change),
// tokens and comments aside. Spans are in order, the adjacent ones
// joined; *n is their number (the caller frees them).
static int agentls_cmp_span(const void *a, const void *b) {
	uint32_t x = ((const agentls_span_t *)a)->lo, y = ((const agentls_span_t *)b)->lo;
	return x < y ? -1 : x > y;
}

static const void **agentls_child_ids(const TSTree *t, uint32_t *n) {
	*n = 0;
	size_t cap = 256, m = 0;
	const void **ids = malloc(cap * sizeof *ids);
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
	if (ids && ts_tree_cursor_goto_first_child(&c)) {
		do {
			if (m == cap) {
				cap *= 2;
				const void **grown = realloc(ids, cap * sizeof *ids);
				if (!grown) {
					free(ids);
					ids = NULL;
					break;
				}
				ids = grown;
			}
			ids[m++] = ts_tree_cursor_current_node(&c).id;
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	if (ids) {
		qsort(ids, m, sizeof *ids, agentls_cmp_id);
		*n = m;
	}
	return ids;
}

// oldIds (nold, sorted), when not NULL, are the ids of the children of
// old's root before the edit (those of the previous call's *newIds: the
// edit changes the ids of nodes that touch it only); else they are read
// from old. *newIds gets the sorted ids of the children of nu's root (the
// caller frees them).
static agentls_span_t *agentls_spans(const TSTree *old, const uintptr_t *oldIds, uint32_t nold, const TSTree *nu, agentls_span_t edit, uint32_t *n, uintptr_t **newIds, uint32_t *nnew) {
	*n = 0;
	*newIds = NULL;
	*nnew = 0;
	const void **ids = (const void **)oldIds;
	uint32_t nids = nold;
	if (!ids) {
		ids = agentls_child_ids(old, &nids);
		if (!ids) {
			return NULL;
		}
	}
	size_t scap = 8, m = 0, icap = nids + 16, ni = 0;
	agentls_span_t *out = malloc(scap * sizeof *out);
	const void **nids_out = malloc(icap * sizeof *nids_out);
	if (out) {
		out[m++] = edit;
	}
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(nu));
	if (out && nids_out && ts_tree_cursor_goto_first_child(&c)) {
		do {
			TSNode k = ts_tree_cursor_current_node(&c);
			if (ni == icap) {
				icap *= 2;
				const void **g = realloc(nids_out, icap * sizeof *nids_out);
				if (!g) {
					free(nids_out);
					nids_out = NULL;
					break;
				}
				nids_out = g;
			}
			nids_out[ni++] = k.id;
			uint32_t s = ts_node_start_byte(k), e = ts_node_end_byte(k);
			bool touches = s <= edit.hi && e >= edit.lo;
			if (!touches && ts_node_child_count(k) == 0 && (!ts_node_is_named(k) || ts_node_is_extra(k))) {
				continue; // a token or a comment (a leaf is stored in its parent: its id is not its own)
			}
			if (!touches && bsearch(&k.id, ids, nids, sizeof *ids, agentls_cmp_id)) {
				continue; // taken over from old
			}
			if (m == scap) {
				scap *= 2;
				agentls_span_t *g = realloc(out, scap * sizeof *out);
				if (!g) {
					free(out);
					out = NULL;
					break;
				}
				out = g;
			}
			out[m++] = (agentls_span_t){s, e, ts_node_start_point(k), ts_node_end_point(k)};
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	if (ids != (const void **)oldIds) {
		free((void *)ids);
	}
	if (!out || !nids_out) {
		free(out);
		free(nids_out);
		return NULL;
	}
	qsort(nids_out, ni, sizeof *nids_out, agentls_cmp_id);
	*newIds = (uintptr_t *)nids_out;
	*nnew = ni;
	qsort(out, m, sizeof *out, agentls_cmp_span);
	size_t j = 0;
	for (size_t i = 1; i < m; i++) {
		if (out[i].lo <= out[j].hi) {
			if (out[i].hi > out[j].hi) {
				out[j].hi = out[i].hi;
				out[j].hip = out[i].hip;
			}
		} else {
			out[++j] = out[i];
		}
	}
	*n = m ? j + 1 : 0;
	return out;
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
	return runQueryRange(qc, q, root, depth, 0, math.MaxUint32, buf)
}

// runQueryRange is runQuery for the matches within bytes [lo, hi).
func runQueryRange(qc *sitter.QueryCursor, q *sitter.Query, root node, depth, lo, hi uint32, buf []capture) []capture {
	cqc := (*C.TSQueryCursor)(queryCursorC(qc))
	cq := (*C.TSQuery)(queryC(q))
	cnode := root.c
	var n C.uint32_t
	out := C.agentls_run_range(cqc, cq, &cnode, C.uint32_t(depth), C.uint32_t(lo), C.uint32_t(hi), &n)
	return copyCaptures(out, n, buf)
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
type ctree struct{ c *C.TSTree }

func (t ctree) root() node { return node{C.ts_tree_root_node(t.c)} }

func (t ctree) hasError() bool { return bool(C.ts_node_has_error(C.ts_tree_root_node(t.c))) }

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
	cp := (*C.TSParser)(parserC(p))
	ptr := (*C.char)(unsafe.Pointer(&emptyText[0]))
	if len(src) > 0 {
		ptr = (*C.char)(unsafe.Pointer(unsafe.SliceData(src)))
	}
	t := C.ts_parser_parse_string(cp, old.c, ptr, C.uint32_t(len(src)))
	if t == nil {
		return ctree{}, errNoTree
	}
	return ctree{t}, nil
}

// span is a part of a file: bytes [lo, hi), points [lop, hip).
type span struct {
	lo, hi   uint32
	lop, hip Pos
}

// changedSpans returns the parts of tree nu (an incremental parse of old
// after edit e) that a new definitions query must cover, in order: the
// edit with the children of the root that touch it, and the children
// that the parse made anew. oldIDs, when not nil, are the ids of old's
// root children before the edit (the previous call's newIDs); newIDs are
// those of nu. nil spans mean the C side ran out of memory.
func changedSpans(old, nu ctree, e sitter.EditInput, oldIDs []uintptr) (spans []span, newIDs []uintptr) {
	edit := C.agentls_span_t{
		lo:  C.uint32_t(e.StartIndex),
		hi:  C.uint32_t(e.NewEndIndex),
		lop: C.TSPoint{row: C.uint32_t(e.StartPoint.Row), column: C.uint32_t(e.StartPoint.Column)},
		hip: C.TSPoint{row: C.uint32_t(e.NewEndPoint.Row), column: C.uint32_t(e.NewEndPoint.Column)},
	}
	var ids *C.uintptr_t
	if len(oldIDs) > 0 {
		ids = (*C.uintptr_t)(unsafe.Pointer(unsafe.SliceData(oldIDs)))
	}
	var n, nnew C.uint32_t
	var cnew *C.uintptr_t
	out := C.agentls_spans(old.c, ids, C.uint32_t(len(oldIDs)), nu.c, edit, &n, &cnew, &nnew)
	if out == nil {
		return nil, nil
	}
	defer C.free(unsafe.Pointer(out))
	defer C.free(unsafe.Pointer(cnew))
	spans = make([]span, n)
	for i, s := range unsafe.Slice(out, int(n)) {
		spans[i] = span{uint32(s.lo), uint32(s.hi), Pos{uint32(s.lop.row), uint32(s.lop.column)}, Pos{uint32(s.hip.row), uint32(s.hip.column)}}
	}
	newIDs = append([]uintptr(nil), unsafe.Slice((*uintptr)(unsafe.Pointer(cnew)), int(nnew))...)
	return spans, newIDs
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
