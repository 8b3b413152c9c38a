//go:build unix

package textsearch

import "errors"

var errBadPath = errors.New("textsearch: path is not a clean path relative to its folder")

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
