package hugeheap

import (
	"strings"
	"syscall"
	"unsafe"
)

const (
	hugePage   = 2 << 20  // x86-64 and arm64 with 4 KiB pages
	arenaBytes = 64 << 20 // the runtime's heapArenaBytes on 64-bit Linux
	madvHuge   = 14       // MADV_HUGEPAGE
)

func init() {
	if unsafe.Sizeof(uintptr(0)) != 8 || !isCall() || disabled() {
		return
	}
	p := uintptr(unsafe.Pointer(new([64]byte)))
	beg := p &^ (hugePage - 1)
	end := p&^(arenaBytes-1) + arenaBytes
	// Errors (no THP in the kernel) leave the heap as it was.
	syscall.Syscall(syscall.SYS_MADVISE, beg, end-beg, madvHuge)
}

// disabled reports GODEBUG=disablethp=1.
func disabled() bool {
	v, _ := syscall.Getenv("GODEBUG")
	for kv := range strings.SplitSeq(v, ",") {
		if strings.TrimSpace(kv) == "disablethp=1" {
			return true
		}
	}
	return false
}

// isCall reports whether the process runs `agentls call` (os.Args is not
// set yet when this init runs: it reads /proc/self/cmdline).
func isCall() bool {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	var buf [1024]byte
	n, _ := syscall.Read(fd, buf[:])
	args := buf[:max(n, 0)]
	_, rest, ok := strings.Cut(string(args), "\x00") // past argv[0]
	return ok && strings.HasPrefix(rest, "call\x00")
}
