package codeindex

import (
	"fmt"
	"reflect"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// The binding (github.com/smacker/go-tree-sitter, the version pinned in
// go.mod) keeps each C object in an unexported field named c, and exposes
// neither the query cursor's max start depth, nor a parse from bytes it
// does not copy, nor a batch of captures in one call (see cquery.go). This
// file alone reaches into those fields; the offsets are looked up by name
// and type when the package starts, and TestBindingLayout fails loudly
// when a new version of the binding moves or renames them.

// bindingField is where a struct of the binding keeps its C object.
type bindingField struct {
	offset uintptr
	err    error
}

// fieldOf looks up the field c of T: a pointer (ptr) or a value of size
// bytes.
func fieldOf[T any](ptr bool, size uintptr) bindingField {
	t := reflect.TypeFor[T]()
	f, ok := t.FieldByName("c")
	switch {
	case !ok:
		return bindingField{err: fmt.Errorf("go-tree-sitter's %s has no field c", t.Name())}
	case ptr && f.Type.Kind() != reflect.Pointer:
		return bindingField{err: fmt.Errorf("go-tree-sitter's %s.c is a %s, not a pointer", t.Name(), f.Type.Kind())}
	case !ptr && f.Type.Size() != size:
		return bindingField{err: fmt.Errorf("go-tree-sitter's %s.c has %d bytes, not %d", t.Name(), f.Type.Size(), size)}
	}
	return bindingField{offset: f.Offset}
}

// tsNodeSize is the size of tree-sitter's TSNode: uint32_t context[4], two
// pointers.
const tsNodeSize = 16 + 2*unsafe.Sizeof(uintptr(0))

var (
	parserField      = fieldOf[sitter.Parser](true, 0)
	queryField       = fieldOf[sitter.Query](true, 0)
	queryCursorField = fieldOf[sitter.QueryCursor](true, 0)
	nodeField        = fieldOf[sitter.Node](false, tsNodeSize)
)

// bindingErr is the first layout error, or nil.
func bindingErr() error {
	for _, f := range []bindingField{parserField, queryField, queryCursorField, nodeField} {
		if f.err != nil {
			return f.err
		}
	}
	return nil
}

// cPointer reads the C pointer that a struct of the binding keeps at f.
func cPointer(p unsafe.Pointer, f bindingField) unsafe.Pointer {
	if f.err != nil {
		panic("codeindex: " + f.err.Error())
	}
	return *(*unsafe.Pointer)(unsafe.Add(p, f.offset))
}

// parserC returns the TSParser of p.
func parserC(p *sitter.Parser) unsafe.Pointer { return cPointer(unsafe.Pointer(p), parserField) }

// queryC returns the TSQuery of q.
func queryC(q *sitter.Query) unsafe.Pointer { return cPointer(unsafe.Pointer(q), queryField) }

// queryCursorC returns the TSQueryCursor of qc.
func queryCursorC(qc *sitter.QueryCursor) unsafe.Pointer {
	return cPointer(unsafe.Pointer(qc), queryCursorField)
}

// nodeC returns where n keeps its TSNode (a value, to be copied).
func nodeC(n *sitter.Node) unsafe.Pointer {
	if nodeField.err != nil {
		panic("codeindex: " + nodeField.err.Error())
	}
	return unsafe.Add(unsafe.Pointer(n), nodeField.offset)
}
