package textsearch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/workspace"
)

// Mode is what a search prints.
type Mode int

const (
	Content          Mode = iota // path:line:text, one matching line a line
	FilesWithMatches             // one path a line
	Count                        // path:N
)

// ParseMode maps the tool's output_mode argument to a Mode.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "content":
		return Content, nil
	case "files_with_matches":
		return FilesWithMatches, nil
	case "count":
		return Count, nil
	}
	return 0, fmt.Errorf("output_mode %q is not one of content, files_with_matches, count", s)
}

// binarySniff is how much of a file is looked at for a NUL byte before it
// is scanned (workspace.IsBinary's 8 KiB).
const binarySniff = 8 << 10

// Defaults of a Query.
const (
	DefaultMaxResults = 200
	DefaultMaxLineLen = 500
	DefaultBudget     = 30 * time.Second
)

// Query is one search.
type Query struct {
	Pattern    *Pattern
	Mode       Mode
	Context    int           // lines before and after each match (Content only)
	MaxResults int           // matches (Content) or files shown; 0: DefaultMaxResults
	Offset     int           // matches (Content) or files skipped before the first shown
	MaxLineLen int           // characters of a line shown; 0: DefaultMaxLineLen
	Budget     time.Duration // time allowed; 0: DefaultBudget
	MaxBytes   int           // output size the results stop at; 0: no limit
	// Workspace, when set, is the folder the files are read from: through
	// its readers, which pass over a hard link to one of its denied files.
	Workspace *workspace.Workspace
}

// File is one file to search. Text, when non-nil, is searched instead of the
// file at Abs (an open editor buffer).
type File struct {
	Abs, Rel string // Rel: '/'-separated, relative to the workspace folder
	Size     int64  // a hint for the read buffer
	Text     []byte
	// Explicit: the file was named as the path to search; if it is binary
	// the output says so instead of passing over it.
	Explicit bool
}

// Source calls fn for every file to search, possibly concurrently, and
// returns when all calls have returned. It should stop early when ctx is done.
type Source func(ctx context.Context, fn func(File)) error

// ErrCancelled is returned when the caller cancelled the search.
var ErrCancelled = errors.New("grep cancelled")

// Search runs q over the files src yields and returns the tool's text:
// results sorted by path then line, and closing notes on truncation, cut
// lines and an exhausted time budget. It fails only on cancellation.
func Search(ctx context.Context, q Query, src Source) (string, error) {
	if q.MaxResults <= 0 {
		q.MaxResults = DefaultMaxResults
	}
	if q.MaxLineLen <= 0 {
		q.MaxLineLen = DefaultMaxLineLen
	}
	if q.Budget <= 0 {
		q.Budget = DefaultBudget
	}
	if q.Mode != Content {
		q.Context = 0
	}
	if err := ctx.Err(); err != nil {
		return "", ErrCancelled
	}
	bctx, cancel := context.WithTimeout(ctx, q.Budget)
	defer cancel()
	s := &search{q: q, ctx: bctx}
	err := src(bctx, s.file)
	for _, w := range s.free { // every call of s.file has returned
		w.dr.Close()
	}
	if ctx.Err() != nil {
		return "", ErrCancelled
	}
	if err != nil && bctx.Err() == nil {
		return "", err
	}
	return s.output(bctx.Err() != nil), nil
}

type search struct {
	q   Query
	ctx context.Context
	// free is a free list of scanners and read buffers. Unlike a
	// sync.Pool it survives garbage collections, so buffers are not
	// allocated (and page-faulted) again during a search.
	freeMu sync.Mutex
	free   []*worker

	searched atomic.Int64 // files searched to the end
	cutoff   atomic.Pointer[string]

	mu      sync.Mutex
	results []*fileResult
	stored  int    // matches with text in results
	files   int    // files with a match
	matches int    // matching lines (or matches, multiline)
	binary  string // an explicit file passed over as binary
}

// fileResult is one file's share of the output.
type fileResult struct {
	rel     string
	count   int     // matches in the file
	out     []byte  // formatted lines
	entries []entry // one per line in out
	cut     int     // lines cut in out
}

type entry struct {
	line  int
	match bool
	cont  bool // a later line of a multiline match, not a match of its own
	end   int  // end offset in out
}

type worker struct {
	sc  *scanner
	buf []byte
	dr  *workspace.FileReader
	dir string // of the last file read: dr holds that directory open
}

