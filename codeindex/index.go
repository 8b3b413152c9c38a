package codeindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/agentls/agentls/workspace"
)

// State is where an index is in its life.
type State string

const (
	StateIndexing State = "indexing" // the build runs; queries see what is indexed so far
	StateReady    State = "ready"
)

// Status is what agentls.indexStatus reports.
type Status struct {
	State     State          `json:"state"`
	Files     int            `json:"files"`
	Symbols   int            `json:"symbols"`
	Languages map[string]int `json:"languages"`          // indexed files per language
	Skipped   int            `json:"skipped"`            // files over 1 MiB, minified or binary
	Watching  bool           `json:"watching,omitempty"` // the index watches the disk itself (WatchDisk)
	Error     string         `json:"error,omitempty"`
}

// Progress reports a build: done files of found so far (found grows while
// the walk runs); final is true once, at the end.
type Progress func(done, found int, final bool)

// Options configure an Index.
type Options struct {
	Workers  int    // parallel parsers; 0 means GOMAXPROCS
	NoCache  bool   // neither load nor save the on-disk cache
	CacheDir string // "" means os.UserCacheDir()/agentls
	Progress Progress
	// OnUpdate, when set, is called after the index took in a change of
	// path (relative to the root) after the build: a buffer update or
	// close, a file or directory changed on disk.
	OnUpdate func(path string)
}

// An Index holds the definitions of every source file of one workspace
// folder. It is safe for concurrent use. Definitions come from a
// body-skipping parse where the language has one; references are found on
// demand (see References).
type Index struct {
	ws   *workspace.Workspace
	opts Options

	mu    sync.RWMutex
	files map[string]*fileEntry // by path relative to the root
	names map[string]*nameEntry // definition name → files that define it
	// The names again, for fast scans (search): blob holds each name in
	// lower case followed by '\n', starts[i] the offset of entries[i].
	// Entries stay when their last symbol goes (a keystroke that deletes
	// and retypes a name then costs nothing here); when such empty entries
	// are most of the table it is rebuilt.
	blob    []byte
	starts  []int32
	entries []*nameEntry
	byFirst [256][]*nameEntry // entries by the first byte of their lower-case name
	empty   int
	nsyms   int
	slab    []nameEntry // see newEntry
	arena   []byte
	skipped map[string]bool // paths skipped as too large, minified or binary
	// The size and mtime of files skipped as minified or binary (the cache
	// keeps them, so that a start need not read them again).
	skipStats map[string]skipStat
	state     State
	err       error
	cacheErr  error  // the cache could not be saved (Status.Error says so)
	gen       uint64 // bumped on every change of files

	startOnce sync.Once
	ready     chan struct{} // closed when the first build ends
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	unwatch   func()

	bufMu   sync.Mutex // guards buffers and bufx; taken before mu
	buffers map[string]*buffer
	bufx    *extractor

	rank rankCache

	descMu sync.Mutex // guards desc; taken after mu
	desc   map[descKey]descVal

	parsed, reused atomic.Int64  // files parsed and files taken from the cache, all builds
	denyVer        atomic.Uint64 // the workspace's deny list version the entries follow
	watching       atomic.Bool   // WatchDisk's watches are in place
}

type fileEntry struct {
	rel   string
	lang  *Language
	size  int64
	mtime int64 // UnixNano of the disk file
	crc   uint32
	syms  []def
	open  bool // from an editor buffer, not the disk
}

// def is a stored definition: a Symbol without its path (the file's) and
// without Signature and Doc (filled in for the symbols a query returns),
// two strings instead of five (the index holds hundreds of thousands).
type def struct {
	Name, Container  string
	Range, NameRange Range
	Kind             Kind
}

func (d *def) symbol(path string) Symbol {
	return Symbol{Name: d.Name, Kind: d.Kind, Container: d.Container, Path: path, Range: d.Range, NameRange: d.NameRange}
}

// symbols returns the definitions of a file as symbols.
func symbols(defs []def, path string) []Symbol {
	if defs == nil {
		return nil
	}
	out := make([]Symbol, len(defs))
	for i := range defs {
		out[i] = defs[i].symbol(path)
	}
	return out
}

