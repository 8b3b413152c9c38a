//go:build linux && (amd64 || arm64)

package workspace

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// sysFstat is unix.Fstat, raw with the raw calls (see UseRawFileCalls).
// Only where unix.Fstat is fstat(2) into unix.Stat_t (amd64, arm64): other
// architectures use fstat64 or fstatat there.
func sysFstat(fd int, st *unix.Stat_t) error {
	if !rawFileCalls.Load() {
		return unix.Fstat(fd, st)
	}
	_, _, e := unix.RawSyscall(unix.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(st)), 0)
	if e != 0 {
		return e
	}
	return nil
}