// takeWorker returns a free worker, preferably one that read last in dir
// (its reader has dir open: a walk gives a directory's files in a row on
// one goroutine, and reopening the directory beneath the folder costs an
// openat2), or nil when none is free.
func (s *search) takeWorker(dir string) *worker {
	s.freeMu.Lock()
	defer s.freeMu.Unlock()
	n := len(s.free)
	if n == 0 {
		return nil
	}
	i := n - 1
	for j := n - 1; j >= 0; j-- {
		if s.free[j].dir == dir {
			i = j
			break
		}
	}
	w := s.free[i]
	s.free[i] = s.free[n-1]
	s.free = s.free[:n-1]
	return w
}

func (s *search) putWorker(w *worker) {
	s.freeMu.Lock()
	defer s.freeMu.Unlock()
	if len(s.free) < 4*Workers() {
		s.free = append(s.free, w)
		return
	}
	w.dr.Close()
}

// file searches one file; called concurrently.
func (s *search) file(f File) {
	if s.ctx.Err() != nil {
		return
	}
	dir := f.Rel[:strings.LastIndexByte(f.Rel, '/')+1]
	w := s.takeWorker(dir)
	if w == nil {
		w = &worker{sc: s.q.Pattern.newScanner(), dr: newReader(s.q.Workspace)}
	}
	w.dir = dir
	defer s.putWorker(w)
	data := f.Text
	if data == nil {
		var (
			more bool
			err  error
		)
		data, more, err = readHead(w.dr, f, w.buf[:0])
		if cap(data) > cap(w.buf) && cap(data) <= 16<<20 {
			w.buf = data[:0]
		}
		if err != nil {
			return // vanished or unreadable since listed: like rg, skip
		}
		if more {
			// Too large to hold: searched in parts (see scanParts).
			r, binary := s.scanParts(w.sc, w.dr, f)
			s.searched.Add(1)
			switch {
			case binary && f.Explicit:
				s.mu.Lock()
				s.binary = f.Rel
				s.mu.Unlock()
			case r != nil:
				s.add(r)
			}
			return
		}
	}
	data, utf16 := decodeText(data)
	if !f.Explicit && !utf16 && bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
		// Binary at first sight: its first match would find the NUL and
		// drop the file (see scanPart), so it is not scanned at all (rg
		// quits such a file at once too).
		s.searched.Add(1)
		return
	}
	if f.Explicit && !utf16 && bytes.IndexByte(data, 0) >= 0 {
		s.mu.Lock()
		s.binary = f.Rel
		s.mu.Unlock()
		s.searched.Add(1)
		return
	}
	r := s.scanFile(w.sc, f.Rel, data)
	s.searched.Add(1)
	if r == nil {
		return
	}
	s.add(r)
}

// scanFile finds the matches of one text; nil when none (or binary).
func (s *search) scanFile(sc *scanner, rel string, data []byte) *fileResult {
	fs := s.newFileScan(rel)
	if s.scanPart(sc, fs, data, 0, -1, 0, 1) {
		return nil
	}
	return fs.r
}

// fileScan is the state of the search of one file, carried from one part
// of it to the next when it is searched in parts.
type fileScan struct {
	rel        string
	detail     bool
	r          *fileResult
	lastLine   int // last line written to the output (1-based, in the file)
	afterUntil int // after-context pending up to this line
	matchEnd   int // offset in the file's text after the last match
}

func (s *search) newFileScan(rel string) *fileScan {
	return &fileScan{rel: rel, detail: s.q.Mode != FilesWithMatches && !s.pastCutoff(rel)}
}