type nameEntry struct {
	name, lower string
	syms        []symRef
	one         [1]symRef // syms of a name with one symbol (most): no allocation
}

// symRef is one symbol of a file entry.
type symRef struct {
	f *fileEntry
	i int32
}

func (r symRef) def() *def { return &r.f.syms[r.i] }

func (r symRef) sym() Symbol { return r.f.syms[r.i].symbol(r.f.rel) }

// New returns an index of ws; Start builds it.
func New(ws *workspace.Workspace, opts Options) *Index {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ix := &Index{
		ws:        ws,
		opts:      opts,
		files:     make(map[string]*fileEntry),
		names:     make(map[string]*nameEntry),
		skipped:   make(map[string]bool),
		skipStats: make(map[string]skipStat),
		state:     StateIndexing,
		ready:     make(chan struct{}),
		ctx:       ctx,
		cancel:    cancel,
		buffers:   make(map[string]*buffer),
	}
	ix.denyVer.Store(ws.DenyVersion()) // the build's walk leaves denied files out
	return ix
}

type attachKey struct{}

// For returns the index of a session, creating it on first use: it
// follows the session's buffers (workspace OnChange) and starts building
// in the background. opts apply only when the index is created.
func For(sess *workspace.Session, opts ...Options) *Index {
	return sess.Attach(attachKey{}, func() any {
		var o Options
		if len(opts) > 0 {
			o = opts[0]
		}
		ix := New(sess.WS, o)
		ix.Watch()
		ix.Start()
		return ix
	}).(*Index)
}

// Start builds the index in the background (once).
func (ix *Index) Start() {
	ix.startOnce.Do(func() {
		ix.wg.Add(1)
		go func() {
			defer ix.wg.Done()
			err := ix.build(ix.ctx)
			ix.mu.Lock()
			ix.state, ix.err = StateReady, err
			ix.mu.Unlock()
			close(ix.ready)
		}()
	})
}

// Build builds the index and waits for it; it returns the build's error
// (a cancelled build returns ctx.Err()).
func (ix *Index) Build(ctx context.Context) error {
	ix.Start()
	return ix.Wait(ctx)
}

// Wait waits for the first build to end.
func (ix *Index) Wait(ctx context.Context) error {
	select {
	case <-ix.ready:
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		return ix.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the build, frees the buffers' trees and unsubscribes.
func (ix *Index) Close() error {
	ix.cancel()
	if ix.unwatch != nil {
		ix.unwatch()
	}
	ix.wg.Wait()
	ix.bufMu.Lock()
	for _, b := range ix.buffers {
		b.tree.close()
	}
	ix.buffers = map[string]*buffer{}
	if ix.bufx != nil {
		ix.bufx.Close()
		ix.bufx = nil
	}
	ix.bufMu.Unlock()
	return nil
}

// Status reports the state and size of the index.
func (ix *Index) Status() Status {
	ix.followDeny()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	st := Status{State: ix.state, Files: len(ix.files), Symbols: ix.nsyms, Languages: map[string]int{}, Skipped: len(ix.skipped), Watching: ix.watching.Load()}
	for _, f := range ix.files {
		st.Languages[f.lang.Name]++
	}
	if ix.err != nil {
		st.Error = ix.err.Error()
	} else if ix.cacheErr != nil {
		st.Error = ix.cacheErr.Error()
	}
	return st
}

// Building reports whether the first build is still running.
func (ix *Index) Building() bool {
	select {
	case <-ix.ready:
		return false
	default:
		return true
	}
}

// setFileLocked replaces the entry of rel (nil removes it). The caller
// holds mu.
func (ix *Index) setFileLocked(rel string, e *fileEntry) {
	if old := ix.files[rel]; old != nil {
		for _, s := range old.syms {
			ne := ix.names[s.Name]
			if ne == nil {
				continue
			}
			if len(ne.syms) == 0 {
				continue // a repeated name, already done
			}
			ne.syms = slices.DeleteFunc(ne.syms, func(r symRef) bool { return r.f == old })
			if len(ne.syms) == 0 {
				ix.empty++
			}
		}
		ix.nsyms -= len(old.syms)
		delete(ix.files, rel)
		if ix.empty > 4096 && ix.empty > len(ix.entries)/2 {
			ix.compactNames()
		}
	}
	ix.gen++
	if e == nil {
		return
	}
	ix.files[rel] = e
	ix.nsyms += len(e.syms)
	for i, s := range e.syms {
		ne := ix.names[s.Name]
		if ne == nil {
			ne = ix.newEntry(s.Name)
			ix.names[s.Name] = ne
			ix.addEntry(ne)
		} else if len(ne.syms) == 0 {
			ix.empty--
		}
		if cap(ne.syms) == 0 {
			ne.syms = ne.one[:0:1]
		}
		ne.syms = append(ne.syms, symRef{e, int32(i)})
	}
}

// newEntry returns a new entry for name: entries come from slabs, and
// their lower cases from a text arena, not one allocation each.
func (ix *Index) newEntry(name string) *nameEntry {
	if len(ix.slab) == 0 {
		ix.slab = make([]nameEntry, 256)
	}
	ne := &ix.slab[0]
	ix.slab = ix.slab[1:]
	ne.name, ne.lower = name, ix.lower(name)
	return ne
}

// lower returns s in lower case, made in the arena when it differs.
func (ix *Index) lower(s string) string {
	ascii, upper := true, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		ascii = ascii && c < 0x80
		upper = upper || c >= 'A' && c <= 'Z'
	}
	switch {
	case !ascii:
		return strings.ToLower(s)
	case !upper:
		return s
	}
	if cap(ix.arena)-len(ix.arena) < len(s) {
		ix.arena = make([]byte, 0, max(16<<10, len(s)))
	}
	start := len(ix.arena)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		ix.arena = append(ix.arena, c)
	}
	b := ix.arena[start:]
	return unsafe.String(unsafe.SliceData(b), len(b)) // the arena's bytes are never written again
}

