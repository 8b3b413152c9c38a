package textsearch

import "github.com/agentls/agentls/workspace"

// readFile reads the file f (Abs, Rel, Size), which lies in the folder that
// Abs minus Rel names, into buf, beneath that folder (see
// workspace.FileReader: nothing outside it is read, even after a directory
// was swapped for a symlink).
func readFile(d *workspace.FileReader, f File, buf []byte) ([]byte, error) {
	root, ok := rootOf(f.Abs, f.Rel)
	if !ok {
		return buf, errBadPath
	}
	return d.ReadAt(root, f.Rel, f.Size, buf)
}