// scanPart searches data, a run of whole lines of the file whose first is
// line firstLine, at offset base of its text; matches that start before
// offset skip (lines an earlier part searched, present for context) or
// within the last match reported are passed over, and matches that start
// at or after stop (>= 0) are left to the next part, as are the lines
// from there for after-context. It reports true when a match showed the
// text to be binary (a NUL byte in data).
func (s *search) scanPart(sc *scanner, fs *fileScan, data []byte, skip, stop, base, firstLine int) (binary bool) {
	q := &s.q
	detail := fs.detail
	binaryChecked := false
	line, lineAt := firstLine, 0 // line number of offset lineAt
	lastEnd := 0                 // offset after the last line written to out
	if fs.lastLine >= firstLine {
		for n := firstLine; n <= fs.lastLine && lastEnd < len(data); n++ {
			lastEnd = min(lineEnd(data, lastEnd)+1, len(data))
		}
	}
	// lastLine and afterUntil live in fs; below, lastLine < firstLine-1
	// means the last line written is not in data (and no after-context is
	// pending: the part before emitted it to its end).
	lastLine, afterUntil := &fs.lastLine, &fs.afterUntil
	inData := func() bool { return *lastLine >= firstLine-1 }
	p := q.Pattern
	sc.scan(data, func(h hit) bool {
		if stop >= 0 && h.ms >= stop {
			return false
		}
		if h.ms < skip || base+h.ms < fs.matchEnd {
			return true
		}
		if (p.wordStart || p.wordEnd) && !p.accept(data, h.ms, h.me) {
			// The first match of the line lacks its Unicode word
			// boundaries: look for one that has them.
			if p.opts.Multiline {
				return true
			}
			ok := false
			for _, loc := range p.re.FindAllIndex(data[h.ls:h.le], -1) {
				if p.accept(data, h.ls+loc[0], h.ls+loc[1]) {
					h.ms, h.me, ok = h.ls+loc[0], h.ls+loc[1], true
					break
				}
			}
			if !ok {
				return true
			}
		}
		if !binaryChecked {
			binaryChecked = true
			if bytes.IndexByte(data, 0) >= 0 {
				binary = true
				return false
			}
			if fs.r == nil {
				fs.r = &fileResult{rel: fs.rel}
			}
		}
		r := fs.r
		r.count++
		fs.matchEnd = base + h.me
		if q.Mode == FilesWithMatches || (q.Mode == Count && !detail) {
			return false
		}
		if !detail || q.Mode == Count {
			return true
		}
		if r.count > q.Offset+q.MaxResults {
			return true // this file alone fills the output: count the rest
		}
		line += bytes.Count(data[lineAt:h.ls], []byte{'\n'})
		lineAt = h.ls
		if line <= *lastLine {
			// A multiline match that starts on the line the previous one
			// ended on: one group of lines, as rg prints it.
			r.count--
			s.emitRest(r, data, h, line, lastLine, &lastEnd)
			*afterUntil = *lastLine + q.Context
			return true
		}
		if q.Context > 0 {
			// after-context of the previous match, up to this line
			for *lastLine > 0 && inData() && *lastLine < *afterUntil && *lastLine+1 < line {
				le := lineEnd(data, lastEnd)
				s.emit(r, *lastLine+1, false, data[lastEnd:le], -1)
				*lastLine, lastEnd = *lastLine+1, min(le+1, len(data))
			}
			// before-context
			first := max(line-q.Context, *lastLine+1, firstLine, 1)
			at := h.ls
			for n := line; n > first; n-- {
				at = bytes.LastIndexByte(data[:at-1], '\n') + 1
			}
			for n := first; n < line; n++ {
				le := lineEnd(data, at)
				s.emit(r, n, false, data[at:le], -1)
				at = le + 1
			}
		}
		s.emit(r, line, true, data[h.ls:h.le], h.ms-h.ls)
		*lastLine, lastEnd = line, min(h.le+1, len(data))
		s.emitRest(r, data, h, line, lastLine, &lastEnd)
		*afterUntil = *lastLine + q.Context
		return true
	})
	if binary || fs.r == nil {
		return binary
	}
	end := len(data)
	if stop >= 0 {
		end = stop
	}
	for q.Context > 0 && *lastLine > 0 && inData() && *lastLine < *afterUntil && lastEnd < end {
		le := lineEnd(data, lastEnd)
		s.emit(fs.r, *lastLine+1, false, data[lastEnd:le], -1)
		*lastLine, lastEnd = *lastLine+1, le+1
	}
	return false
}

// emitRest emits the lines after the first that a multiline match spans
// (a match ending just after a '\n' does not span the next line), as match
// lines that continue the match rather than start another.
func (s *search) emitRest(r *fileResult, data []byte, h hit, line int, lastLine, lastEnd *int) {
	end := h.me
	if end > h.ms && data[end-1] == '\n' {
		end--
	}
	at, n := h.le+1, line
	for at <= end && at < len(data) {
		le := lineEnd(data, at)
		n++
		if n > *lastLine {
			s.emit(r, n, true, data[at:le], -1)
			r.entries[len(r.entries)-1].cont = true
			*lastLine, *lastEnd = n, min(le+1, len(data))
		}
		at = le + 1
	}
}

// decodeText strips a UTF-8 byte order mark and transcodes UTF-16 text with
// a byte order mark to UTF-8, as rg does; other text is searched as it is.
func decodeText(data []byte) (out []byte, utf16 bool) {
	switch {
	case len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF:
		return data[3:], false
	case len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF):
		out, _ = appendUTF16(make([]byte, 0, len(data)), data[2:], data[0] == 0xFE, true)
		return out, true
	}
	return data, false
}

