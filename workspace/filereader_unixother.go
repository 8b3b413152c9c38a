//go:build unix && !linux

package workspace

import "golang.org/x/sys/unix"

// openat2Dir: only Linux has openat2; openDirBeneath walks component by
// component instead.
func openat2Dir(rootFD int, rel string) (int, error) { return -1, errNoOpenat2 }

// openat2: only Linux has it; callers fall back.
func openat2(dirfd int, rel string, flags int, resolve uint64) (int, error) {
	return -1, errNoOpenat2
}

const (
	resolveBeneath    = 0
	resolveNoSymlinks = 0
)

// prefaultPages: only Linux populates pages ahead; they fault one by one.
func prefaultPages(lo, hi uintptr) {}

// The system calls of the readers (raw ones only on Linux, see
// sys_linux.go).

func sysOpenat(dirfd int, name string, flags int) (int, error) {
	return unix.Openat(dirfd, name, flags, 0)
}
func sysRead(fd int, b []byte) (int, error)  { return unix.Read(fd, b) }
func sysFstat(fd int, st *unix.Stat_t) error { return unix.Fstat(fd, st) }
func sysClose(fd int) error                  { return unix.Close(fd) }
