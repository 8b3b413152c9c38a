package hugeheap

import (
	"os"
	"runtime"
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
	// maxPad bounds the garbage the init makes, which must stay well
	// under the heap size that starts the first collection with the
	// default GOGC (a call raises it only later, see cmd/agentls'
	// shortLivedGC): with pads up to 2.5 MiB, 6 of 40 calls collected
	// during their init (gctrace: 3->3->0 MB, 4 MB goal).
	maxPad   = 1 << 20
	madvHuge = 14 // MADV_HUGEPAGE
)

func init() {
	if unsafe.Sizeof(uintptr(0)) != 8 || !isCall() || disabled() {
		return
	}
	p := uintptr(unsafe.Pointer(new([probeBytes]byte)))
	if custom() {
		advise(p)
		return
	}
	// The 2 MiB range the heap grows in now has 4 KiB pages already (the
	// runtime's and the first packages' allocations), and Linux does not
	// give a huge page to a range with any. So the heap is made to go on
	// past it, at the next 2 MiB boundary, by an object that fills the
	// rest (untouched: memory fresh from the system is not cleared;
	// garbage at once) when that rest is at most maxPad; at the end of the
	// 4 MiB chunk, a second object makes the runtime map the next chunk,
	// so that it is advised before anything touches it (a mapping made
	// later drops the advice).
	f := p + probeBytes
	next := (f + hugePage - 1) &^ (hugePage - 1)
	if next-f > maxPad {
		advise(f)
		return
	}
	if next > f {
		runtime.KeepAlive(make([]byte, next-f))
	}
	p = next
	if next%chunkBytes == 0 {
		p = uintptr(unsafe.Pointer(new([probeBytes]byte)))
	}
	advise(p)
}

// Again moves the heap on to a fresh 4 MiB chunk advised MADV_HUGEPAGE,
// for what the call allocates from then on; cmd/agentls calls it once the
// call has raised GOGC (see shortLivedGC), when garbage of up to 4 MiB no
// longer brings a collection near. The init's advice covers the inits
// after it, but the runtime maps the heap a chunk at a time and a chunk
// mapped later has no advice: depending on where the heap starts (Go
// 1.26 starts it at a random page of its first chunk), a grep of Python's
// standard library took its read buffers, results and walk from 4 KiB
// pages, faulted one at a time (~12 us a fault on the virtual machines
// agentls is measured on, against ~0.25 ms for a whole 2 MiB page), in 1
// to 3 ranges of 2 MiB: 250 to 400 heap faults.
//
// The heap goes on past the current chunk by an object that fills its
// rest (untouched: memory fresh from the system is not cleared; garbage at
// once), then a second object makes the runtime map the next chunk, which
// is advised before anything touches it.
func Again() {
	if unsafe.Sizeof(uintptr(0)) != 8 || !isCall() || disabled() || custom() {
		return
	}
	f := uintptr(unsafe.Pointer(new([probeBytes]byte))) + probeBytes
	if next := (f + chunkBytes - 1) &^ (chunkBytes - 1); next > f {
		runtime.KeepAlive(make([]byte, next-f))
	}
	advise(uintptr(unsafe.Pointer(new([probeBytes]byte))))
}

// advise advises MADV_HUGEPAGE from the 2 MiB range of p to the end of
// its arena. Errors (no THP in the kernel) leave the heap as it was.
func advise(p uintptr) {
	beg := p &^ (hugePage - 1)
	end := p&^(arenaBytes-1) + arenaBytes
	syscall.Syscall(syscall.SYS_MADVISE, beg, end-beg, madvHuge)
}

// custom reports whether GOGC or GOMEMLIMIT is set: a collection may then
// start sooner, and the init makes no garbage.
func custom() bool {
	gogc, _ := syscall.Getenv("GOGC")
	limit, _ := syscall.Getenv("GOMEMLIMIT")
	return gogc != "" || limit != ""
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

// isCall reports whether the process runs `agentls call`. (os is
// initialized before this package, which imports it: its init sets
// os.Args.)
func isCall() bool {
	return len(os.Args) > 1 && os.Args[1] == "call"
}