// newReader is a reader of ws's files (any folder's when nil).
func newReader(ws *workspace.Workspace) *workspace.FileReader {
	if ws == nil {
		return workspace.NewFileReader()
	}
	return ws.NewFileReader()
}

func lineEnd(data []byte, at int) int {
	if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
		return at + i
	}
	return len(data)
}

// emit appends one output line: path:line:text for a match, path-line-text
// for context, the text cut around col when too long.
func (s *search) emit(r *fileResult, line int, match bool, text []byte, col int) {
	text = bytes.TrimSuffix(text, []byte{'\r'})
	r.out = append(r.out, r.rel...)
	sep := byte('-')
	if match {
		sep = ':'
	}
	r.out = append(r.out, sep)
	r.out = strconv.AppendInt(r.out, int64(line), 10)
	r.out = append(r.out, sep)
	if len(text) > s.q.MaxLineLen && utf8.RuneCount(text) > s.q.MaxLineLen {
		r.out = appendCut(r.out, text, col, s.q.MaxLineLen)
		r.cut++
	} else {
		r.out = append(r.out, text...)
	}
	r.out = append(r.out, '\n')
	r.entries = append(r.entries, entry{line: line, match: match, end: len(r.out)})
}

// appendCut appends about max characters of text around byte offset col
// (the start when col < 0), marking cut ends with "…".
func appendCut(dst, text []byte, col, max int) []byte {
	if col < 0 {
		col = 0
	}
	// start a fifth of the window before the match, on a rune boundary
	start := col
	for n := 0; start > 0 && n < max/5; n++ {
		_, size := utf8.DecodeLastRune(text[:start])
		start -= size
	}
	end := start
	for n := 0; end < len(text) && n < max; n++ {
		_, size := utf8.DecodeRune(text[end:])
		end += size
	}
	if end == len(text) { // use the whole window near the end of the line
		for n := utf8.RuneCount(text[start:end]); start > 0 && n < max; n++ {
			_, size := utf8.DecodeLastRune(text[:start])
			start -= size
		}
	}
	if start > 0 {
		dst = append(dst, "…"...)
	}
	dst = append(dst, text[start:end]...)
	if end < len(text) {
		dst = append(dst, "…"...)
	}
	return dst
}

func (s *search) pastCutoff(rel string) bool {
	c := s.cutoff.Load()
	return c != nil && ComparePaths(rel, *c) > 0
}

// add records a file's result. Once the stored matches exceed what can be
// shown, only the files sorting first keep their lines, and files sorting
// after them are merely counted.
func (s *search) add(r *fileResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files++
	s.matches += r.count
	s.results = append(s.results, r)
	s.stored += len(r.entries)
	want := s.q.Offset + s.q.MaxResults
	if s.q.Mode != Content || s.stored <= 2*want+1024 {
		return
	}
	slices.SortFunc(s.results, func(a, b *fileResult) int { return ComparePaths(a.rel, b.rel) })
	n, kept := 0, 0
	for _, x := range s.results {
		if n >= want {
			x.out, x.entries = nil, nil
			continue
		}
		n += x.count
		kept += len(x.entries)
		if n >= want {
			c := x.rel
			s.cutoff.Store(&c)
		}
	}
	s.stored = kept
}

// ComparePaths orders '/'-separated paths component by component, as
// `rg --sort path` does: "pip/x" before "pip-23.2/y", "a/z" before "a.b".
func ComparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] == b[i] {
			continue
		}
		switch {
		case a[i] == '/':
			return -1
		case b[i] == '/':
			return 1
		case a[i] < b[i]:
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}

