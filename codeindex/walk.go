package codeindex

/*
#include "tsapi.h"

#define AGENTLS_WILDCARD 0xFFFF
#define AGENTLS_ERROR 0xFFFF // ts_builtin_sym_error
#define AGENTLS_MAXCAPS 3

// A step of a compiled pattern: a node with its captures, and the steps
// of its children in order (child, then each's next); alt is the next
// alternative of the same place ([a b]).
typedef struct {
	uint16_t symbol;    // AGENTLS_WILDCARD: any named node
	uint16_t field;     // 0: any
	uint16_t neg_field; // 0: none (!field)
	uint8_t immediate;  // anchored (.) after the previous named sibling, or the first named child
	uint8_t last;       // anchored (.) as the last named child
	uint8_t ncaps;
	uint16_t caps[AGENTLS_MAXCAPS];
	int16_t child, next, alt;
} agentls_step;

// A walker is the compiled definitions patterns of a language: the steps,
// and for each node symbol the roots of the patterns that start there, in
// pattern order. Built once per language, then only read.
typedef struct {
	agentls_step *steps;
	uint32_t nsymbols;
	uint32_t *root_off; // nsymbols+1 offsets into roots
	uint32_t *roots;    // step index of each root
	uint16_t *pattern;  // pattern index of each root
	uint32_t nskip;
	uint8_t *skip;      // by symbol: no pattern root can lie below a node of it
} agentls_walker;

typedef struct {
	TSNode node;
	uint16_t symbol, field;
	bool named, later_named, later_field;
} agentls_kid;

typedef struct {
	uint32_t off, n; // kids in the arena
	uint32_t from;   // next kid to look at
	int16_t step;    // next step, -1: the sequence is done
} agentls_goal;

typedef struct {
	uint16_t id;
	TSNode node;
} agentls_cap;

#define AGENTLS_MAXGOALS 32
#define AGENTLS_MAXCAPSTACK 64
#define AGENTLS_MEMO 16

// The kids of a node already in the arena, during one agentls_try.
typedef struct {
	const void *id;
	uint32_t start, off, n;
} agentls_memo;

typedef struct {
	const agentls_walker *w;
	TSTreeCursor kc; // reads the children of a node
	agentls_kid *kids;
	uint32_t nkids, capkids;
	// memo: the nodes whose kids the patterns tried at one node read,
	// each enumerated once: a C++ function_definition has some twenty
	// patterns, half of which read the kids of the same
	// function_declarator.
	agentls_memo memo[AGENTLS_MEMO];
	uint32_t nmemo;
	agentls_cap caps[AGENTLS_MAXCAPSTACK];
	uint32_t ncaps;
	agentls_capture *out;
	size_t n, cap;
	uint32_t ord;
	uint16_t pattern;
	uint32_t lo, hi;
	bool within, oom;
} agentls_wctx;

// agentls_kids appends the visible children of node to the arena, with
// the facts the query engine reads of each; *off is where they start.
static uint32_t agentls_kids(agentls_wctx *c, TSNode node, uint32_t *off) {
	*off = c->nkids;
	if (ts_node_child_count(node) == 0) {
		return 0;
	}
	ts_tree_cursor_reset(&c->kc, node);
	if (!ts_tree_cursor_goto_first_child(&c->kc)) {
		return 0;
	}
	do {
		if (c->nkids == c->capkids) {
			uint32_t ncap = c->capkids ? c->capkids * 2 : 256;
			agentls_kid *g = realloc(c->kids, ncap * sizeof *g);
			if (!g) {
				c->oom = true;
				break;
			}
			c->kids = g;
			c->capkids = ncap;
		}
		agentls_kid *k = &c->kids[c->nkids++];
		k->node = ts_tree_cursor_current_node(&c->kc);
		k->symbol = ts_node_symbol(k->node);
		k->named = ts_node_is_named(k->node);
		bool later, later_named, later_field;
		uint16_t supertypes[8];
		unsigned nsuper = 8;
		ts_tree_cursor_current_status(&c->kc, &k->field, &later, &later_named, &later_field, supertypes, &nsuper);
		k->later_named = later_named;
		k->later_field = later_field;
	} while (ts_tree_cursor_goto_next_sibling(&c->kc));
	return c->nkids - *off;
}

// agentls_kids_memo is agentls_kids of a node below the one being tried,
// from the memo when it holds them. The arena keeps every node's kids
// until the try ends.
static uint32_t agentls_kids_memo(agentls_wctx *c, TSNode node, uint32_t *off) {
	for (uint32_t i = 0; i < c->nmemo; i++) {
		if (c->memo[i].id == node.id && c->memo[i].start == ts_node_start_byte(node)) {
			*off = c->memo[i].off;
			return c->memo[i].n;
		}
	}
	uint32_t n = agentls_kids(c, node, off);
	if (c->nmemo < AGENTLS_MEMO) {
		c->memo[c->nmemo++] = (agentls_memo){node.id, ts_node_start_byte(node), *off, n};
	}
	return n;
}

static void agentls_emit(agentls_wctx *c) {
	if (c->within) {
		for (uint32_t i = 0; i < c->ncaps; i++) {
			TSNode k = c->caps[i].node;
			if (ts_node_start_byte(k) < c->lo || ts_node_end_byte(k) > c->hi) {
				return;
			}
		}
	}
	for (uint32_t i = 0; i < c->ncaps; i++) {
		if (c->n == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : 64;
			agentls_capture *g = realloc(c->out, ncap * sizeof *g);
			if (!g) {
				c->oom = true;
				return;
			}
			c->out = g;
			c->cap = ncap;
		}
		TSNode k = c->caps[i].node;
		TSPoint s = ts_node_start_point(k), e = ts_node_end_point(k);
		agentls_capture r = {c->ord, c->pattern, c->caps[i].id, ts_node_start_byte(k), ts_node_end_byte(k), s.row, s.column, e.row, e.column};
		c->out[c->n++] = r;
	}
	c->ord++;
}

static bool agentls_push_caps(agentls_wctx *c, const agentls_step *s, TSNode node) {
	if (c->ncaps + s->ncaps > AGENTLS_MAXCAPSTACK) {
		c->oom = true;
		return false;
	}
	for (uint8_t i = 0; i < s->ncaps; i++) {
		c->caps[c->ncaps++] = (agentls_cap){s->caps[i], node};
	}
	return true;
}

// agentls_node_ok reports whether kid k is a node that step s can match
// (its symbol, field, negated field and last-child anchor; not its
// children).
static bool agentls_node_ok(const agentls_step *s, const agentls_kid *k) {
	if (s->symbol == AGENTLS_WILDCARD) {
		if (!k->named || k->symbol == AGENTLS_ERROR) {
			return false;
		}
	} else if (k->symbol != s->symbol) {
		return false;
	}
	if (s->field && k->field != s->field) {
		return false;
	}
	if (s->last && k->later_named) {
		return false;
	}
	if (s->neg_field && ts_node_child_by_field_id(k->node, s->neg_field).id) {
		return false;
	}
	return true;
}

// agentls_solve matches the goals (sequences of steps against children,
// the innermost last) in every way, emitting a match for each.
static void agentls_solve(agentls_wctx *c, agentls_goal *goals, int ng) {
	if (c->oom) {
		return;
	}
	if (ng == 0) {
		agentls_emit(c);
		return;
	}
	agentls_goal g = goals[ng - 1];
	if (g.step < 0) {
		agentls_solve(c, goals, ng - 1);
		goals[ng - 1] = g;
		return;
	}
	const agentls_step *steps = c->w->steps;
	for (int16_t a = g.step; a >= 0; a = steps[a].alt) {
		const agentls_step *s = &steps[a];
		for (uint32_t i = g.from; i < g.n; i++) {
			agentls_kid k = c->kids[g.off + i]; // a copy: the arena may move
			if (agentls_node_ok(s, &k)) {
				uint32_t mark = c->ncaps;
				if (agentls_push_caps(c, s, k.node)) {
					goals[ng - 1] = (agentls_goal){g.off, g.n, i + 1, s->next};
					if (s->child >= 0) {
						if (ng < AGENTLS_MAXGOALS) {
							uint32_t off, n = agentls_kids_memo(c, k.node, &off);
							goals[ng] = (agentls_goal){off, n, 0, s->child};
							agentls_solve(c, goals, ng + 1);
						} else {
							c->oom = true;
						}
					} else {
						agentls_solve(c, goals, ng);
					}
					goals[ng - 1] = g;
				}
				c->ncaps = mark;
				if (c->oom) {
					return;
				}
			}
			if (s->immediate && k.named) {
				break; // an anchored step cannot skip a named node
			}
			if (s->field && k.field == s->field && !k.later_field) {
				// No later sibling can have the field, says the grammar's
				// field map, and the query engine looks no further (even
				// where one does: the names after the first of Go's
				// `const a, b = 1, 2`, in a repeat).
				break;
			}
		}
	}
}

// agentls_try matches the patterns that start at node.
static void agentls_try(agentls_wctx *c, TSNode node, uint16_t symbol) {
	const agentls_walker *w = c->w;
	uint32_t kidsoff = 0, nkids = 0;
	bool haveKids = false;
	for (uint32_t r = w->root_off[symbol]; r < w->root_off[symbol + 1] && !c->oom; r++) {
		const agentls_step *s = &w->steps[w->roots[r]];
		if (s->neg_field && ts_node_child_by_field_id(node, s->neg_field).id) {
			continue;
		}
		c->ncaps = 0;
		c->pattern = w->pattern[r];
		agentls_push_caps(c, s, node);
		if (s->child < 0) {
			agentls_emit(c);
			continue;
		}
		if (!haveKids) {
			nkids = agentls_kids(c, node, &kidsoff);
			haveKids = true;
		}
		agentls_goal goals[AGENTLS_MAXGOALS];
		goals[0] = (agentls_goal){kidsoff, nkids, 0, s->child};
		agentls_solve(c, goals, 1);
	}
	c->nkids = 0;
	c->nmemo = 0;
}

// agentls_walk finds the matches of w's patterns in the tree of root as
// tree-sitter's query cursor does with max start depth depth and byte
// range [lo, hi) (agentls_run_range of cquery.go): patterns start at the
// nodes that overlap the range, within depth levels of root; with within,
// only the matches whose captures all lie in the range are kept. The
// captures come in one malloc'd array of *count records (the caller
// frees it); NULL when out of memory.
static agentls_capture *agentls_walk(const agentls_walker *w, TSNode root, uint32_t depth, uint32_t lo, uint32_t hi, bool within, uint32_t *count) {
	agentls_wctx c;
	memset(&c, 0, sizeof c);
	c.w = w;
	c.lo = lo;
	c.hi = hi;
	c.within = within && !(lo == 0 && hi == UINT32_MAX);
	c.kc = ts_tree_cursor_new(root);
	TSTreeCursor tc = ts_tree_cursor_new(root);
	uint32_t d = 0;
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&tc);
		uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);
		bool in = e > lo && s < hi, down = in && d < depth;
		if (in) {
			uint16_t sym = ts_node_symbol(node);
			if (sym < w->nsymbols && w->root_off[sym] < w->root_off[sym + 1]) {
				agentls_try(&c, node, sym);
				if (c.oom) {
					break;
				}
			}
			// A subtree that the grammar says holds no pattern root is
			// skipped, unless error recovery put something else in it.
			if (down && sym < w->nskip && w->skip[sym] && !ts_node_has_error(node)) {
				down = false;
			}
		}
		if (down && ts_tree_cursor_goto_first_child(&tc)) {
			d++;
			continue;
		}
		bool more = false;
		while (!(more = ts_tree_cursor_goto_next_sibling(&tc))) {
			if (d == 0 || !ts_tree_cursor_goto_parent(&tc)) {
				break;
			}
			d--;
		}
		if (!more) {
			break;
		}
	}
	ts_tree_cursor_delete(&tc);
	ts_tree_cursor_delete(&c.kc);
	free(c.kids);
	if (c.oom) {
		free(c.out);
		*count = 0;
		return NULL;
	}
	*count = c.n;
	if (!c.out) {
		c.out = malloc(sizeof *c.out); // no matches: an empty array, not an error
	}
	return c.out;
}

// agentls_parse_walk parses text afresh, walks the tree and frees it: the
// build's one cgo call per file. *parsed is false when the parser gave no
// tree.
static agentls_capture *agentls_parse_walk(TSParser *p, const char *text, uint32_t length, const agentls_walker *w, uint32_t depth, uint32_t *count, bool *parsed) {
	*count = 0;
	TSTree *tree = ts_parser_parse_string(p, NULL, text, length);
	*parsed = tree != NULL;
	if (!tree) {
		return NULL;
	}
	agentls_capture *out = agentls_walk(w, ts_tree_root_node(tree), depth, 0, UINT32_MAX, true, count);
	ts_tree_delete(tree);
	return out;
}

static uint16_t agentls_symbol(const TSParser *p, const char *name, uint32_t n) {
	return ts_language_symbol_for_name(ts_parser_language(p), name, n, true);
}

static uint16_t agentls_field(const TSParser *p, const char *name, uint32_t n) {
	return ts_language_field_id_for_name(ts_parser_language(p), name, n);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// A walker finds the matches of a language's definitions patterns with a
// walk of the tree that tries, at each node, only the patterns rooted at
// its symbol (compiled from the query's text by compileWalk): the same
// matches as tree-sitter's query cursor over the same tree (checked by
// TestWalkMatchesQuery), for a fraction of its cost. It lives in C memory
// for the life of the process, and is only read once built.
type walker struct{ c *C.agentls_walker }

// walkRange returns the captures of the matches of w in the tree of root
// that start within depth levels of it and overlap bytes [lo, hi); with
// within, only those whose captures all lie in the range: runQueryRange's
// inputs and outputs, without the query engine.
func walkRange(w walker, root node, depth, lo, hi uint32, within bool, buf []capture) []capture {
	var n C.uint32_t
	out := C.agentls_walk(w.c, *(*C.TSNode)(unsafe.Pointer(&root.c)), C.uint32_t(depth), C.uint32_t(lo), C.uint32_t(hi), C.bool(within), &n)
	return copyCaptures(out, n, buf)
}

// parseWalk is parseRun with the walk instead of the query.
func parseWalk(p *sitter.Parser, text []byte, w walker, depth uint32, buf []capture) ([]capture, error) {
	cp := (*C.TSParser)(parserC(p))
	ptr := (*C.char)(unsafe.Pointer(&emptyText[0]))
	if len(text) > 0 {
		ptr = (*C.char)(unsafe.Pointer(unsafe.SliceData(text)))
	}
	var n C.uint32_t
	var parsed C.bool
	out := C.agentls_parse_walk(cp, ptr, C.uint32_t(len(text)), w.c, C.uint32_t(depth), &n, &parsed)
	if !parsed {
		return buf[:0], errNoTree
	}
	return copyCaptures(out, n, buf), nil
}

// pstep is a step of a pattern being compiled (see agentls_step).
type pstep struct {
	symbol, field, negField uint16
	immediate, last         bool
	caps                    []uint16
	kids                    []*pstep // the children's steps, in order
	alts                    []*pstep // for an alternation: its members
}

// compileWalk compiles the definitions patterns of src (a query's text)
// for p's language; names are its captures by id, numbered as
// tree-sitter does (in order of first appearance). It refuses what it
// does not implement (quantifiers, predicates, anonymous nodes, a pattern
// rooted at an alternation or a wildcard): the language then keeps the
// query.
func compileWalk(p *sitter.Parser, lang string, src []byte) (w walker, names []string, err error) {
	cp := (*C.TSParser)(parserC(p))
	sc := &scmScanner{src: src}
	sc.symbol = func(name string) uint16 {
		cs := C.CString(name)
		defer C.free(unsafe.Pointer(cs))
		return uint16(C.agentls_symbol(cp, cs, C.uint32_t(len(name))))
	}
	sc.field = func(name string) uint16 {
		cs := C.CString(name)
		defer C.free(unsafe.Pointer(cs))
		return uint16(C.agentls_field(cp, cs, C.uint32_t(len(name))))
	}
	var roots []*pstep
	for {
		sc.skip()
		if sc.i >= len(sc.src) {
			break
		}
		s, err := sc.expr()
		if err != nil {
			return walker{}, nil, err
		}
		if s.alts != nil || s.symbol == C.AGENTLS_WILDCARD {
			return walker{}, nil, fmt.Errorf("pattern %d: the walk takes only patterns rooted at a named node", len(roots))
		}
		roots = append(roots, s)
	}
	// Lay the steps out: each pattern's tree in preorder.
	var steps []C.agentls_step
	var lay func(s *pstep, next int16) (int16, error)
	layOne := func(s *pstep, next int16) (int16, error) {
		i := len(steps)
		if i >= 1<<15-1 {
			return 0, fmt.Errorf("too many steps")
		}
		if len(s.caps) > C.AGENTLS_MAXCAPS {
			return 0, fmt.Errorf("more than %d captures on one node", C.AGENTLS_MAXCAPS)
		}
		st := C.agentls_step{symbol: C.uint16_t(s.symbol), field: C.uint16_t(s.field), neg_field: C.uint16_t(s.negField),
			ncaps: C.uint8_t(len(s.caps)), child: -1, next: C.int16_t(next), alt: -1}
		if s.immediate {
			st.immediate = 1
		}
		if s.last {
			st.last = 1
		}
		for j, c := range s.caps {
			st.caps[j] = C.uint16_t(c)
		}
		steps = append(steps, st)
		// The children: laid out last to first so that each knows the
		// index of the next.
		child := int16(-1)
		for j := len(s.kids) - 1; j >= 0; j-- {
			k, err := lay(s.kids[j], child)
			if err != nil {
				return 0, err
			}
			child = k
		}
		steps[i].child = C.int16_t(child)
		return int16(i), nil
	}
	lay = func(s *pstep, next int16) (int16, error) {
		if s.alts == nil {
			return layOne(s, next)
		}
		first, prev := int16(-1), int16(-1)
		for _, a := range s.alts {
			k, err := layOne(a, next)
			if err != nil {
				return 0, err
			}
			if prev >= 0 {
				steps[prev].alt = C.int16_t(k)
			} else {
				first = k
			}
			prev = k
		}
		return first, nil
	}
	rootStep := make([]int16, len(roots))
	nsym := uint32(0)
	for i, r := range roots {
		k, err := lay(r, -1)
		if err != nil {
			return walker{}, nil, err
		}
		rootStep[i] = k
		nsym = max(nsym, uint32(r.symbol)+1)
	}
	// By symbol, in pattern order.
	off := make([]uint32, nsym+1)
	for _, r := range roots {
		off[r.symbol+1]++
	}
	for i := 1; i <= int(nsym); i++ {
		off[i] += off[i-1]
	}
	rs := make([]uint32, len(roots))
	pat := make([]uint16, len(roots))
	fill := append([]uint32(nil), off...)
	for i, r := range roots {
		j := fill[r.symbol]
		fill[r.symbol]++
		rs[j] = uint32(rootStep[i])
		pat[j] = uint16(i)
	}
	cw := (*C.agentls_walker)(C.calloc(1, C.size_t(unsafe.Sizeof(C.agentls_walker{}))))
	cw.steps = (*C.agentls_step)(cCopy(steps))
	cw.nsymbols = C.uint32_t(nsym)
	cw.root_off = (*C.uint32_t)(cCopy(off))
	cw.roots = (*C.uint32_t)(cCopy(rs))
	cw.pattern = (*C.uint16_t)(cCopy(pat))
	var skip []uint8
	for _, name := range walkSkip[lang] {
		sym := sc.symbol(name)
		if sym == 0 {
			return walker{}, nil, fmt.Errorf("walkSkip: no node type %q", name)
		}
		for int(sym) >= len(skip) {
			skip = append(skip, 0)
		}
		skip[sym] = 1
	}
	cw.nskip = C.uint32_t(len(skip))
	cw.skip = (*C.uint8_t)(cCopy(skip))
	return walker{cw}, sc.names, nil
}

// walkSkip lists, by language, the node types below which the grammar
// allows no node where a definitions pattern starts: the walk does not
// look into them (it still tries the node itself, and the patterns
// matched above it read what they need of it). Each entry must hold for
// every tree the grammar can build, not only for the corpora: where a
// type can hold a block, a closure or a class body it is not here.
// Python's compound statements (the only definitions) stand only in a
// module, a block or a decorated definition, never in an expression or a
// simple statement. Rust's token trees (macro arguments and bodies,
// attribute arguments) hold only tokens, and paths of a use only names.
var walkSkip = map[string][]string{
	"python": {
		"expression_statement", "return_statement", "import_statement", "import_from_statement",
		"future_import_statement", "assert_statement", "delete_statement", "raise_statement",
		"global_statement", "nonlocal_statement", "print_statement", "exec_statement",
		"parameters", "lambda_parameters", "argument_list", "decorator", "string",
		"concatenated_string", "call", "attribute", "subscript", "binary_operator",
		"comparison_operator", "boolean_operator", "not_operator", "unary_operator", "list",
		"tuple", "dictionary", "set", "list_comprehension", "dictionary_comprehension",
		"set_comprehension", "generator_expression", "lambda", "conditional_expression",
		"keyword_argument", "type", "parenthesized_expression",
	},
	"rust": {"use_declaration", "token_tree", "visibility_modifier", "macro_rule", "string_literal", "raw_string_literal"},
}

// cCopy copies s to C memory (never freed: a walker lives as long as the
// process).
func cCopy[T any](s []T) unsafe.Pointer {
	size := uintptr(len(s)) * unsafe.Sizeof(*new(T))
	p := C.malloc(C.size_t(max(size, 1)))
	if len(s) > 0 {
		copy(unsafe.Slice((*T)(p), len(s)), s)
	}
	return p
}
