package textsearch

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// PatternOptions say how a pattern is read.
type PatternOptions struct {
	FixedStrings    bool // the pattern is a literal, not a regular expression
	CaseInsensitive bool // Unicode simple case folding, like rg -i
	Multiline       bool // matches may span lines and '.' matches '\n' (rg -U --multiline-dotall)
}

// Pattern is a compiled search pattern: a regular expression plus the
// literals every match must contain, used to skip text cheaply.
//
// A Pattern is immutable and safe for concurrent use.
type Pattern struct {
	opts PatternOptions
	re   *regexp.Regexp

	// lits is the prefilter: every match contains at least one of them (after
	// ASCII lowercasing when fold is set). Empty: no prefilter; scan lines.
	lits []string
	fold bool
	// exact: a prefilter hit is a match by itself and its extent is the
	// match's extent, so the regexp never runs.
	exact bool
	// chunk is how many bytes of lines the regexp is given at once when
	// there is no prefilter.
	chunk int
	prog  *syntax.Prog // for the DFA line filter
	// wordStart, wordEnd: a \b taken off the pattern's start or end, checked
	// on each match with Unicode word characters (see accept).
	wordStart, wordEnd bool
}

// maxLiteralSet bounds the alternatives of a prefilter; larger sets are not
// worth one bytes.Index pass each.
const maxLiteralSet = 16

// Compile parses pattern (RE2 syntax, or a literal with FixedStrings).
// Outside multiline mode a match never spans a line, as in rg: '.', '\s' and
// negated classes do not match '\n', and a literal '\n' is refused.
func Compile(pattern string, opts PatternOptions) (*Pattern, error) {
	expr := pattern
	var wordStart, wordEnd bool
	if opts.FixedStrings {
		expr = regexp.QuoteMeta(pattern)
	}
	flags := syntax.Perl &^ syntax.OneLine // ^ and $ match at line boundaries, as in rg
	if opts.CaseInsensitive {
		flags |= syntax.FoldCase
	}
	if opts.Multiline {
		flags |= syntax.DotNL
	}
	tree, err := syntax.Parse(expr, flags)
	if err == nil && !opts.FixedStrings {
		// errors name the pattern as given, not as rewritten
		expr, wordStart, wordEnd = unicodeClasses(expr, flags)
		tree, err = syntax.Parse(expr, flags)
	}
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression: %w (Go RE2 syntax: no lookaround or backreferences; escape metacharacters like \\( \\[ \\. or pass fixed_strings: true)", err)
	}
	if !opts.Multiline {
		if err := noNewline(tree); err != nil {
			return nil, err
		}
	}
	tree = tree.Simplify()
	re, err := regexp.Compile(tree.String())
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression: %w", err)
	}
	p := &Pattern{opts: opts, re: re, chunk: 4096, wordStart: wordStart, wordEnd: wordEnd}
	if prog, err := syntax.Compile(tree); err == nil {
		p.prog = prog
		// Go's regexp backtracks when len(prog.Inst)*len(input) fits in
		// 256 Ki bits.
		p.chunk = max(256, min(64<<10, (256<<10)/len(prog.Inst)-64))
	}
	p.prefilter(tree)
	return p, nil
}

// String is the regular expression the pattern runs.
func (p *Pattern) String() string { return p.re.String() }

// noNewline rewrites re so that it cannot match '\n', the way rg's line
// terminator option does; a literal newline is an error.
func noNewline(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return fmt.Errorf("the pattern contains a literal newline (\\n), which cannot match outside multiline mode: pass multiline: true to match across lines")
			}
		}
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo <= '\n' && '\n' <= hi {
				if lo < '\n' {
					out = append(out, lo, '\n'-1)
				}
				if hi > '\n' {
					out = append(out, '\n'+1, hi)
				}
				continue
			}
			out = append(out, lo, hi)
		}
		if len(out) == 0 {
			re.Op = syntax.OpNoMatch
		}
		re.Rune = out
	}
	for _, sub := range re.Sub {
		if err := noNewline(sub); err != nil {
			return err
		}
	}
	return nil
}

// litSet is what literal analysis knows about a subexpression.
type litSet struct {
	// exact, when complete, is every string the subexpression can match.
	exact    []string
	complete bool
	// required: every match contains one of these as a substring (nil: unknown).
	required []string
}