func (ix *Index) addEntry(ne *nameEntry) {
	ix.starts = append(ix.starts, int32(len(ix.blob)))
	ix.blob = append(append(ix.blob, ne.lower...), '\n')
	ix.entries = append(ix.entries, ne)
	if ne.lower != "" {
		ix.byFirst[ne.lower[0]] = append(ix.byFirst[ne.lower[0]], ne)
	}
}

// compactNames drops the names that have no symbol left.
func (ix *Index) compactNames() {
	entries := ix.entries
	ix.blob, ix.starts, ix.entries, ix.empty = nil, nil, nil, 0
	ix.byFirst = [256][]*nameEntry{}
	for _, ne := range entries {
		if len(ne.syms) == 0 {
			delete(ix.names, ne.name)
			continue
		}
		ix.addEntry(ne)
	}
}

// lowerASCII is strings.ToLower without an allocation for names that are
// already lower case.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}

type job struct {
	rel  string
	lang *Language
	// A stat made while the cache was loading (stated): the size and mtime
	// of a regular file (statOK).
	size, mtime    int64
	stated, statOK bool
}

// stat returns the size and mtime of the regular file j, by its name in
// its directory's descriptor (see workspace.FileReader: the kernel
// resolves one component; a batch comes sorted by directory).
func (x *extractor) stat(root string, j *job) (size, mtime int64, ok bool) {
	if x.fr == nil {
		x.fr = workspace.NewFileReader()
	}
	return x.fr.Stat(root, j.rel)
}

// byDir orders a batch of jobs by directory (stably), so that a worker's
// FileReader opens each directory once.
func byDir(js []job) {
	dir := func(rel string) string {
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			return rel[:i]
		}
		return ""
	}
	slices.SortStableFunc(js, func(a, b job) int { return strings.Compare(dir(a.rel), dir(b.rel)) })
}

