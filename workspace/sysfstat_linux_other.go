//go:build linux && !amd64 && !arm64

package workspace

import "golang.org/x/sys/unix"

// sysFstat is unix.Fstat: the raw fstat(2) is only used where it fills
// unix.Stat_t as unix.Fstat does (see sysfstat_linux_raw.go).
func sysFstat(fd int, st *unix.Stat_t) error { return unix.Fstat(fd, st) }