func (p *Pattern) prefilter(tree *syntax.Regexp) {
	fold := p.opts.CaseInsensitive || hasFoldCase(tree)
	a := analyze(tree, fold)
	set := a.required
	if a.complete && better(a.exact, set) {
		set = a.exact
	}
	if l, n := score(set); l < 1 || l == 1 && n > 1 {
		// Several single bytes find too many candidates: the DFA line
		// filter does better.
		return
	}
	p.lits = set
	p.fold = fold
	// A complete literal set with no anchors or boundaries matches exactly
	// where the literal occurs. Folded literals are exact only when they
	// contain no letter whose fold orbit leaves ASCII (k, s), which the
	// folding analysis already excluded.
	p.exact = a.complete && isPlainLiterals(tree) && sameSet(set, a.exact) && uniformFold(tree, fold)
}

// uniformFold reports whether every literal in re is folded exactly when
// fold is set, so that one folded (or exact) literal search decides a match.
func uniformFold(re *syntax.Regexp, fold bool) bool {
	if re.Op == syntax.OpLiteral && (re.Flags&syntax.FoldCase != 0) != fold {
		return false
	}
	for _, s := range re.Sub {
		if !uniformFold(s, fold) {
			return false
		}
	}
	return true
}

func hasFoldCase(re *syntax.Regexp) bool {
	if re.Flags&syntax.FoldCase != 0 && (re.Op == syntax.OpLiteral) {
		return true
	}
	for _, s := range re.Sub {
		if hasFoldCase(s) {
			return true
		}
	}
	return false
}

