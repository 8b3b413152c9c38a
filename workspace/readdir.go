package workspace

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// A dirent is one name read from a directory: arena[off:off+n] of the
// dirScratch it was read with, valid until the next read with it.
type dirent struct {
	off, n int
	typ    fs.FileMode // type bits; valid only when known
	known  bool        // false: the file system did not say (DT_UNKNOWN)

	// What lstat said, asked by the read when dirScratch.stat is set or the
	// type is not known (see wantStat); statted is false when it was not
	// asked or the entry vanished.
	statted bool
	mode    fs.FileMode
	size    int64
	mtime   int64    // Unix ns
	link    linkInfo // identity and link count (zero where the platform does not say)

	buffer bool // not on disk: an open buffer, or a directory holding one (addBuffers)
}

// dirScratch is what one walker goroutine reuses from directory to
// directory, so that reading a directory allocates nothing per entry.
type dirScratch struct {
	buf   []byte // raw records from the kernel
	arena []byte // names, back to back
	ents  []dirent

	// ignores, set before a read, asks for the directory's ignore files:
	// a read fills gitignore and ignore with the contents of .gitignore and
	// .ignore (nil when absent or unreadable).
	ignores           bool
	gitignore, ignore []byte

	// stat, set before a read, asks for every entry's lstat (see dirent),
	// made relative to the directory that was listed; hidden says whether
	// names starting with "." are wanted (".git" never is).
	stat, hidden bool

	// root is the workspace's hold on its folder (the walk's, shared):
	// directories are opened beneath it (Linux).
	root *rootHandle
}

// wantStat reports whether a read with s lstats the entry name.
func (s *dirScratch) wantStat(name []byte, known bool) bool {
	if name[0] == '.' && (!s.hidden || string(name) == ".git") {
		return false // the walk skips it
	}
	return s.stat || !known
}

// name is the name of e, which s read.
func (s *dirScratch) name(e dirent) []byte { return s.arena[e.off : e.off+e.n] }

// sortEnts puts the entries in lexical (byte) order.
func (s *dirScratch) sortEnts() {
	slices.SortFunc(s.ents, func(a, b dirent) int { return bytes.Compare(s.name(a), s.name(b)) })
}

// dirsFirst moves the subdirectories to the front, keeping the order
// otherwise.
func (s *dirScratch) dirsFirst() {
	isDir := func(e dirent) bool { return e.known && e.typ.IsDir() || !e.known && e.statted && e.mode.IsDir() }
	slices.SortStableFunc(s.ents, func(a, b dirent) int {
		switch da, db := isDir(a), isDir(b); {
		case da == db:
			return 0
		case da:
			return -1
		}
		return 1
	})
}

// readDirPortable fills s.ents with the entries of dir through os.File.ReadDir.
func readDirPortable(s *dirScratch, dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	list, err := f.ReadDir(-1)
	f.Close()
	if err != nil && len(list) == 0 {
		return err
	}
	s.arena, s.ents = s.arena[:0], s.ents[:0]
	s.gitignore, s.ignore = nil, nil
	for _, e := range list {
		s.ents = append(s.ents, dirent{off: len(s.arena), n: len(e.Name()), typ: e.Type(), known: true})
		s.arena = append(s.arena, e.Name()...)
		if ent := &s.ents[len(s.ents)-1]; s.wantStat([]byte(e.Name()), true) {
			if fi, err := os.Lstat(filepath.Join(dir, e.Name())); err == nil {
				ent.statted, ent.mode, ent.size, ent.mtime = true, fi.Mode(), fi.Size(), fi.ModTime().UnixNano()
				ent.link, _ = statID(fi)
			}
		}
		if s.ignores {
			switch e.Name() {
			case ".gitignore":
				s.gitignore = readIfExists(filepath.Join(dir, ".gitignore"))
			case ".ignore":
				s.ignore = readIfExists(filepath.Join(dir, ".ignore"))
			}
		}
	}
	return nil
}

// hasGit reports whether the directory s read holds a .git entry (a nested
// repository's, or a worktree's .git file).
func (s *dirScratch) hasGit() bool {
	for _, e := range s.ents {
		if e.n == 4 && string(s.name(e)) == ".git" {
			return true
		}
	}
	return false
}