// install puts the entries of a cache into the index at once (before the
// walk, which then only checks that each file is unchanged): the name
// table comes from the cache's string table, each name's references
// allocated at their final size. Files that already have an entry (a
// buffer opened before the build) keep it.
func (ix *Index) install(cd *cacheData) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	total := 0
	for _, c := range cd.counts {
		total += int(c)
	}
	entries := make([]nameEntry, len(cd.strs))
	refs := make([]symRef, total)
	off := 0
	for i, c := range cd.counts {
		if c > 0 {
			entries[i].syms = refs[off : off : off+int(c)]
			off += int(c)
		}
	}
	k := 0
	for _, f := range cd.files {
		names := cd.names[k : k+len(f.syms)]
		k += len(f.syms)
		if ix.files[f.rel] != nil {
			continue
		}
		ix.files[f.rel] = f
		ix.nsyms += len(f.syms)
		for i, ni := range names {
			ne := &entries[ni]
			ne.syms = append(ne.syms, symRef{f, int32(i)})
		}
	}
	fresh := len(ix.names) == 0 // no buffer came first: no name to merge
	if fresh {
		ix.names = make(map[string]*nameEntry, len(cd.strs))
	}
	blob := 0
	for i := range entries {
		if len(entries[i].syms) > 0 {
			blob += len(cd.strs[i]) + 1
		}
	}
	ix.blob = slices.Grow(ix.blob, blob)
	for i := range entries {
		ne := &entries[i]
		if len(ne.syms) == 0 {
			continue
		}
		ne.name = cd.strs[i]
		if !fresh {
			if old := ix.names[ne.name]; old != nil { // from a buffer
				if len(old.syms) == 0 {
					ix.empty--
				}
				old.syms = append(old.syms, ne.syms...)
				continue
			}
		}
		ne.lower = cd.lower[i]
		ix.names[ne.name] = ne
		ix.addEntry(ne)
	}
	for rel, st := range cd.skipped {
		if ix.files[rel] == nil {
			ix.skipped[rel] = true
			ix.skipStats[rel] = st
		}
	}
	ix.gen++
}

