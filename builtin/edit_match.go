package builtin

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentls/agentls/workspace"
)

// How an old_string was found in the text. Later kinds are tried only when
// the earlier ones find nothing, and each must be unique on its own.
type matchKind int

const (
	matchExact    matchKind = iota // byte for byte
	matchStripped                  // after removing "N→" prefixes copied from read_file
	matchLoose                     // line by line, ignoring leading and trailing whitespace
)

// editOutcome is the result of applying one edit to a text.
type editOutcome struct {
	Text  string    // the whole new text
	Count int       // replacements made
	Kind  matchKind // how old_string was found
}

// hit is one place old_string matched: the bytes text[start:end] are replaced
// by repl.
type hit struct {
	start, end int
	repl       string
}

// applyEdit replaces old with new in text, which has "\n" line endings (as
// workspace.File.Text does). Without all, old must match exactly one place.
// rel names the file in error messages, which tell the model what to do.
func applyEdit(rel, text, old, new string, all bool) (editOutcome, error) {
	old = toLF(old)
	new = toLF(new)
	if old == new {
		return editOutcome{}, fmt.Errorf("old_string and new_string are identical: nothing to change in %s", rel)
	}
	if old == "" {
		if text == "" {
			return editOutcome{Text: new, Count: 1}, nil
		}
		return editOutcome{}, fmt.Errorf("old_string is empty: give the text to replace in %s (write_file replaces a whole file)", rel)
	}

	try := func(hits []hit, kind matchKind) (editOutcome, bool, error) {
		if len(hits) == 0 {
			return editOutcome{}, false, nil
		}
		if len(hits) > 1 && !all {
			how := ""
			if kind != matchExact {
				how = " (ignoring whitespace and line-number prefixes)"
			}
			return editOutcome{}, true, fmt.Errorf("old_string matches %d places in %s%s, at %s: add surrounding lines to make it unique, or pass replace_all: true to change every one",
				len(hits), rel, how, lineList(text, hits))
		}
		if size := splicedSize(text, hits); size > workspace.MaxTextFile {
			return editOutcome{}, true, tooLargeResult(rel, size)
		}
		return editOutcome{Text: spliceHits(text, hits), Count: len(hits), Kind: kind}, true, nil
	}

	if out, done, err := try(exactHits(text, old, new), matchExact); done {
		return out, err
	}
	if o, ok := stripLinePrefixes(old); ok {
		old = o
		if n, ok := stripLinePrefixes(new); ok {
			new = n
		}
		if old == new {
			return editOutcome{}, fmt.Errorf("old_string and new_string are identical once their line-number prefixes are removed: nothing to change in %s", rel)
		}
		if out, done, err := try(exactHits(text, old, new), matchStripped); done {
			return out, err
		}
	}
	if out, done, err := try(looseHits(text, old, new), matchLoose); done {
		return out, err
	}
	return editOutcome{}, notFound(rel, text, old)
}

// toLF turns CRLF and lone CR line endings into "\n".
func toLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// exactHits finds the non-overlapping occurrences of old in text.
func exactHits(text, old, new string) []hit {
	if old == "" { // (only line-number prefixes, stripped) would match everywhere, forever
		return nil
	}
	var hits []hit
	for from := 0; ; {
		i := strings.Index(text[from:], old)
		if i < 0 {
			return hits
		}
		start := from + i
		hits = append(hits, hit{start: start, end: start + len(old), repl: new})
		from = start + len(old)
	}
}

// splicedSize is the length of text once the hits are replaced.
func splicedSize(text string, hits []hit) int {
	n := len(text)
	for _, h := range hits {
		n += len(h.repl) - (h.end - h.start)
	}
	return n
}

// tooLargeResult refuses an edit whose result, of size bytes, would be
// over the size of file the tools read: nothing could read it back.
func tooLargeResult(rel string, size int) error {
	return fmt.Errorf("the edit would make %s %d bytes, over the %d MiB limit of files the tools read and edit; nothing was changed",
		rel, size, workspace.MaxTextFile>>20)
}

