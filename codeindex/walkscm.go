package codeindex

import (
	"fmt"
	"strings"
)

// scmScanner reads the part of tree-sitter's query language that the
// definitions patterns use, for compileWalk: nodes `(type child...)` and
// `(_ ...)`, fields `name:`, negated fields `!name`, anchors `.`,
// alternations `[...]`, captures `@name` and `;` comments. Anything else
// is an error (the language keeps the query).
type scmScanner struct {
	src    []byte
	i      int
	symbol func(string) uint16 // a named node's symbol, 0 if none
	field  func(string) uint16 // a field's id, 0 if none
	capID  map[string]uint16   // ids by name, as they appear
	names  []string            // names by id
}

func (s *scmScanner) skip() {
	for s.i < len(s.src) {
		switch c := s.src[s.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.i++
		case c == ';':
			for s.i < len(s.src) && s.src[s.i] != '\n' {
				s.i++
			}
		default:
			return
		}
	}
}

func isScmByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

func (s *scmScanner) ident() string {
	j := s.i
	for s.i < len(s.src) && isScmByte(s.src[s.i]) {
		s.i++
	}
	return string(s.src[j:s.i])
}

func (s *scmScanner) errorf(format string, args ...any) error {
	line := 1 + strings.Count(string(s.src[:min(s.i, len(s.src))]), "\n")
	return fmt.Errorf("query line %d: "+format, append([]any{line}, args...)...)
}

// captures reads the captures after an expression.
func (s *scmScanner) captures(st *pstep) error {
	for {
		s.skip()
		if s.i >= len(s.src) || s.src[s.i] != '@' {
			return nil
		}
		s.i++
		name := s.ident()
		if name == "" {
			return s.errorf("a capture with no name")
		}
		id, ok := s.capID[name]
		if !ok {
			if s.capID == nil {
				s.capID = map[string]uint16{}
			}
			id = uint16(len(s.names))
			s.capID[name] = id
			s.names = append(s.names, name)
		}
		if st.alts != nil {
			for _, a := range st.alts {
				a.caps = append(a.caps, id)
			}
		} else {
			st.caps = append(st.caps, id)
		}
	}
}

// expr reads a node or an alternation with its captures.
func (s *scmScanner) expr() (*pstep, error) {
	s.skip()
	if s.i >= len(s.src) {
		return nil, s.errorf("unexpected end")
	}
	var st *pstep
	switch s.src[s.i] {
	case '[':
		s.i++
		st = &pstep{}
		for {
			s.skip()
			if s.i < len(s.src) && s.src[s.i] == ']' {
				s.i++
				break
			}
			a, err := s.expr()
			if err != nil {
				return nil, err
			}
			if a.alts != nil {
				return nil, s.errorf("nested alternation")
			}
			st.alts = append(st.alts, a)
		}
		if len(st.alts) == 0 {
			return nil, s.errorf("empty alternation")
		}
	case '(':
		s.i++
		s.skip()
		name := s.ident()
		st = &pstep{}
		switch {
		case name == "_":
			st.symbol = 0xFFFF
		case name == "" || strings.HasPrefix(name, "#"):
			return nil, s.errorf("not a node type")
		default:
			st.symbol = s.symbol(name)
			if st.symbol == 0 {
				return nil, s.errorf("no node type %q", name)
			}
		}
		if err := s.children(st); err != nil {
			return nil, err
		}
	default:
		return nil, s.errorf("unexpected %q", s.src[s.i])
	}
	if err := s.captures(st); err != nil {
		return nil, err
	}
	s.skip()
	if s.i < len(s.src) && (s.src[s.i] == '*' || s.src[s.i] == '+' || s.src[s.i] == '?') {
		return nil, s.errorf("quantifiers are not implemented")
	}
	return st, nil
}

// children reads the children of a node up to its closing parenthesis.
func (s *scmScanner) children(st *pstep) error {
	anchored := false
	for {
		s.skip()
		if s.i >= len(s.src) {
			return s.errorf("unclosed node")
		}
		switch c := s.src[s.i]; {
		case c == ')':
			s.i++
			if anchored {
				if len(st.kids) == 0 {
					return s.errorf("an anchor with no child")
				}
				last := st.kids[len(st.kids)-1]
				for _, a := range members(last) {
					a.last = true
				}
			}
			return nil
		case c == '.':
			s.i++
			anchored = true
		case c == '!':
			s.i++
			name := s.ident()
			id := s.field(name)
			if id == 0 || st.negField != 0 {
				return s.errorf("negated field %q", name)
			}
			st.negField = id
		case c == '(' || c == '[':
			k, err := s.expr()
			if err != nil {
				return err
			}
			s.child(st, k, 0, anchored)
			anchored = false
		case isScmByte(c):
			name := s.ident()
			s.skip()
			if s.i >= len(s.src) || s.src[s.i] != ':' {
				return s.errorf("%q is not a field", name)
			}
			s.i++
			id := s.field(name)
			if id == 0 {
				return s.errorf("no field %q", name)
			}
			k, err := s.expr()
			if err != nil {
				return err
			}
			s.child(st, k, id, anchored)
			anchored = false
		default:
			return s.errorf("unexpected %q", c)
		}
	}
}

func (s *scmScanner) child(st, k *pstep, field uint16, immediate bool) {
	for _, a := range members(k) {
		a.field = field
		a.immediate = immediate
	}
	st.kids = append(st.kids, k)
}

// members returns the alternatives of an alternation, or the step.
func members(st *pstep) []*pstep {
	if st.alts != nil {
		return st.alts
	}
	return []*pstep{st}
}