// isPlainLiterals reports whether re is built only of literals, small
// classes, concatenation, alternation and captures: nothing that looks
// around a match (anchors, \b), so a literal hit is a match.
func isPlainLiterals(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass, syntax.OpEmptyMatch:
	case syntax.OpConcat, syntax.OpAlternate, syntax.OpCapture, syntax.OpQuest:
	default:
		return false
	}
	for _, s := range re.Sub {
		if !isPlainLiterals(s) {
			return false
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// usable: a set that can stand as a prefilter: non-empty strings, not too many.
func usable(set []string) bool {
	if len(set) == 0 || len(set) > maxLiteralSet {
		return false
	}
	for _, s := range set {
		if s == "" {
			return false
		}
	}
	return true
}

// score orders prefilter sets: longer shortest literal first, then fewer.
func score(set []string) (minLen, n int) {
	if !usable(set) {
		return -1, 0
	}
	minLen = 1 << 30
	for _, s := range set {
		minLen = min(minLen, len(s))
	}
	return minLen, len(set)
}

// better reports whether set a is a better prefilter than b.
func better(a, b []string) bool {
	la, na := score(a)
	lb, nb := score(b)
	if la != lb {
		return la > lb
	}
	return na < nb
}

// analyze computes the literal sets of re. With fold, literals are
// lowercased ASCII; a rune that is not ASCII, or whose case fold leaves ASCII
// (k and s fold with U+212A and U+017F), ends what can be known exactly.
func analyze(re *syntax.Regexp, fold bool) litSet {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litSet{exact: []string{""}, complete: true}
	case syntax.OpLiteral:
		return literal(re.Rune, fold || re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		return charClass(re.Rune, fold)
	case syntax.OpCapture:
		return analyze(re.Sub[0], fold)
	case syntax.OpPlus:
		s := analyze(re.Sub[0], fold)
		return litSet{required: bestOf(s)}
	case syntax.OpRepeat:
		if re.Min == 0 {
			return litSet{}
		}
		s := analyze(re.Sub[0], fold)
		if re.Min == re.Max && s.complete {
			out := litSet{exact: []string{""}, complete: true}
			for i := 0; i < re.Min && out.complete; i++ {
				out = concat(out, s)
			}
			if out.complete {
				out.required = out.exact
				return out
			}
		}
		return litSet{required: bestOf(s)}
	case syntax.OpQuest:
		s := analyze(re.Sub[0], fold)
		if s.complete {
			return litSet{exact: union(s.exact, []string{""}), complete: len(s.exact) < maxLiteralSet}
		}
		return litSet{}
	case syntax.OpConcat:
		out := litSet{exact: []string{""}, complete: true}
		var req []string
		run := litSet{exact: []string{""}, complete: true} // current run of complete children
		flush := func() {
			if better(run.exact, req) {
				req = run.exact
			}
			run = litSet{exact: []string{""}, complete: true}
		}
		for _, sub := range re.Sub {
			s := analyze(sub, fold)
			if better(s.required, req) {
				req = s.required
			}
			if s.complete {
				if out.complete {
					out = concat(out, s)
				}
				next := concat(run, s)
				if !next.complete {
					flush()
					next = s
				}
				run = next
				continue
			}
			out.complete = false
			flush()
		}
		flush()
		out.required = req
		if !out.complete {
			out.exact = nil
		}
		return out
	case syntax.OpAlternate:
		out := litSet{complete: true}
		var req []string
		reqOK := true
		for _, sub := range re.Sub {
			s := analyze(sub, fold)
			if out.complete && s.complete {
				out.exact = union(out.exact, s.exact)
				if len(out.exact) > maxLiteralSet {
					out.complete = false
				}
			} else {
				out.complete = false
			}
			r := bestOf(s)
			if !usable(r) {
				reqOK = false
			}
			req = union(req, r)
		}
		if !out.complete {
			out.exact = nil
		}
		if reqOK && len(req) <= maxLiteralSet {
			out.required = req
		}
		return out
	}
	return litSet{}
}

// bestOf is the best prefilter a litSet offers on its own.
func bestOf(s litSet) []string {
	if s.complete && better(s.exact, s.required) {
		return s.exact
	}
	return s.required
}

// literal handles a run of literal runes. With fold, a rune that cannot be
// matched by ASCII lowercasing splits the run: the pieces are required but
// the whole is no longer known exactly.
func literal(runes []rune, fold bool) litSet {
	if !fold {
		var b strings.Builder
		for _, r := range runes {
			b.WriteRune(r)
		}
		s := b.String()
		return litSet{exact: []string{s}, complete: true, required: []string{s}}
	}
	var pieces []string
	var b strings.Builder
	split := false
	for _, r := range runes {
		if foldable(r) {
			b.WriteByte(lowerASCII(byte(r)))
			continue
		}
		split = true
		if b.Len() > 0 {
			pieces = append(pieces, b.String())
			b.Reset()
		}
	}
	if b.Len() > 0 {
		pieces = append(pieces, b.String())
	}
	if !split {
		s := pieces
		if len(s) == 0 {
			s = []string{""}
		}
		return litSet{exact: s, complete: true, required: s}
	}
	var best []string
	for _, p := range pieces {
		if better([]string{p}, best) {
			best = []string{p}
		}
	}
	return litSet{required: best}
}

// foldable: r is matched case-insensitively exactly by comparing ASCII-lowercased bytes.
func foldable(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	switch r {
	case 'k', 'K', 's', 'S':
		return false
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// charClass expands a small class into its members.
func charClass(ranges []rune, fold bool) litSet {
	var out []string
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > 2*maxLiteralSet {
			return litSet{}
		}
	}
	seen := map[rune]bool{}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			seen[r] = true
		}
	}
	closed := true // under fold: every letter's other case is in the class too
	for r := range seen {
		var s string
		if fold {
			if !foldable(r) {
				return litSet{}
			}
			l := rune(lowerASCII(byte(r)))
			u := l
			if 'a' <= l && l <= 'z' {
				u = l - 'a' + 'A'
			}
			if !seen[l] || !seen[u] {
				closed = false
			}
			s = string(l)
		} else {
			s = string(r)
		}
		out = append(out, s)
	}
	out = sorted(out)
	if len(out) > maxLiteralSet || len(out) == 0 {
		return litSet{}
	}
	return litSet{exact: out, complete: closed, required: out}
}

// concat is the cross product of two complete sets, incomplete when too large.
func concat(a, b litSet) litSet {
	if len(a.exact)*len(b.exact) > maxLiteralSet {
		return litSet{}
	}
	var out []string
	for _, x := range a.exact {
		for _, y := range b.exact {
			out = append(out, x+y)
		}
	}
	out = sorted(out)
	return litSet{exact: out, complete: true, required: out}
}

func union(a, b []string) []string {
	out := append(append([]string(nil), a...), b...)
	return sorted(out)
}

// sorted returns s sorted and without duplicates.
func sorted(s []string) []string {
	if len(s) < 2 {
		return s
	}
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	w := 1
	for i := 1; i < len(out); i++ {
		if out[i] != out[w-1] {
			out[w] = out[i]
			w++
		}
	}
	return out[:w]
}
