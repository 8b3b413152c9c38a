package textsearch

import (
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// lineFilter is a lazily built byte DFA that finds the lines that may hold a
// match of a pattern with no literal to search for. Go's regexp has no DFA;
// its backtracker costs tens of nanoseconds a byte, a DFA step about one.
//
// The DFA tracks line boundaries exactly (^ and $ hold only there) and
// over-approximates the rest: \b and \B always hold, and a byte of a multi-byte UTF-8 sequence may or may not complete a rune
// that an instruction could match. So it never misses a matching line, and
// every line it reports is confirmed by the regexp.
//
// A lineFilter holds its cache of states: one per goroutine.
type lineFilter struct {
	prog   *syntax.Prog
	states map[string]int32 // key of a set of instructions -> state
	sets   [][]uint32       // state -> its instructions
	match  []bool           // state -> holds a match
	trans  []int32          // state*256 + byte -> enc(next state); -1 not built yet
	start  int32            // at the start of a line
	eol    int32            // a match completed by the end of a line
	failed bool             // too many states: give up on this pattern
}

// maxDFAStates bounds the states built; past it the filter gives up.
const maxDFAStates = 2000

func newLineFilter(prog *syntax.Prog) *lineFilter {
	f := &lineFilter{prog: prog, states: map[string]int32{}}
	var set []uint32
	matched := f.closure(uint32(prog.Start), &set, make([]bool, len(prog.Inst)), atLineStart)
	f.start = f.state(set, matched)
	f.eol = f.state(nil, true)
	return f
}

// Where a closure is taken: what the empty-width assertions can see.
const (
	midLine     = 0
	atLineStart = 1
	atLineEnd   = 2
)

// closure adds pc and everything reachable from it without consuming a
// byte to set; it reports whether a Match is reachable.
// An end-of-line assertion not yet decided stays in the set, to be decided
// by the next byte.
func (f *lineFilter) closure(pc uint32, set *[]uint32, seen []bool, at int) bool {
	if seen[pc] {
		return false
	}
	seen[pc] = true
	in := &f.prog.Inst[pc]
	switch in.Op {
	case syntax.InstMatch:
		return true
	case syntax.InstFail:
		return false
	case syntax.InstAlt, syntax.InstAltMatch:
		a := f.closure(in.Out, set, seen, at)
		b := f.closure(in.Arg, set, seen, at)
		return a || b
	case syntax.InstCapture, syntax.InstNop:
		return f.closure(in.Out, set, seen, at)
	case syntax.InstEmptyWidth:
		op := syntax.EmptyOp(in.Arg)
		if op&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0 && at != atLineStart {
			return false
		}
		if op&(syntax.EmptyEndLine|syntax.EmptyEndText) != 0 && at != atLineEnd {
			*set = append(*set, pc) // decided by the next byte
			return false
		}
		return f.closure(in.Out, set, seen, at)
	}
	*set = append(*set, pc)
	return false
}

func (f *lineFilter) state(set []uint32, matched bool) int32 {
	slices.Sort(set)
	var b strings.Builder
	if matched {
		b.WriteByte('m')
	}
	for _, pc := range set {
		b.WriteString(strconv.FormatUint(uint64(pc), 36))
		b.WriteByte(',')
	}
	key := b.String()
	if s, ok := f.states[key]; ok {
		return s
	}
	s := int32(len(f.sets))
	f.states[key] = s
	f.sets = append(f.sets, set)
	f.match = append(f.match, matched)
	for range 256 {
		f.trans = append(f.trans, -1)
	}
	if len(f.sets) > maxDFAStates {
		f.failed = true
	}
	return s
}

// step builds the transition of state s on byte c.
func (f *lineFilter) step(s int32, c byte) int32 {
	if c == '\n' {
		t := f.start
		if f.endsLine(s) {
			t = f.eol
		}
		f.trans[int(s)*256+int(c)] = f.enc(t)
		return t
	}
	seen := make([]bool, len(f.prog.Inst))
	var next []uint32
	matched := false
	for _, pc := range f.sets[s] {
		in := &f.prog.Inst[pc]
		if in.Op == syntax.InstEmptyWidth {
			continue // an end-of-line assertion, and this is not the end
		}
		if c < utf8.RuneSelf {
			if in.MatchRune(rune(c)) {
				matched = f.closure(in.Out, &next, seen, midLine) || matched
			}
			continue
		}
		if nonASCII(in) {
			// Part of a multi-byte rune: maybe the rune ends here, maybe not.
			matched = f.closure(in.Out, &next, seen, midLine) || matched
			if !seen[pc] {
				seen[pc] = true
				next = append(next, pc)
			}
		}
	}
	// Unanchored: a match may start at any byte.
	matched = f.closure(uint32(f.prog.Start), &next, seen, midLine) || matched
	t := f.state(next, matched || f.match[s])
	f.trans[int(s)*256+int(c)] = f.enc(t)
	return t
}

// enc is how trans holds state t: its row offset, negated (below -1) for a
// match state, so that the scan loop tests one sign.
func (f *lineFilter) enc(t int32) int32 {
	if f.match[t] {
		return -t*256 - 2
	}
	return t * 256
}

// endsLine reports whether the end of the line completes a match from s.
func (f *lineFilter) endsLine(s int32) bool {
	seen := make([]bool, len(f.prog.Inst))
	var next []uint32
	for _, pc := range f.sets[s] {
		if in := &f.prog.Inst[pc]; in.Op == syntax.InstEmptyWidth && f.closure(in.Out, &next, seen, atLineEnd) {
			return true
		}
	}
	return false
}

// nonASCII reports whether in may match a rune outside ASCII.
func nonASCII(in *syntax.Inst) bool {
	switch in.Op {
	case syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		return true
	case syntax.InstRune1:
		return in.Rune[0] >= utf8.RuneSelf || syntax.Flags(in.Arg)&syntax.FoldCase != 0
	case syntax.InstRune:
		if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
			return true
		}
		for i := 1; i < len(in.Rune); i += 2 {
			if in.Rune[i] >= utf8.RuneSelf {
				return true
			}
		}
		if len(in.Rune) == 1 {
			return in.Rune[0] >= utf8.RuneSelf
		}
	}
	return false
}

// next returns the end of the first line at or after from that may hold a
// match (the offset of its '\n', or len(data)), or -1 when none does. ok is
// false when the filter gave up (too many states).
func (f *lineFilter) next(data []byte, from int) (end int, ok bool) {
	off := int(f.start) * 256
	row := (*[256]int32)(f.trans[off : off+256])
	for i := from; i < len(data); i++ {
		v := row[data[i]]
		if v >= 0 {
			if int(v) != off {
				off = int(v)
				row = (*[256]int32)(f.trans[off : off+256])
			}
			continue
		}
		if v == -1 {
			t := f.step(int32(off/256), data[i])
			if f.failed {
				return 0, false
			}
			if !f.match[t] {
				off = int(t) * 256
				row = (*[256]int32)(f.trans[off : off+256])
				continue
			}
		}
		return lineEnd(data, i), true
	}
	if len(data) > from && data[len(data)-1] != '\n' && f.endsLine(int32(off/256)) {
		return len(data), true
	}
	return -1, true
}
