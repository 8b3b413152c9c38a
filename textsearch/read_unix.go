//go:build unix

package textsearch

import (
	"errors"

	"github.com/agentls/agentls/workspace"
)

var errBadPath = errors.New("textsearch: path is not a clean path relative to its folder")

// readFile reads the file f (Abs, Rel, Size), which lies in the folder that
// Abs minus Rel names, into buf, beneath that folder (see
// workspace.FileReader).
func readFile(d *workspace.FileReader, f File, buf []byte) ([]byte, error) {
	root, ok := rootOf(f.Abs, f.Rel)
	if !ok {
		return buf, errBadPath
	}
	return d.ReadAt(root, f.Rel, f.Size, buf)
}

// rootOf is the folder that abs lies in when rel is its path relative to
// that folder: abs minus "/"+rel.
func rootOf(abs, rel string) (string, bool) {
	if rel == "" || rel[0] == '/' || len(abs) < len(rel)+1 || abs[len(abs)-len(rel):] != rel || abs[len(abs)-len(rel)-1] != '/' {
		return "", false
	}
	root := abs[:len(abs)-len(rel)-1]
	if root == "" {
		root = "/"
	}
	return root, true
}
