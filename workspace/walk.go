package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// WalkOptions select what Walk visits and how.
type WalkOptions struct {
	Hidden         bool // visit names starting with "." (.git is never visited)
	IncludeIgnored bool // do not apply .gitignore, .ignore and info/exclude
	// Parallel > 1 runs that many workers, calling fn concurrently and in
	// no particular order; 0 or 1 walks in lexical order, depth first.
	Parallel int
	// NoStat leaves WalkEntry.Size and ModTime zero and Mode with type bits
	// only, saving one lstat per entry (grep needs none of them). Without
	// the stat, a hard link to a denied file (under a name the list does
	// not cover) is visited: reading it through the workspace refuses it,
	// so a walk whose entries are shown (ls, glob) stats.
	NoStat bool
	// IncludeDenied visits files and directories on the secrets deny list,
	// and hard links to denied files, too (for housekeeping such as
	// CleanTemp, never for a tool's answer).
	IncludeDenied bool
	// DiskOnly leaves out the open buffers whose file is not on disk (see
	// WalkEntry.Buffer): for walks that act on the disk itself (deleting,
	// watching, housekeeping), not for what a tool shows or searches.
	DiskOnly bool
	// Skipped, when set, collects what the walk passed over as hidden or
	// ignored (not .git, not the deny list).
	Skipped *Skipped
}

// Skipped is what a walk passed over: hidden and ignored entries (a
// directory counts once, for everything under it), the first few by path.
type Skipped struct {
	mu              sync.Mutex
	Hidden, Ignored int
	Examples        []string // rel paths, directories ending in "/"
}

// Reset forgets what was collected, for a new walk.
func (s *Skipped) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Hidden, s.Ignored, s.Examples = 0, 0, nil
}

// vcsFile reports whether a hidden name is the version control's own
// (.git, .gitignore, .ignore…), not worth a "not searched" hint.
func vcsFile(name []byte) bool {
	switch string(name) {
	case ".git", ".gitignore", ".ignore", ".gitattributes", ".gitmodules", ".gitkeep":
		return true
	}
	return false
}

// maxSkippedExamples bounds Skipped.Examples.
const maxSkippedExamples = 1000

func (s *Skipped) add(rel string, isDir, hidden bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hidden {
		s.Hidden++
	} else {
		s.Ignored++
	}
	if len(s.Examples) < maxSkippedExamples {
		if isDir {
			rel += "/"
		}
		s.Examples = append(s.Examples, rel)
	}
}

// Under returns the counts and examples of what was skipped under the
// directory rel ("." for all): hidden entries, ignored ones, and up to n
// example paths. Counts are of the examples kept when some were dropped.
func (s *Skipped) Under(rel string, hiddenName func(string) bool, n int) (hidden, ignored int, examples []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := rel == "." || rel == ""
	if all && len(s.Examples) < maxSkippedExamples {
		hidden, ignored = s.Hidden, s.Ignored
	}
	for _, e := range s.Examples {
		if !all && !strings.HasPrefix(e, rel+"/") {
			continue
		}
		if len(examples) < n {
			examples = append(examples, e)
		}
		if all && len(s.Examples) < maxSkippedExamples {
			continue
		}
		if hiddenName(e) {
			hidden++
		} else {
			ignored++
		}
	}
	return hidden, ignored, examples
}

// A WalkEntry is one file, directory or symlink found by Walk. Symlinks are
// reported (Mode has fs.ModeSymlink, IsDir is false) but never followed.
type WalkEntry struct {
	Abs, Rel string // Rel is relative to the root, '/'-separated
	IsDir    bool
	Size     int64
	ModTime  time.Time
	Mode     fs.FileMode
	// Buffer: the entry exists only in the editor, not on disk: an open
	// buffer never saved (Mode regular, Size its text's length, ModTime its
	// last change, whatever NoStat says), or a directory that is not on
	// disk and holds one. Read it through the workspace (Read, ReadFile,
	// Buffer), never from disk.
	Buffer bool
}

// Name is the last element of the entry's path.
func (e WalkEntry) Name() string {
	return e.Abs[strings.LastIndexByte(e.Abs, filepath.Separator)+1:]
}

