//go:build unix

package workspace

import (
	"io/fs"
	"os"
	"syscall"
)

// oNoFollow makes open fail on a symlink in the last component.
const oNoFollow = syscall.O_NOFOLLOW

// oNonBlock makes open return at once on a FIFO with no writer (and on a
// device that would wait); Read refuses such a file after fstat.
const oNonBlock = syscall.O_NONBLOCK

// processAlive reports whether a process with pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// ownedByUs reports whether p (not followed) belongs to this user.
func ownedByUs(p string) bool {
	var st syscall.Stat_t
	return syscall.Lstat(p, &st) == nil && int(st.Uid) == os.Getuid()
}

// statID is the identity, link count and inode change time of a file's
// FileInfo.
func statID(fi fs.FileInfo) (linkInfo, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return linkInfo{}, false
	}
	return linkInfo{id: fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nlink: uint64(st.Nlink), ctime: statCtime(st)}, true
}

func lstatAbs(p string) (fs.FileInfo, error) { return os.Lstat(p) }
