package codeindex

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

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

	bufMu   sync.Mutex // guards buffers and bufx; taken before mu; never held across disk I/O
	buffers map[string]*buffer
	bufx    *extractor
	bodyOut *skelOut // bodySpans' skeleton, under bufMu

	diskMu sync.Mutex // guards diskx, the extractor of files changed on disk
	diskx  *extractor

	// Workspace changes waiting for Watch's goroutine (see settle).
	pendMu   sync.Mutex
	pendCond *sync.Cond // on pendMu: applied moved
	pending  map[string]struct{}
	queued   uint64 // changes queued
	applied  uint64 // of them, those in the index
	pendDone bool   // Watch's goroutine has ended

	rank rankCache

	descMu sync.Mutex // guards desc; taken after mu
	desc   map[descKey]descVal

	parsed, reused atomic.Int64  // files parsed and files taken from the cache, all builds
	denyVer        atomic.Uint64 // the workspace's deny list version the entries follow
	watching       atomic.Bool   // WatchDisk's watches are in place

	// onUpdate, set by tests before the build, is called after the index
	// took in a change of a path (relative to the root) after the build: a
	// buffer update or close, a file or directory changed on disk.
	onUpdate func(path string)
}

type fileEntry struct {
	rel   string
	lang  *Language
	size  int64
	mtime int64 // UnixNano of the disk file
	crc   uint32
	// syms are the definitions, in order by the start of their names.
	// Read them through defs (and their count through ndefs): an entry
	// from the cache holds them packed until the first use.
	syms   []def
	packed *packedDefs
	open   bool // from an editor buffer, not the disk
	// ents are the name entries of syms, for an open buffer's (see
	// replaceLocked).
	ents []*nameEntry
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
	ix.pendCond = sync.NewCond(&ix.pendMu)
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
	ix.diskMu.Lock()
	if ix.diskx != nil {
		ix.diskx.Close()
		ix.diskx = nil
	}
	ix.diskMu.Unlock()
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
