//go:build unix && !linux

package workspace

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
