package codeindex

import "strings"

// Kind is what a symbol is, or for a reference, how a name is used.
type Kind uint8

// Symbol kinds. A reference uses KindCall or KindType (or KindRef for any
// other use).
const (
	KindUnknown Kind = iota
	KindFunction
	KindMethod
	KindClass
	KindStruct
	KindInterface
	KindType
	KindEnum
	KindConstant
	KindVariable
	KindField
	KindModule
	KindMacro
	KindCall
	KindTypeRef
	KindRef
)

var kindNames = [...]string{
	KindUnknown:   "unknown",
	KindFunction:  "function",
	KindMethod:    "method",
	KindClass:     "class",
	KindStruct:    "struct",
	KindInterface: "interface",
	KindType:      "type",
	KindEnum:      "enum",
	KindConstant:  "constant",
	KindVariable:  "variable",
	KindField:     "field",
	KindModule:    "module",
	KindMacro:     "macro",
	KindCall:      "call",
	KindTypeRef:   "type",
	KindRef:       "ref",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// kindOf maps the suffix of a @definition.X or @reference.X capture.
func kindOf(s string) Kind {
	switch s {
	case "function":
		return KindFunction
	case "method":
		return KindMethod
	case "class":
		return KindClass
	case "struct":
		return KindStruct
	case "interface":
		return KindInterface
	case "type":
		return KindType
	case "enum":
		return KindEnum
	case "constant":
		return KindConstant
	case "variable":
		return KindVariable
	case "field":
		return KindField
	case "module":
		return KindModule
	case "macro":
		return KindMacro
	case "call":
		return KindCall
	}
	return KindUnknown
}

// ParseKind maps a kind name (as printed by Kind.String) to a definition
// kind; ok is false for an unknown name.
func ParseKind(s string) (Kind, bool) {
	switch s {
	case "namespace", "package":
		return KindModule, true
	case "const":
		return KindConstant, true
	case "var":
		return KindVariable, true
	case "func":
		return KindFunction, true
	}
	k := kindOf(s)
	return k, k != KindUnknown && k != KindCall
}

// isContainer reports whether symbols nested in a symbol of kind k take it
// as their container.
func (k Kind) isContainer() bool {
	switch k {
	case KindClass, KindStruct, KindInterface, KindType, KindEnum, KindModule:
		return true
	}
	return false
}

// Pos is a position in a file: Line is 0-based, Col a 0-based byte offset
// in the line (UTF-8).
type Pos struct {
	Line, Col uint32
}

// Range is a half-open span of a file.
type Range struct {
	Start, End Pos
}

// Symbol is one definition.
type Symbol struct {
	Name      string
	Kind      Kind
	Container string // receiver type, class, namespace; "" at top level
	Path      string // relative to the workspace root, '/'-separated
	Range     Range  // the whole definition
	NameRange Range
	// Signature and Doc are filled in by the queries that return symbols
	// (Search, Definition, Outline, Ranked), not by Definitions.
	Signature string // the line that holds the name, trimmed
	Doc       string // the first line of the doc comment above, markers removed
}

// Ref is one use of a name.
type Ref struct {
	Name  string
	Kind  Kind // KindCall, KindTypeRef or KindRef
	Path  string
	Range Range  // of the name
	Line  string // the source line, trimmed

	receiverMatch bool // a use through the receiver a qualified query named
}

// Offset returns the byte offset of p in text (lines end with '\n'), or -1
// when text has no such line; a column past the end of its line is cut to
// the line's end. LSP handlers convert it with their position encoding.
func Offset(text string, p Pos) int {
	off := 0
	for line := uint32(0); line < p.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	end := len(text)
	if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
		end = off + i
	}
	return min(off+int(p.Col), end)
}
