//go:build !unix

package workspace

import (
	"io/fs"
	"os"
)

// oNoFollow is not available here; ReadRaw follows a final symlink.
const oNoFollow = 0

// oNonBlock is not available here.
const oNonBlock = 0

// processAlive: without a way to ask, every process counts as alive, so
// nothing is removed.
func processAlive(pid int) bool { return true }

func ownedByUs(p string) bool { return false }

// statID: no inode numbers here; hard links are not recognised.
func statID(fi fs.FileInfo) (linkInfo, bool) { return linkInfo{}, false }

func lstatAbs(p string) (fs.FileInfo, error) { return os.Lstat(p) }