func (ix *Index) build(ctx context.Context) error {
	// The cache loads while the walk lists the files and the workers stat
	// them; they compare and index once it is in.
	var cached map[string]*fileEntry
	var cachedSkips map[string]skipStat
	cacheReady := make(chan struct{})
	if ix.opts.NoCache {
		close(cacheReady)
	} else {
		go func() {
			defer close(cacheReady)
			// A missing, old or corrupt cache means a full build.
			if cd, err := ix.loadCache(); err == nil {
				ix.install(cd)
				cached, cachedSkips = cd.byRel, cd.skipped
			}
		}()
	}
	// Jobs go in batches: a file that did not change costs an lstat, not
	// much more than a channel operation and a wake-up.
	const batch = 32
	work := make(chan []job, 256)
	var found, done atomic.Int64
	var changed atomic.Bool
	progress := ix.opts.Progress
	var wg sync.WaitGroup
	seen := make(map[string]bool)
	var seenMu sync.Mutex // guards seen and pending
	pending := make([]job, 0, batch)
	for range ix.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := newExtractor()
			defer x.Close()
			ready := false
			root := ix.ws.Root()
			var backlog [][]job
			index := func(js []job) {
				for i := range js {
					if ctx.Err() != nil {
						return
					}
					j := &js[i]
					var ks *skipStat
					if st, ok := cachedSkips[j.rel]; ok {
						ks = &st
					}
					if ix.indexFile(x, j, cached[j.rel], ks) {
						changed.Store(true)
					}
					if n := done.Add(1); progress != nil && n%256 == 0 {
						progress(int(n), int(found.Load()), false)
					}
				}
			}
			for js := range work {
				if !ready {
					select {
					case <-cacheReady:
						ready = true
					default:
					}
				}
				if !ready { // stat now, compare later
					for i := range js {
						j := &js[i]
						j.size, j.mtime, j.statOK = x.stat(root, j)
						j.stated = true
					}
					backlog = append(backlog, js)
					continue
				}
				for _, b := range backlog {
					index(b)
				}
				backlog = nil
				index(js)
			}
			<-cacheReady
			for _, b := range backlog {
				index(b)
			}
		}()
	}
	// The walk lists; the workers stat (only the files of a language) and
	// read.
	walkErr := ix.ws.Walk(ctx, ix.ws.Root(), workspace.WalkOptions{Parallel: ix.opts.Workers, NoStat: true}, func(e workspace.WalkEntry) error {
		if e.IsDir || !e.Mode.IsRegular() {
			return nil
		}
		l := LanguageFor(e.Rel)
		if l == nil {
			return nil
		}
		seenMu.Lock()
		seen[e.Rel] = true
		pending = append(pending, job{rel: e.Rel, lang: l})
		var full []job
		if len(pending) == batch {
			full, pending = pending, make([]job, 0, batch)
		}
		seenMu.Unlock()
		found.Add(1)
		if full == nil {
			return nil
		}
		byDir(full) // the parallel walkers interleave their directories
		select {
		case work <- full:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	if len(pending) > 0 && walkErr == nil {
		byDir(pending)
		select {
		case work <- pending:
		case <-ctx.Done():
		}
	}
	close(work)
	cold := false
	select {
	case <-cacheReady:
		cold = cached == nil
	default: // a cache is loading
	}
	if n := int(found.Load()); cold && walkErr == nil && n >= 1024 {
		// The walk is done long before the parsing: size the name table for
		// what is coming (about 20 names a file) rather than grow it step by
		// step.
		ix.mu.Lock()
		if want := 20 * n; len(ix.names) < want/4 {
			names := make(map[string]*nameEntry, want)
			for k, v := range ix.names {
				names[k] = v
			}
			ix.names = names
			ix.entries = slices.Grow(ix.entries, want-len(ix.entries))
			ix.starts = slices.Grow(ix.starts, want-len(ix.starts))
			ix.blob = slices.Grow(ix.blob, 12*want)
		}
		ix.mu.Unlock()
	}
	wg.Wait()
	<-cacheReady
	if cached == nil {
		changed.Store(true)
	}
	if walkErr == nil {
		walkErr = ctx.Err()
	}
	if walkErr != nil {
		return walkErr
	}
	// Files that went away since a previous build (or the cache).
	ix.mu.Lock()
	for rel, f := range ix.files {
		if !seen[rel] && !f.open {
			ix.setFileLocked(rel, nil)
			changed.Store(true)
		}
	}
	ix.mu.Unlock()
	if progress != nil {
		progress(int(done.Load()), int(found.Load()), true)
	}
	for rel := range cached {
		if !seen[rel] {
			changed.Store(true) // a file gone since the cache was written
			break
		}
	}
	ix.mu.Lock()
	for rel := range ix.skipped {
		if !seen[rel] {
			delete(ix.skipped, rel)
			delete(ix.skipStats, rel)
			changed.Store(true)
		}
	}
	ix.mu.Unlock()
	if !ix.opts.NoCache && changed.Load() {
		// An unwritable cache costs the next start time, not this index.
		if err := ix.saveCache(); err != nil {
			ix.mu.Lock()
			ix.cacheErr = fmt.Errorf("saving the index cache: %w", err)
			ix.mu.Unlock()
		}
	}
	return nil
}

// indexFile indexes one file from disk. c is its cached entry (installed
// in the index): when the file did not change (same size and mtime, or
// else same checksum) it stays; ks, when not nil, says the cache saw the
// file skipped as binary or minified: when the file did not change it
// stays skipped. It reports whether the file's entry differs from the
// cache's.
func (ix *Index) indexFile(x *extractor, j *job, c *fileEntry, ks *skipStat) bool {
	if c != nil || ks != nil {
		size, mtime, ok := j.size, j.mtime, j.statOK
		if !j.stated {
			size, mtime, ok = x.stat(ix.ws.Root(), j)
		}
		switch {
		case !ok:
		case c != nil && size == c.size && mtime == c.mtime:
			ix.reused.Add(1)
			return false
		case ks != nil && size == ks.size && mtime == ks.mtime:
			return false // still skipped (install marked it)
		}
	}
	// The text goes into the extractor's buffer, reused from file to file:
	// symbols copy what they keep.
	src, size, mtime, err := x.read(ix.ws.Root(), j.rel)
	if err != nil {
		ix.drop(j.rel, err == errTooLarge)
		return c != nil
	}
	crc := checksum(src)
	if c != nil && c.size == size && c.crc == crc {
		ix.reused.Add(1)
		ix.mu.Lock()
		c.mtime = mtime
		ix.mu.Unlock()
		return true
	}
	if skip(src) {
		ix.drop(j.rel, true)
		ix.mu.Lock()
		ix.skipStats[j.rel] = skipStat{size, mtime}
		ix.mu.Unlock()
		return ks == nil || ks.size != size || ks.mtime != mtime
	}
	syms, err := x.skeletonDefs(j.lang, src)
	if err != nil {
		ix.drop(j.rel, false)
		return c != nil
	}
	ix.parsed.Add(1)
	ix.putDisk(j.rel, &fileEntry{rel: j.rel, lang: j.lang, size: size, mtime: mtime, crc: crc, syms: syms})
	return true
}

// drop removes the disk entry of rel, and marks it skipped when skipped.
func (ix *Index) drop(rel string, skipped bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if old := ix.files[rel]; old != nil && !old.open {
		ix.setFileLocked(rel, nil)
	}
	if skipped {
		ix.skipped[rel] = true
	}
}

// putDisk stores an entry read from disk unless an editor buffer holds the
// file.
func (ix *Index) putDisk(rel string, e *fileEntry) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if old := ix.files[rel]; old != nil && old.open {
		return
	}
	delete(ix.skipped, rel)
	ix.setFileLocked(rel, e)
}

var errTooLarge = errors.New("file over the size limit")

// read reads a regular file of the folder root from disk into the
// extractor's buffer, opened beneath root by descriptor (see
// workspace.FileReader: no symlink, nothing outside, even after a directory
// was swapped for a symlink); the result is valid until the next read. It
// returns the size and mtime of the file; errTooLarge for a file over
// maxFileSize.
func (x *extractor) read(root, rel string) (src []byte, size, mtime int64, err error) {
	if x.fr == nil {
		x.fr = workspace.NewFileReader()
	}
	src, mtime, err = x.fr.Read(root, rel, maxFileSize, x.buf)
	if cap(src) > cap(x.buf) {
		x.buf = src[:0]
	}
	if errors.Is(err, workspace.ErrTooLarge) || len(src) > maxFileSize { // over the limit, or grew past it
		return nil, 0, 0, errTooLarge
	}
	if err != nil {
		return nil, 0, 0, err
	}
	return src, int64(len(src)), mtime, nil
}

// readDisk reads the file rel from disk (not a buffer: buffers come through
// UpdateBuffer), beneath the root; a denied file reads as missing.
func (ix *Index) readDisk(rel string) ([]byte, error) {
	if ix.ws.Denied(rel) {
		return nil, fs.ErrNotExist
	}
	// A buffer of the indexed size (the reader's default is 256 KiB, most
	// of it cleared for nothing: a search reads a file per result).
	var buf []byte
	ix.mu.RLock()
	if f := ix.files[rel]; f != nil && !f.open {
		buf = make([]byte, 0, f.size+1)
	}
	ix.mu.RUnlock()
	fr := workspace.NewFileReader()
	defer fr.Close()
	src, _, err := fr.Read(ix.ws.Root(), rel, 0, buf)
	return src, err
}

// skip reports whether src is binary or minified.
func skip(src []byte) bool {
	if bytes.IndexByte(src[:min(len(src), 8<<10)], 0) >= 0 {
		return true
	}
	if len(src) < 8<<10 {
		return false
	}
	lines := bytes.Count(src, []byte{'\n'}) + 1
	return len(src)/lines > 300
}

// FileChanged re-reads path (absolute or relative to the root) from disk
// unless an editor buffer holds it: a file that is gone is removed, a
// directory is walked again.
func (ix *Index) FileChanged(path string) {
	rel, abs := ix.paths(path)
	if rel == "" {
		return
	}
	if st, err := os.Lstat(abs); err == nil && st.IsDir() {
		ix.wg.Add(1)
		go func() {
			defer ix.wg.Done()
			ix.dirChanged(rel, abs)
			ix.notify(rel)
		}()
		return
	}
	ix.fileChanged(rel, abs)
	ix.notify(rel)
}

// followDeny applies a change of the workspace's secrets deny list: the
// entries of files now denied go at once, and a walk in the background
// brings back files allowed again (unchanged files keep their entries).
// Queries call it first; it costs an atomic load when nothing changed.
func (ix *Index) followDeny() {
	v := ix.ws.DenyVersion()
	old := ix.denyVer.Load()
	if v == old || !ix.denyVer.CompareAndSwap(old, v) {
		return
	}
	ix.mu.Lock()
	for rel := range ix.files {
		if ix.ws.Denied(rel) {
			ix.setFileLocked(rel, nil)
		}
	}
	ix.mu.Unlock()
	ix.FileChanged(ix.ws.Root())
}

func (ix *Index) notify(rel string) {
	if f := ix.opts.OnUpdate; f != nil && ix.ctx.Err() == nil {
		f(rel)
	}
}

// dirChanged indexes the files under a directory.
func (ix *Index) dirChanged(rel, abs string) {
	x := newExtractor()
	defer x.Close()
	ix.ws.Walk(ix.ctx, abs, workspace.WalkOptions{NoStat: true}, func(e workspace.WalkEntry) error {
		if l := LanguageFor(e.Rel); l != nil && !e.IsDir && e.Mode.IsRegular() {
			// A file whose size and mtime did not change keeps its entry.
			ix.mu.RLock()
			c := ix.files[e.Rel]
			ix.mu.RUnlock()
			if c != nil && c.open {
				return nil
			}
			ix.indexFile(x, &job{rel: e.Rel, lang: l}, c, nil)
		}
		return nil
	})
}

func (ix *Index) fileChanged(rel, abs string) {
	ix.bufMu.Lock()
	_, open := ix.buffers[rel]
	ix.bufMu.Unlock()
	if open {
		return
	}
	st, err := os.Lstat(abs)
	if err == nil && ix.ws.Denied(rel) {
		err = fs.ErrNotExist // on the secrets deny list: as if it were gone
	}
	if err != nil {
		// Gone: the file, or everything under the directory.
		ix.mu.Lock()
		prefix := rel + "/"
		for r, f := range ix.files {
			if (r == rel || strings.HasPrefix(r, prefix)) && !f.open {
				ix.setFileLocked(r, nil)
			}
		}
		delete(ix.skipped, rel)
		delete(ix.skipStats, rel)
		ix.mu.Unlock()
		return
	}
	l := LanguageFor(rel)
	if l == nil || !st.Mode().IsRegular() || ix.ws.Ignored(abs, false) {
		return
	}
	// indexFile drops a file over the size limit and marks it skipped
	// (the reader refuses it before reading).
	ix.bufMu.Lock()
	if ix.bufx == nil {
		ix.bufx = newExtractor()
	}
	ix.indexFile(ix.bufx, &job{rel: rel, lang: l}, nil, nil)
	ix.bufMu.Unlock()
}

// paths returns the relative and absolute forms of path, or "" when it is
// outside the root.
func (ix *Index) paths(path string) (rel, abs string) {
	if filepath.IsAbs(path) {
		abs = filepath.Clean(path)
		if !ix.ws.Contains(abs) {
			return "", ""
		}
		return ix.ws.Rel(abs), abs
	}
	rel = filepath.ToSlash(filepath.Clean(path))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", ""
	}
	return rel, filepath.Join(ix.ws.Root(), filepath.FromSlash(rel))
}

// Watch follows the workspace: every buffer change updates the index at
// once (incrementally), closing a buffer goes back to the disk file, and
// writes made through the workspace re-read the file.
func (ix *Index) Watch() {
	ix.unwatch = ix.ws.OnChange(func(abs string) {
		if ix.ctx.Err() != nil {
			return
		}
		if b, ok := ix.ws.Buffer(abs); ok {
			ix.UpdateBuffer(abs, b.Version, b.Text)
			return
		}
		ix.CloseBuffer(abs)
	})
}

// buffer is an open editor file: its text and its full tree.
type buffer struct {
	version int32
	src     []byte
	tree    ctree
	lang    *Language
	syms    []def     // its definitions
	ids     []uintptr // of the root's children of tree, when known (see changedSpans)
}
