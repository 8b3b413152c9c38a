package textsearch

import (
	"bytes"
)

// scanner runs a Pattern over texts. It holds per-text state (the
// prefilter's cached positions): one scanner per goroutine.
type scanner struct {
	p *Pattern
	f *finder // nil: no prefilter
}

func (p *Pattern) newScanner() *scanner {
	s := &scanner{p: p}
	if len(p.lits) > 0 {
		s.f = newFinder(p.lits, p.fold)
	}
	return s
}

// hit is one reported match: the bounds of its first line in the text
// (le excludes the '\n') and of the match itself.
type hit struct {
	ls, le int
	ms, me int
}

// scan calls fn for every line that holds a match (outside multiline mode)
// or for every match (in multiline mode, once per first line), in order,
// until fn returns false.
func (s *scanner) scan(data []byte, fn func(h hit) bool) {
	if s.p.opts.Multiline {
		s.scanMultiline(data, fn)
		return
	}
	if s.f == nil {
		s.scanLines(data, fn)
		return
	}
	s.f.reset()
	re := s.p.re
	pos := 0
	for pos < len(data) {
		st, en := s.f.find(data, pos)
		if st < 0 {
			return
		}
		ls := bytes.LastIndexByte(data[pos:st], '\n') + 1 + pos
		le := len(data)
		if i := bytes.IndexByte(data[en:], '\n'); i >= 0 {
			le = en + i
		}
		if s.p.exact {
			if !fn(hit{ls, le, st, en}) {
				return
			}
		} else if loc := re.FindIndex(data[ls:le]); loc != nil {
			if !fn(hit{ls, le, ls + loc[0], ls + loc[1]}) {
				return
			}
		}
		pos = le + 1
	}
}

// scanLines runs the regexp on every line: the pattern has no literal to
// look for first.
func (s *scanner) scanLines(data []byte, fn func(h hit) bool) {
	re := s.p.re
	for ls := 0; ls < len(data); {
		le := len(data)
		if i := bytes.IndexByte(data[ls:], '\n'); i >= 0 {
			le = ls + i
		}
		if loc := re.FindIndex(data[ls:le]); loc != nil {
			if !fn(hit{ls, le, ls + loc[0], ls + loc[1]}) {
				return
			}
		}
		ls = le + 1
	}
}

func (s *scanner) scanMultiline(data []byte, fn func(h hit) bool) {
	if s.f != nil {
		s.f.reset()
		if st, _ := s.f.find(data, 0); st < 0 {
			return
		}
	}
	lastLine := -1
	for _, loc := range s.p.re.FindAllIndex(data, -1) {
		ms, me := loc[0], loc[1]
		if ms == len(data) && (ms == 0 || data[ms-1] == '\n') {
			break // an empty match after the last line is on no line
		}
		ls := bytes.LastIndexByte(data[:ms], '\n') + 1
		if ls == lastLine {
			continue
		}
		lastLine = ls
		le := len(data)
		if i := bytes.IndexByte(data[ms:], '\n'); i >= 0 {
			le = ms + i
		}
		if !fn(hit{ls, le, ms, me}) {
			return
		}
	}
}
