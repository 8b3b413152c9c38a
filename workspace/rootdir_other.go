//go:build !unix

package workspace

import (
	"fmt"
	"io/fs"
	"os"
)

// openFile opens the file rel beneath the folder for reading through the
// workspace's os.Root, which follows the symlinks that stay inside; unless
// follow, a final symlink is refused. abs names it in errors.
func (w *Workspace) openFile(abs, rel string, follow bool) (*os.File, error) {
	r, _, err := w.osRoot()
	if err != nil {
		return nil, err
	}
	if !follow {
		if st, err := r.Lstat(relOS(rel)); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symlink; it is not followed", abs)
		}
	}
	f, err := r.OpenFile(relOS(rel), os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return nil, rootError(abs, err)
	}
	return f, nil
}
