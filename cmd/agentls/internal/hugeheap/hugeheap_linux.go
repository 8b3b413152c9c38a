package hugeheap

import (
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"unsafe"
)

const (
	hugePage   = 2 << 20  // x86-64 and arm64 with 4 KiB pages
	arenaBytes = 64 << 20 // the runtime's heapArenaBytes on 64-bit Linux
	chunkBytes = 4 << 20  // the runtime maps its heap 4 MiB at a time (pallocChunkBytes)
	// probeBytes is a large object of 16 pages: the runtime takes it from
	// the lowest free pages of the heap (a smaller one may come from a
	// P's page cache, below them).
	probeBytes = 128 << 10
	madvHuge   = 14 // MADV_HUGEPAGE
)

func init() {
	if unsafe.Sizeof(uintptr(0)) != 8 || !isCall() || disabled() {
		return
	}
	// The 4 MiB chunk the heap grows in now has 4 KiB pages already: the
	// runtime's and the first packages' allocations, and the advice does
	// not change a 2 MiB range that has any. So the heap is made to go on
	// in a chunk of its own: an object fills the rest of the current one
	// (untouched: memory fresh from the system is not cleared), and a
	// second one makes the runtime map the next, which is advised before
	// anything touches it. Up to 4.3 MB of garbage, no memory: GOGC is
	// raised first (a call runs with 400 anyway, see cmd/agentls'
	// shortLivedGC), so that it does not start a collection.
	if v, _ := syscall.Getenv("GOGC"); v == "" {
		debug.SetGCPercent(400)
	}
	p := uintptr(unsafe.Pointer(new([probeBytes]byte)))
	if end, next := p+probeBytes, (p+probeBytes+chunkBytes-1)&^(chunkBytes-1); next > end {
		runtime.KeepAlive(make([]byte, next-end)) // garbage once made, never touched
	}
	p = uintptr(unsafe.Pointer(new([probeBytes]byte)))
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
