//go:build !unix

package textsearch

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/workspace"
)

// readFile reads the file f (Abs, Rel, Size) into buf, beneath the folder
// that Abs minus Rel names (see workspace.FileReader).
func readFile(d *workspace.FileReader, f File, buf []byte) ([]byte, error) {
	root, ok := rootOf(f.Abs, f.Rel)
	if !ok {
		return buf, errBadPath
	}
	return d.ReadAt(root, f.Rel, f.Size, buf)
}

// rootOf is the folder that abs lies in when rel ('/'-separated) is its
// path relative to that folder.
func rootOf(abs, rel string) (string, bool) {
	rel = filepath.FromSlash(rel)
	if rel == "" || !filepath.IsLocal(rel) || len(abs) < len(rel)+1 || abs[len(abs)-len(rel):] != rel || !os.IsPathSeparator(abs[len(abs)-len(rel)-1]) {
		return "", false
	}
	return filepath.Clean(abs[:len(abs)-len(rel)]), true
}

var errBadPath = fs.ErrInvalid
