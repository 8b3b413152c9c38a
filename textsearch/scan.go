package textsearch

import (
	"bytes"
)

// scanner runs a Pattern over texts. It holds per-text state (the
// prefilter's cached positions): one scanner per goroutine.
type scanner struct {
	p  *Pattern
	f  *finder     // nil: no prefilter
	lf *lineFilter // without a prefilter: the DFA, when it is of use
}

func (p *Pattern) newScanner() *scanner {
	s := &scanner{p: p}
	if len(p.lits) > 0 {
		s.f = newFinder(p.lits, p.fold)
	} else if p.prog != nil && !p.opts.Multiline {
		s.lf = newLineFilter(p.prog)
		if s.lf.match[s.lf.start] { // every line may match
			s.lf = nil
		}
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

// scanLines runs the regexp over every line: the pattern has no literal to
// look for first. Lines are handed to the regexp in chunks of whole lines
// (a match cannot span a line, so the first match in a chunk is on its
// first matching line), sized so that Go's backtracker, its fastest
// general engine, still takes them.
func (s *scanner) scanLines(data []byte, fn func(h hit) bool) {
	re := s.p.re
	ls := 0
	for s.lf != nil && !s.lf.failed && ls < len(data) {
		end, ok := s.lf.next(data, ls)
		if !ok {
			break // too many states: scan the rest with the regexp
		}
		if end < 0 {
			return
		}
		hs := bytes.LastIndexByte(data[ls:end], '\n') + 1 + ls
		if loc := re.FindIndex(data[hs:end]); loc != nil {
			if !fn(hit{hs, end, hs + loc[0], hs + loc[1]}) {
				return
			}
		}
		ls = end + 1
	}
	chunk := s.p.chunk
	for ls < len(data) {
		end := len(data)
		if end-ls > chunk {
			end = ls + chunk
			if i := bytes.LastIndexByte(data[ls:end], '\n'); i > 0 {
				end = ls + i
			} else {
				end = lineEnd(data, ls)
			}
		}
		loc := re.FindIndex(data[ls:end])
		if loc == nil {
			ls = end + 1
			continue
		}
		ms := ls + loc[0]
		if ms == len(data) && data[ms-1] == '\n' {
			return // an empty match after the last line is on no line
		}
		hs := bytes.LastIndexByte(data[ls:ms], '\n') + 1 + ls
		he := lineEnd(data, ms)
		if !fn(hit{hs, he, ms, ls + loc[1]}) {
			return
		}
		ls = he + 1
	}
}

// multilineBatch is how many matches scanMultiline asks the regexp for at
// once: FindAllIndex holds them all, and a part of a file can hold millions.
var multilineBatch = 4096 // a variable for the tests

func (s *scanner) scanMultiline(data []byte, fn func(h hit) bool) {
	if s.f != nil {
		s.f.reset()
		if st, _ := s.f.find(data, 0); st < 0 {
			return
		}
	}
	lastLine := -1
	pos, after := 0, 0 // search data[pos:]; pass over matches before after
	n := multilineBatch
	for {
		locs := s.p.re.FindAllIndex(data[pos:], n)
		for _, loc := range locs {
			ms, me := pos+loc[0], pos+loc[1]
			if ms < after {
				continue
			}
			if ms == len(data) && (ms == 0 || data[ms-1] == '\n') {
				return // an empty match after the last line is on no line
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
		if n < 0 || len(locs) < n {
			return
		}
		// Resume at the start of the line the last match ended on, where
		// ^ and \b see what they see in the whole text, passing over
		// matches before its end.
		last := locs[len(locs)-1]
		after = max(after, pos+max(last[1], last[0]+1))
		if after > len(data) {
			return
		}
		if next := bytes.LastIndexByte(data[:after], '\n') + 1; next > pos {
			pos = next
		} else {
			n = -1 // no later line start to resume at: the rest at once
		}
	}
}
