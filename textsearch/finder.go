package textsearch

import (
	"bytes"
)

// commonBytes lists bytes from most to least frequent in source code; a
// literal is searched by its least frequent byte (memchr, vectorised), each
// hit then checked in full. Bytes not listed count as rare.
const commonBytes = " et\t0rn\naiso,xclfdu1.pA(/)2mg:h\"=4b_3SE6Ty8Rv{}ICO5D\\P9LM7kBHwXNVF-[]UG*QW|!;+Yz$&"

var byteRank = func() (r [256]int) {
	for i := range r {
		r[i] = 0
	}
	for i := 0; i < len(commonBytes); i++ {
		r[commonBytes[i]] = len(commonBytes) - i
	}
	return r
}()

// litFinder finds one literal, exactly or ASCII case-insensitively.
type litFinder struct {
	lit  []byte // lowercased when fold
	fold bool
	rare int    // index in lit of the byte to scan for
	lo   byte   // lit[rare]
	hi   byte   // its upper case when fold and a letter, else lo
	next [2]int // cached next position of lo / hi at or after the last scan point; -1 none; -2 unknown
}

func newLitFinder(lit string, fold bool) *litFinder {
	f := &litFinder{lit: []byte(lit), fold: fold}
	best := 1 << 30
	for i := 0; i < len(lit); i++ {
		r := byteRank[lit[i]]
		if fold && 'a' <= lit[i] && lit[i] <= 'z' {
			r += byteRank[lit[i]-'a'+'A']
		}
		if r < best {
			best, f.rare = r, i
		}
	}
	f.lo, f.hi = lit[f.rare], lit[f.rare]
	if fold && 'a' <= f.lo && f.lo <= 'z' {
		f.hi = f.lo - 'a' + 'A'
	}
	return f
}

func (f *litFinder) reset() { f.next = [2]int{-2, -2} }

// find returns the start of the first occurrence of the literal at or after
// from, or -1. Calls on one text must have non-decreasing from.
func (f *litFinder) find(data []byte, from int) int {
	n := len(f.lit)
	if !f.fold {
		if n > 1 && f.rare == 0 {
			if i := bytes.Index(data[from:], f.lit); i >= 0 {
				return from + i
			}
			return -1
		}
	}
	for {
		pos := from + f.rare
		if pos >= len(data) {
			return -1
		}
		c := f.nextByte(data, pos, 0, f.lo)
		if f.hi != f.lo {
			if d := f.nextByte(data, pos, 1, f.hi); d >= 0 && (c < 0 || d < c) {
				c = d
			}
		}
		if c < 0 {
			return -1
		}
		start := c - f.rare
		if start+n <= len(data) && f.equal(data[start:start+n]) {
			return start
		}
		from = start + 1
	}
}

// nextByte is the position of b at or after pos, cached per stream.
func (f *litFinder) nextByte(data []byte, pos, stream int, b byte) int {
	c := f.next[stream]
	if c == -1 {
		return -1
	}
	if c >= pos {
		return c
	}
	i := bytes.IndexByte(data[pos:], b)
	if i < 0 {
		f.next[stream] = -1
		return -1
	}
	f.next[stream] = pos + i
	return pos + i
}

func (f *litFinder) equal(b []byte) bool {
	if !f.fold {
		return bytes.Equal(b, f.lit)
	}
	for i, c := range b {
		if lowerASCII(c) != f.lit[i] {
			return false
		}
	}
	return true
}

// finder finds the earliest occurrence of any of a set of literals. It holds
// per-text state: one finder per goroutine, reset before each text.
type finder struct {
	lits []*litFinder
	next []int // per literal: cached next start; -1 none; -2 unknown
}

func newFinder(lits []string, fold bool) *finder {
	f := &finder{next: make([]int, len(lits))}
	for _, l := range lits {
		f.lits = append(f.lits, newLitFinder(l, fold))
	}
	return f
}

func (f *finder) reset() {
	for i, l := range f.lits {
		l.reset()
		f.next[i] = -2
	}
}

// find returns the earliest [start, end) of a literal starting at or after
// from, or -1. Calls on one text must have non-decreasing from.
func (f *finder) find(data []byte, from int) (start, end int) {
	start, end = -1, -1
	for i, l := range f.lits {
		c := f.next[i]
		if c == -1 {
			continue
		}
		if c < from {
			c = l.find(data, from)
			f.next[i] = c
			if c < 0 {
				continue
			}
		}
		if start < 0 || c < start || (c == start && c+len(l.lit) > end) {
			start, end = c, c+len(l.lit)
		}
	}
	return start, end
}