// Walk visits everything under dir (absolute or relative to the root, and
// confined like Resolve), but not dir itself. It applies the ignore rules
// (see Ignored) unless opts.IncludeIgnored, skips hidden names unless
// opts.Hidden, never visits .git and never follows symlinks. The rules of
// the ignore files above dir apply; dir itself is walked even when it is
// ignored or hidden (the caller asked for it by name, as with rg PATH).
// Files and directories on the secrets deny list are not visited unless
// opts.IncludeDenied (Resolve refuses a denied dir as missing).
//
// Walk lists the merged view the tools read: besides what is on disk, it
// visits every open buffer under dir whose file is not on disk (and the
// directories that exist only to hold one), in its place among its
// directory's entries and under the same rules (hidden, ignore files, deny
// list), with WalkEntry.Buffer set; dir itself may exist only that way.
// opts.DiskOnly leaves them out. A buffer whose name is on disk as anything
// (a file, a directory, a symlink) is not visited again: the disk entry
// stands for it, and reads of it give the buffer.
//
// fn may return fs.SkipDir for a directory to skip its contents (for a file
// it is ignored), fs.SkipAll to end the walk early (Walk returns nil), or
// any other error to end the walk with that error. With opts.Parallel > 1,
// fn is called from several goroutines at once. Directories that cannot be
// read are skipped; an unreadable dir itself is an error. Walk returns
// ctx.Err() when ctx ends first.
func (w *Workspace) Walk(ctx context.Context, dir string, opts WalkOptions, fn func(e WalkEntry) error) error {
	var abs string
	var err error
	if opts.IncludeDenied {
		abs, _, _, err = w.resolve(dir)
	} else {
		abs, _, err = w.Resolve(dir)
	}
	if err != nil {
		return err
	}
	var virt map[string][]virtEntry
	if !opts.DiskOnly {
		virt = w.bufferDirs(abs)
	}
	virtual := false // dir exists only as the parent of buffers
	st, err := os.Stat(abs)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist) && len(virt[abs]) > 0:
		virtual = true
	case err != nil:
		return err
	case !st.IsDir():
		return &fs.PathError{Op: "walk", Path: w.Rel(abs), Err: errors.New("not a directory")}
	}
	var lv *ignoreLevel
	if !opts.IncludeIgnored {
		lv = w.levelsFor(abs)
	}
	wk := &walker{w: w, opts: opts, fn: fn, ctx: ctx, start: abs, virt: virt}
	if !opts.IncludeDenied {
		wk.deny = w.denyList()
	}
	h, err := w.handle()
	if err != nil {
		return err
	}
	wk.root = h
	defer runtime.KeepAlive(h) // its descriptor is in use until the end
	start := dirJob{abs: abs, lv: lv, virtual: virtual}
	if opts.Parallel > 1 {
		err = wk.parallel(start)
	} else {
		err = wk.sequential(start, 0)
	}
	if errors.Is(err, fs.SkipAll) {
		err = nil
	}
	return err
}

type walker struct {
	w       *Workspace
	opts    WalkOptions
	fn      func(WalkEntry) error
	ctx     context.Context
	scratch []*dirScratch          // sequential walks: one per depth
	deny    *denyList              // nil with IncludeDenied
	start   string                 // the directory asked for, which may be a symlink
	root    *rootHandle            // the workspace's hold on its folder
	virt    map[string][]virtEntry // buffer-only entries by parent directory
}

type dirJob struct {
	abs     string
	lv      *ignoreLevel
	virtual bool // not on disk: only buffers are in it
}

// visitDir reads one directory with scratch s, calls fn for its entries
// and descend for each subdirectory that fn did not skip. Errors from fn,
// descend or the context come back as fnError (they end the walk); an
// error reading the directory comes back as is. Per entry it allocates the
// entry's path and nothing else (plus an lstat unless NoStat, which readDir
// makes relative to the directory it listed, not by path).
func (wk *walker) visitDir(j dirJob, s *dirScratch, sorted bool, descend func(dirJob) error) error {
	if err := wk.ctx.Err(); err != nil {
		return fnError{err}
	}
	s.ignores = !wk.opts.IncludeIgnored
	s.stat, s.hidden = !wk.opts.NoStat, wk.opts.Hidden
	s.root = wk.root
	if j.virtual {
		s.reset()
	} else if err := readDir(s, j.abs, wk.w.root, j.abs == wk.start); err != nil {
		return err
	}
	if v := wk.virt[j.abs]; len(v) > 0 {
		s.addBuffers(v)
	}
	if sorted {
		s.sortEnts()
	}
	root := wk.w.root
	prefix := j.abs
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	relStart := len(root) + len(sepAfter(root))
	lv := j.lv
	deny := wk.deny
	if !wk.opts.IncludeIgnored {
		gi, ig := s.gitignore, s.ignore // read by readDir from the directory it checked
		nested := j.abs != root && s.hasGit()
		if gi != nil || ig != nil || nested {
			dirRel := ""
			if j.abs != root {
				dirRel = filepath.ToSlash(j.abs[relStart:])
			}
			if nested {
				// A repository inside the walk: its own rules only, as git
				// and rg read it (the global excludes, its info/exclude).
				lv = (*ignoreLevel)(nil).child(dirRel, globalExcludes(), readIfExists(filepath.Join(j.abs, ".git", "info", "exclude")), gi, ig)
			} else {
				lv = lv.child(dirRel, gi, ig)
			}
		}
	}
	// A parallel walk hands out the subdirectories before it searches
	// this directory's files, so that the other workers have work at once
	// (a folder's top level often holds many of its files).
	if !sorted {
		s.dirsFirst()
	}
	for _, e := range s.ents {
		nb := s.name(e)
		if nb[0] == '.' && (!wk.opts.Hidden || string(nb) == ".git") && !wk.whitelisted(lv, prefix, relStart, nb, e) {
			if wk.opts.Skipped != nil && !vcsFile(nb) {
				rel := filepath.ToSlash((prefix + string(nb))[relStart:])
				if wk.deny == nil || !wk.deny.match(rel, string(nb), e.typ.IsDir()) {
					wk.opts.Skipped.add(rel, e.typ.IsDir(), true)
				}
			}
			continue
		}
		abs := prefix + string(nb)
		name := abs[len(prefix):]
		rel := filepath.ToSlash(abs[relStart:])
		typ := e.typ
		if !e.known { // the file system did not say: readDir asked
			if !e.statted {
				continue // vanished since it was listed
			}
			typ = e.mode.Type()
		}
		isDir := typ.IsDir()
		if lv != nil && lv.ignored(rel, name, isDir) {
			if wk.opts.Skipped != nil && (deny == nil || !deny.match(rel, name, isDir)) {
				wk.opts.Skipped.add(rel, isDir, false)
			}
			continue
		}
		if deny != nil && deny.match(rel, name, isDir) {
			continue
		}
		if deny != nil && e.statted && e.link.nlink > 1 && e.mode.IsRegular() && wk.w.deniedID(e.link) {
			continue // a hard link to a denied file, under a name the list does not cover
		}
		ent := WalkEntry{Abs: abs, Rel: rel, IsDir: isDir, Mode: typ, Buffer: e.buffer}
		if !wk.opts.NoStat || e.buffer {
			if !e.statted {
				continue // vanished since it was listed
			}
			ent.Mode, ent.Size, ent.ModTime = e.mode, e.size, time.Unix(0, e.mtime)
		}
		if err := wk.fn(ent); err != nil {
			if errors.Is(err, fs.SkipDir) {
				continue
			}
			return fnError{err}
		}
		if ent.IsDir {
			if err := descend(dirJob{abs: abs, lv: lv, virtual: e.buffer}); err != nil {
				return err
			}
		}
	}
	return nil
}

