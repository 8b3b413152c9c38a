//go:build !unix

package textsearch

import (
	"io/fs"
	"os"
	"path/filepath"
)

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
