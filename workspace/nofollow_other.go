//go:build !unix

package workspace

// oNoFollow is not available here; ReadRaw follows a final symlink.
const oNoFollow = 0

// oNonBlock is not available here.
const oNonBlock = 0

// processAlive: without a way to ask, every process counts as alive, so
// nothing is removed.
func processAlive(pid int) bool { return true }

func ownedByUs(p string) bool { return false }
