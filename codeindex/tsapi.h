// Declarations matching tree-sitter's api.h (the version pinned in go.mod),
// for the C of cquery.go and walk.go; the definitions come from the
// go-tree-sitter package linked in. TestBindingLayout and TestWalkMatchesQuery
// fail when they stop matching the library.
#ifndef AGENTLS_TSAPI_H
#define AGENTLS_TSAPI_H

#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct TSQueryCursor TSQueryCursor;
typedef struct TSParser TSParser;
typedef struct TSQuery TSQuery;
typedef struct TSTree TSTree;
typedef struct TSLanguage TSLanguage;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { TSNode node; uint32_t index; } TSQueryCapture;
typedef struct { uint32_t id; uint16_t pattern_index; uint16_t capture_count; const TSQueryCapture *captures; } TSQueryMatch;
typedef struct { TSPoint start_point; TSPoint end_point; uint32_t start_byte; uint32_t end_byte; } TSRange;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
typedef struct { uint32_t start_byte, old_end_byte, new_end_byte; TSPoint start_point, old_end_point, new_end_point; } TSInputEdit;

TSTree *ts_parser_parse_string(TSParser *self, const TSTree *old_tree, const char *string, uint32_t length);
const TSLanguage *ts_parser_language(const TSParser *self);
uint16_t ts_language_symbol_for_name(const TSLanguage *self, const char *string, uint32_t length, bool is_named);
uint16_t ts_language_field_id_for_name(const TSLanguage *self, const char *name, uint32_t name_length);

TSNode ts_tree_root_node(const TSTree *self);
void ts_tree_edit(TSTree *self, const TSInputEdit *edit);
void ts_tree_delete(TSTree *self);
TSRange *ts_tree_get_changed_ranges(const TSTree *old_tree, const TSTree *new_tree, uint32_t *length);

uint16_t ts_node_symbol(TSNode self);
bool ts_node_is_named(TSNode self);
bool ts_node_is_extra(TSNode self);
bool ts_node_is_missing(TSNode self);
bool ts_node_has_error(TSNode self);
uint32_t ts_node_child_count(TSNode self);
TSNode ts_node_child_by_field_id(TSNode self, uint16_t field_id);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
TSPoint ts_node_start_point(TSNode self);
TSPoint ts_node_end_point(TSNode self);

TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_reset(TSTreeCursor *self, TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
bool ts_tree_cursor_goto_parent(TSTreeCursor *self);
int64_t ts_tree_cursor_goto_first_child_for_byte(TSTreeCursor *self, uint32_t goal_byte);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
// Private to tree-sitter (tree_cursor.c) but linked in: the facts about
// the cursor's node that the query engine matches with (the same call).
void ts_tree_cursor_current_status(const TSTreeCursor *self, uint16_t *field_id, bool *has_later_siblings,
	bool *has_later_named_siblings, bool *can_have_later_siblings_with_this_field, uint16_t *supertypes, unsigned *supertype_count);

void ts_query_cursor_set_byte_range(TSQueryCursor *self, uint32_t start_byte, uint32_t end_byte);
void ts_query_cursor_set_max_start_depth(TSQueryCursor *self, uint32_t max_start_depth);
void ts_query_cursor_exec(TSQueryCursor *self, const TSQuery *query, TSNode node);
bool ts_query_cursor_next_match(TSQueryCursor *self, TSQueryMatch *match);

// A capture as the C loops return it (runQuery's and the walk's alike:
// copyCaptures reads both).
typedef struct {
	uint32_t match;
	uint16_t pattern;
	uint16_t capture;
	uint32_t start_byte, end_byte;
	uint32_t start_row, start_col, end_row, end_col;
} agentls_capture;

#endif
