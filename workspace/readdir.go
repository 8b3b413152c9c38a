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
}

// name is the name of e, which s read.
func (s *dirScratch) name(e dirent) []byte { return s.arena[e.off : e.off+e.n] }

// sortEnts puts the entries in lexical (byte) order.
func (s *dirScratch) sortEnts() {
	slices.SortFunc(s.ents, func(a, b dirent) int { return bytes.Compare(s.name(a), s.name(b)) })
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
