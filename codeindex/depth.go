package codeindex

/*
#include <stdint.h>
typedef struct TSQueryCursor TSQueryCursor;
void ts_query_cursor_set_max_start_depth(TSQueryCursor *self, uint32_t max_start_depth);
*/
import "C"

import (
	"math"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// setMaxStartDepth limits the depth at which matches of the next Exec may
// start; the cursor then skips subtrees no pattern can reach, which makes
// a top-level-only query cost a fraction of a full walk. The binding does
// not expose the call, so the C cursor is taken from the first field of
// sitter.QueryCursor (checked by TestMaxStartDepth).
func setMaxStartDepth(qc *sitter.QueryCursor, depth uint32) {
	c := *(**C.TSQueryCursor)(unsafe.Pointer(qc))
	C.ts_query_cursor_set_max_start_depth(c, C.uint32_t(depth))
}

const anyDepth = math.MaxUint32