// whitelisted reports whether an ignore file re-includes the hidden entry
// (!/.github/ in an .ignore), which rg then walks though it is hidden.
func (wk *walker) whitelisted(lv *ignoreLevel, prefix string, relStart int, nb []byte, e dirent) bool {
	if lv == nil || string(nb) == ".git" {
		return false
	}
	isDir := e.typ.IsDir()
	if !e.known {
		isDir = e.statted && e.mode.IsDir()
	}
	rel := filepath.ToSlash((prefix + string(nb))[relStart:])
	return lv.whitelisted(rel, string(nb), isDir)
}

// fnError marks an error that ends the walk (from fn, or the context), as
// opposed to an unreadable directory, which is skipped.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// sequential walks depth first in lexical order, with one scratch per
// depth (a directory's entries stay in use while its children are read).
func (wk *walker) sequential(j dirJob, depth int) error {
	for len(wk.scratch) <= depth {
		wk.scratch = append(wk.scratch, &dirScratch{})
	}
	err := wk.visitDir(j, wk.scratch[depth], true, func(sub dirJob) error { return wk.sequential(sub, depth+1) })
	if fe, ok := err.(fnError); ok {
		if depth == 0 {
			return fe.err
		}
		return fe
	}
	if depth == 0 {
		return err
	}
	return nil // an unreadable subdirectory is skipped
}

// parallel walks with wk.opts.Parallel workers sharing a stack of
// directories. The first error (or fs.SkipAll) stops every worker.
func (wk *walker) parallel(start dirJob) error {
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		stack   = []dirJob{start}
		busy    = 0 // directories being visited
		stopErr error
		wg      sync.WaitGroup
	)
	push := func(j dirJob) error {
		mu.Lock()
		if stopErr != nil {
			mu.Unlock()
			return fnError{stopErr}
		}
		stack = append(stack, j)
		mu.Unlock()
		cond.Signal()
		return nil
	}
	worker := func() {
		defer wg.Done()
		scratch := &dirScratch{}
		mu.Lock()
		for {
			for len(stack) == 0 && busy > 0 && stopErr == nil {
				cond.Wait()
			}
			if stopErr != nil || (len(stack) == 0 && busy == 0) {
				mu.Unlock()
				cond.Broadcast()
				return
			}
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			busy++
			mu.Unlock()

			err := wk.visitDir(j, scratch, false, push)

			mu.Lock()
			busy--
			if fe, ok := err.(fnError); ok && stopErr == nil {
				stopErr = fe.err
			} else if err != nil && j.abs == start.abs && stopErr == nil {
				stopErr = err
			}
			if busy == 0 || stopErr != nil {
				cond.Broadcast()
			}
		}
	}
	n := wk.opts.Parallel
	wg.Add(n)
	for range n {
		go worker()
	}
	wg.Wait()
	return stopErr
}
