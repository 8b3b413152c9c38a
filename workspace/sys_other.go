//go:build !linux

package workspace

// UseRawFileCalls: only Linux reads with raw system calls (see
// sys_linux.go); elsewhere it does nothing.
func UseRawFileCalls() {}

func setRawFileCalls(bool) bool { return false }
