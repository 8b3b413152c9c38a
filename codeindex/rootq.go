package codeindex

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// rootQuery lets the definitions query run over a byte range from the
// children of the root that overlap it rather than from the root: the
// query cursor reads every child of the root for a range of one line, and the patterns rooted at the root node (C's
// (translation_unit (declaration ...)), JavaScript's (program
// (lexical_declaration ...))) look into every top-level declaration of
// the file. Those patterns, each a root node around one child pattern,
// run unwrapped from each child instead, starting at the child only: they
// match it exactly when the wrapped pattern matches it as a child of the
// root.
type rootQuery struct {
	ok     bool   // the patterns can run from the root's children
	symbol uint16 // of the root node
	// The unwrapped patterns: a walk, or where l's patterns cannot run as
	// one a query (neither: none).
	walk walker
	q    *sitter.Query
	pat  []uint16 // pattern of the unwrapped -> pattern of l's
	capt []uint16 // capture of the unwrapped -> capture of l's
}

var rootQueries sync.Map // *Language -> *rootQuery

// rootQueryOf returns the root query of l (loaded), made on first use.
// ok is false when the patterns cannot run from the root's children:
// Go's count their start depth from the root, and a pattern that may
// start at the root other than as a root node around one child (a
// wildcard, a capture of the root, fields, anchors or several children
// under it) keeps them at the root.
func rootQueryOf(l *Language) *rootQuery {
	if v, ok := rootQueries.Load(l); ok {
		return v.(*rootQuery)
	}
	rq, err := makeRootQuery(l)
	if err != nil {
		rq = &rootQuery{}
	}
	v, _ := rootQueries.LoadOrStore(l, rq)
	return v.(*rootQuery)
}

func makeRootQuery(l *Language) (*rootQuery, error) {
	if l.maxDepth > 0 {
		return nil, fmt.Errorf("start depth counted from the root")
	}
	defSrc := l.defSrc
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(l.lang)
	unlock := l.parsing()
	tree, err := p.ParseCtx(context.Background(), nil, []byte{})
	unlock()
	if err != nil {
		return nil, err
	}
	root := tree.RootNode()
	name, symbol := root.Type(), uint16(root.Symbol())
	tree.Close()
	forms, ok := sexpForms(defSrc, 0, len(defSrc))
	if !ok {
		return nil, fmt.Errorf("query of %s: a top-level form that is not a node", l.Name)
	}
	rq := &rootQuery{ok: true, symbol: symbol}
	var inner []string
	for i, f := range forms {
		head := sexpHead(defSrc, f)
		if head == "_" {
			return nil, fmt.Errorf("a wildcard pattern")
		}
		if head != name {
			continue
		}
		if f.suffix > f.end {
			return nil, fmt.Errorf("a capture of the root")
		}
		kids, ok := sexpForms(defSrc, f.start+1+len(name), f.end-1)
		if !ok || len(kids) != 1 || bytes.ContainsAny(defSrc[kids[0].end:kids[0].suffix], "*+?") {
			return nil, fmt.Errorf("a root pattern with other than one child pattern")
		}
		inner = append(inner, string(defSrc[kids[0].start:kids[0].suffix]))
		rq.pat = append(rq.pat, uint16(i)) // tree-sitter numbers the patterns in order
	}
	if len(inner) == 0 {
		return rq, nil
	}
	// The captures of both, by name. The unwrapped patterns run as a walk
	// where l's can (compiled from the text, without the query's costly
	// analysis: 100-300 ms for C++), else as a query.
	src := []byte(strings.Join(inner, "\n"))
	var unames []string
	if l.walk.c != nil {
		// The walk lives as long as the process, as l's does.
		if rq.walk, unames, err = compileWalk(p, l.Name, src); err != nil {
			return nil, err
		}
	} else {
		if rq.q, err = sitter.NewQuery(src, l.lang); err != nil {
			return nil, err
		}
		unames = captureNames(rq.q)
	}
	names := l.defNames
	for _, u := range unames {
		i := slices.Index(names, u)
		if i < 0 {
			return nil, fmt.Errorf("capture %q", u)
		}
		rq.capt = append(rq.capt, uint16(i))
	}
	return rq, nil
}

// sexpForm is a top-level form of a query: a parenthesized node pattern
// at src[start:end), with its captures and quantifier up to suffix.
type sexpForm struct{ start, end, suffix int }

// sexpForms returns the forms of src[i:end] at its top level; ok is false
// when something else is there (a string, a wildcard, a field name, an
// anchor, a predicate, an alternation), or the brackets do not match.
func sexpForms(src []byte, i, end int) (forms []sexpForm, ok bool) {
	skip := func() {
		for i < end {
			switch c := src[i]; {
			case c == ';':
				for i < end && src[i] != '\n' {
					i++
				}
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				i++
			default:
				return
			}
		}
	}
	for skip(); i < end; skip() {
		if src[i] != '(' || i+1 < end && src[i+1] == '#' {
			return nil, false
		}
		start, depth := i, 0
		for ; i < end; i++ {
			switch src[i] {
			case '"':
				for i++; i < end && src[i] != '"'; i++ {
					if src[i] == '\\' {
						i++
					}
				}
			case ';':
				for i < end && src[i] != '\n' {
					i++
				}
			case '(', '[':
				depth++
			case ')', ']':
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if i >= end {
			return nil, false
		}
		i++
		f := sexpForm{start: start, end: i, suffix: i}
		for skip(); i < end && (src[i] == '@' || src[i] == '*' || src[i] == '+' || src[i] == '?'); skip() {
			for i++; i < end && (isIdentByte(src[i]) || src[i] == '.' || src[i] == '-'); i++ {
			}
			f.suffix = i
		}
		forms = append(forms, f)
	}
	return forms, true
}

// sexpHead returns the node type that form f starts with.
func sexpHead(src []byte, f sexpForm) string {
	j := f.start + 1
	for j < f.end && (isIdentByte(src[j]) || src[j] == '.') {
		j++
	}
	return string(src[f.start+1 : j])
}