// spliceHits replaces each hit, in order, by its replacement.
func spliceHits(text string, hits []hit) string {
	var b strings.Builder
	last := 0
	for _, h := range hits {
		b.WriteString(text[last:h.start])
		b.WriteString(h.repl)
		last = h.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// linePrefix is the "  12→" that read_file puts before each line.
var linePrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ *[0-9]+→`) }) // compiled at first use

// stripLinePrefixes removes read_file's line-number prefixes from s when every
// non-empty line has one.
func stripLinePrefixes(s string) (string, bool) {
	lines := strings.Split(s, "\n")
	seen := false
	for _, l := range lines {
		if l == "" {
			continue
		}
		if !linePrefix().MatchString(l) {
			return s, false
		}
		seen = true
	}
	if !seen {
		return s, false
	}
	for i, l := range lines {
		lines[i] = linePrefix().ReplaceAllString(l, "")
	}
	return strings.Join(lines, "\n"), true
}

// textLines splits text into lines (without "\n") and the byte offset where
// each starts. A final "\n" does not start another line.
func textLines(text string) (lines []string, starts []int) {
	off := 0
	for off < len(text) {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			lines = append(lines, text[off:])
			starts = append(starts, off)
			break
		}
		lines = append(lines, text[off:off+i])
		starts = append(starts, off)
		off += i + 1
	}
	return lines, starts
}

// looseHits matches old against whole lines of text, comparing each line
// without its leading and trailing whitespace. The replacement is new
// re-indented the way the matched lines are indented in the file, so that
// spaces typed for tabs (or the other way round) follow the file.
func looseHits(text, old, new string) []hit {
	oldLines := strings.Split(old, "\n")
	wholeLines := len(oldLines) > 1 && oldLines[len(oldLines)-1] == ""
	if wholeLines {
		oldLines = oldLines[:len(oldLines)-1]
	}
	keys := make([]string, len(oldLines))
	blank := true
	for i, l := range oldLines {
		keys[i] = strings.TrimSpace(l)
		if keys[i] != "" {
			blank = false
		}
	}
	if blank {
		return nil
	}
	lines, starts := textLines(text)
	var hits []hit
	for i := 0; i+len(keys) <= len(lines); {
		if !linesMatch(lines[i:i+len(keys)], keys) {
			i++
			continue
		}
		last := i + len(keys) - 1
		end := starts[last] + len(lines[last])
		if wholeLines && end < len(text) {
			end++ // the "\n" that old_string ended with
		}
		repl := reindent(new, oldLines, lines[i:i+len(keys)])
		hits = append(hits, hit{start: starts[i], end: end, repl: repl})
		i += len(keys)
	}
	return hits
}

func linesMatch(lines, keys []string) bool {
	for j, k := range keys {
		if strings.TrimSpace(lines[j]) != k {
			return false
		}
	}
	return true
}

// leading returns the run of spaces and tabs that starts s.
func leading(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// reindent rewrites the indentation of each line of new: an indentation that
// some line of old had becomes the indentation of the file line it matched;
// deeper indentation keeps the extra part, converted between tabs and spaces
// when the file and old_string disagree.
func reindent(new string, oldLines, fileLines []string) string {
	mapping := map[string]string{}
	ratio := 0 // spaces per tab between old_string and the file, when they differ in kind
	same := true
	for j, ol := range oldLines {
		if strings.TrimSpace(ol) == "" {
			continue
		}
		oi, fi := leading(ol), leading(fileLines[j])
		if oi != fi {
			same = false
		}
		if _, ok := mapping[oi]; !ok {
			mapping[oi] = fi
		}
		if ratio == 0 && oi != "" && fi != "" {
			switch {
			case onlyOf(oi, ' ') && onlyOf(fi, '\t') && len(oi)%len(fi) == 0:
				ratio = len(oi) / len(fi)
			case onlyOf(oi, '\t') && onlyOf(fi, ' ') && len(fi)%len(oi) == 0:
				ratio = -len(fi) / len(oi)
			}
		}
	}
	if same {
		return new
	}
	lines := strings.Split(new, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := leading(l)
		if fi, ok := mapping[ind]; ok {
			lines[i] = fi + l[len(ind):]
			continue
		}
		best := ""
		for oi := range mapping {
			if len(oi) > len(best) && strings.HasPrefix(ind, oi) {
				best = oi
			}
		}
		if best == "" {
			continue
		}
		rest := convertIndent(ind[len(best):], ratio)
		lines[i] = mapping[best] + rest + l[len(ind):]
	}
	return strings.Join(lines, "\n")
}

func onlyOf(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			return false
		}
	}
	return true
}

// convertIndent converts extra indentation between spaces and tabs: ratio > 0
// turns each ratio spaces into a tab, ratio < 0 turns each tab into -ratio
// spaces, 0 leaves it alone.
func convertIndent(ind string, ratio int) string {
	switch {
	case ratio > 0 && onlyOf(ind, ' '):
		return strings.Repeat("\t", len(ind)/ratio) + strings.Repeat(" ", len(ind)%ratio)
	case ratio < 0 && onlyOf(ind, '\t'):
		return strings.Repeat(" ", len(ind)*-ratio)
	}
	return ind
}

// lineList names the lines where hits start: "lines 4, 10 and 22".
func lineList(text string, hits []hit) string {
	const show = 10
	nums := make([]string, 0, min(len(hits), show))
	line, off := 1, 0
	for _, h := range hits[:min(len(hits), show)] {
		line += strings.Count(text[off:h.start], "\n")
		off = h.start
		nums = append(nums, strconv.Itoa(line))
	}
	switch {
	case len(hits) > show:
		return "lines " + strings.Join(nums, ", ") + " and more"
	case len(nums) == 1:
		return "line " + nums[0]
	}
	return "lines " + strings.Join(nums[:len(nums)-1], ", ") + " and " + nums[len(nums)-1]
}

// notFound explains a miss. When old_string's first line is in the file
// but what follows differs, it shows the file's lines there, numbered as
// read_file numbers them, so the model can copy them without reading again.
func notFound(rel, text, old string) error {
	oldLines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	skip := 0 // leading blank lines of old_string
	for skip < len(oldLines) && strings.TrimSpace(oldLines[skip]) == "" {
		skip++
	}
	if skip < len(oldLines) {
		first := strings.TrimSpace(oldLines[skip])
		lines, _ := textLines(text)
		for i, l := range lines {
			if strings.TrimSpace(l) != first {
				continue
			}
			end := min(len(lines), i+len(oldLines)-skip, i+maxShownLines)
			shown, err := numberLines(rel, strings.Join(lines[:end], "\n"), i, end-i)
			if err != nil {
				break
			}
			return fmt.Errorf("old_string was not found in %s. Its first line matches line %d, but what follows differs; the file has there:\n%s\nCopy the lines exactly (without the line-number prefixes) and try again", rel, i+1, shown)
		}
	}
	return fmt.Errorf("old_string was not found in %s: read the file again and copy the text exactly (without the line-number prefixes), or use write_file to replace the whole file", rel)
}

// maxShownLines bounds the file lines a not-found error shows.
const maxShownLines = 12
