package codeindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentls/agentls/workspace"
)

// job is one file for a build worker.
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
func (x *extractor) stat(ws *workspace.Workspace, j *job) (size, mtime int64, ok bool) {
	return x.reader(ws).Stat(ws.Root(), j.rel)
}

// reader is the extractor's reader of ws's files, made on first use.
func (x *extractor) reader(ws *workspace.Workspace) *workspace.FileReader {
	if x.fr == nil {
		x.fr = ws.NewFileReader()
	}
	return x.fr
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
						j.size, j.mtime, j.statOK = x.stat(ix.ws, j)
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
		if e.IsDir || !e.Mode.IsRegular() || e.Buffer {
			return nil // a buffer not on disk comes through Watch, as every open buffer
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
			size, mtime, ok = x.stat(ix.ws, j)
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
	src, size, mtime, err := x.read(ix.ws, j.rel)
	if err != nil {
		ix.drop(j.rel, err == errTooLarge)
		return c != nil
	}
	// The checksum serves only the cache: to compare with a cached entry,
	// and to be saved. Without a cache it is not computed.
	var crc uint32
	if c != nil || !ix.opts.NoCache {
		crc = checksum(src)
	}
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

// read reads a regular file of the folder ws from disk into the
// extractor's buffer, opened beneath its root by descriptor (see
// workspace.FileReader: no symlink, nothing outside, even after a directory
// was swapped for a symlink, and no hard link to a denied file); the result
// is valid until the next read. It returns the size and mtime of the file;
// errTooLarge for a file over maxFileSize.
func (x *extractor) read(ws *workspace.Workspace, rel string) (src []byte, size, mtime int64, err error) {
	src, mtime, err = x.reader(ws).Read(ws.Root(), rel, maxFileSize, x.buf)
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
	fr := ix.ws.NewFileReader()
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
	// Minified when the lines average over 300 bytes: len/lines > 300,
	// that is lines <= len/301 (lines = newlines+1). The count stops as
	// soon as there are more lines than that, which for source code is
	// within its first lines.
	need := len(src) / 301 // newlines that make the file not minified
	nl := 0
	for rest := src; len(rest) > 0; {
		chunk := rest[:min(len(rest), 4<<10)]
		rest = rest[len(chunk):]
		if nl += bytes.Count(chunk, []byte{'\n'}); nl >= need {
			return false
		}
	}
	return true
}
