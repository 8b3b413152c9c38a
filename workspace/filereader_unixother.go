//go:build unix && !linux

package workspace

// openat2Dir: only Linux has openat2; openDirBeneath walks component by
// component instead.
func openat2Dir(rootFD int, rel string) (int, error) { return -1, errNoOpenat2 }