// output assembles the results in path order with the closing notes. The
// first q.Offset entries (matches, or files) are skipped; a match whose
// line does not fit in q.MaxBytes ends the output as q.MaxResults does, and
// the last note says how to ask for the next ones.
func (s *search) output(stopped bool) string {
	q := &s.q
	slices.SortFunc(s.results, func(a, b *fileResult) int { return ComparePaths(a.rel, b.rel) })
	var out []byte
	seen, shown, shownFiles, cut := 0, 0, 0, 0 // seen: matches or files passed, skipped or shown
	byBytes := false
	switch q.Mode {
	case FilesWithMatches, Count:
		for _, r := range s.results {
			if seen < q.Offset {
				seen++
				continue
			}
			if shown == q.MaxResults {
				break
			}
			if q.MaxBytes > 0 && len(out)+len(r.rel)+12 > q.MaxBytes {
				byBytes = true
				break
			}
			seen++
			shown++
			out = append(out, r.rel...)
			if q.Mode == Count {
				out = append(out, ':')
				out = strconv.AppendInt(out, int64(r.count), 10)
			}
			out = append(out, '\n')
		}
		shownFiles = shown
	default:
		prevLine := -1
	files:
		for _, r := range s.results {
			if seen+r.count <= q.Offset {
				seen += r.count // a file wholly skipped
				continue
			}
			start, shownHere, matchShown := 0, false, false
			for i, e := range r.entries {
				line := r.out[start:e.end]
				start = e.end
				if e.cont { // the rest of the match before it
					if !matchShown {
						continue
					}
					if q.MaxBytes > 0 && len(out)+len(line) > q.MaxBytes {
						break files
					}
					out = append(out, line...)
					prevLine = e.line
					continue
				}
				matchShown = false
				if e.match && seen < q.Offset {
					seen++
					continue
				}
				if !e.match && shown == 0 && (seen < q.Offset || !s.before(r, i)) {
					continue // context of skipped matches only
				}
				if e.match && shown == q.MaxResults {
					break files
				}
				if q.MaxBytes > 0 && len(out)+len(line) > q.MaxBytes {
					byBytes = e.match || byBytes
					break files
				}
				if !e.match && shown == q.MaxResults && !s.after(r, i) {
					break files
				}
				if q.Context > 0 && (prevLine < 0 || e.line != prevLine+1) && len(out) > 0 {
					out = append(out, "--\n"...)
				}
				if e.match {
					seen++
					shown++
					matchShown = true
				}
				out = append(out, line...)
				prevLine = e.line
				shownHere = true
			}
			if shownHere {
				cut += r.cut
				shownFiles++
			}
			prevLine = -1
		}
	}
	if s.files == 0 && s.binary != "" {
		return s.binary + " is a binary file (it has a NUL byte), not searched."
	}
	if s.files == 0 && !stopped {
		return "No matches found."
	}
	total, what := s.matches, "matches"
	if q.Mode != Content {
		total, what = s.files, "files"
	}
	var notes []string
	if cut > 0 {
		notes = append(notes, fmt.Sprintf("[%s longer than %d characters cut around the match]", plural(cut, "line"), q.MaxLineLen))
	}
	if stopped {
		notes = append(notes, fmt.Sprintf("[search stopped after the %s time budget, %s files searched; results are incomplete: narrow with path/glob/type]",
			q.Budget, thousands(int(s.searched.Load()))))
	}
	// The paging note comes last.
	switch {
	case q.Offset >= total && total > 0:
		notes = append(notes, fmt.Sprintf("[offset %s is past the last of the %s %s: pass a smaller offset]", thousands(q.Offset), thousands(total), what))
	case q.Offset+shown < total:
		why := fmt.Sprintf("max_results %s", thousands(q.MaxResults))
		if byBytes {
			why = "the result size limit"
		}
		shownText := thousands(shown)
		if q.Offset > 0 {
			shownText = fmt.Sprintf("%s-%s", thousands(q.Offset+1), thousands(q.Offset+shown))
			if shown == 0 {
				shownText = "none"
			}
		}
		in := ""
		if q.Mode == Content {
			in = fmt.Sprintf(" in %s", plural(s.files, "file"))
		}
		notes = append(notes, fmt.Sprintf("[%s of %s %s%s shown (%s); next: the same call with offset: %d, or narrow with path/glob/type]",
			shownText, thousands(total), what, in, why, q.Offset+shown))
	case q.Offset > 0:
		notes = append(notes, fmt.Sprintf("[%s-%s of %s %s shown: the last ones]", thousands(q.Offset+1), thousands(total), thousands(total), what))
	}
	for _, n := range notes {
		out = append(out, n...)
		out = append(out, '\n')
	}
	return string(bytes.TrimSuffix(out, []byte{'\n'}))
}

// plural is "1 file", "3 files".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return thousands(n) + " " + word + "s"
}

// before reports whether context entry i of r is before-context of a
// later match of r.
func (s *search) before(r *fileResult, i int) bool {
	for j := i + 1; j < len(r.entries); j++ {
		if r.entries[j].match {
			return r.entries[j].line-r.entries[i].line <= s.q.Context
		}
	}
	return false
}

// after reports whether entry i of r is after-context of a shown match
// rather than before-context of the next one.
func (s *search) after(r *fileResult, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if r.entries[j].match {
			return r.entries[i].line-r.entries[j].line <= s.q.Context
		}
	}
	return false
}

// thousands formats n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Workers is how many files are searched at once.
func Workers() int { return max(2, runtime.GOMAXPROCS(0)) }
