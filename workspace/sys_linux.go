package workspace

import (
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawFileCalls is set by UseRawFileCalls.
var rawFileCalls atomic.Bool

// UseRawFileCalls makes the readers and the walk open, stat, read, list
// and close files with raw system calls, which do not tell the Go
// scheduler they may block. A process that does nothing else while it
// reads (a one-shot call) then keeps its two threads: with the ordinary
// calls, the runtime's monitor hands a processor held in a system call to
// another thread every 20 us and wakes itself that often, which costs a
// short search of a source tree more than the calls themselves. A read
// that blocks (a cold disk, a network file system) holds its processor
// meanwhile: not for a server.
func UseRawFileCalls() { rawFileCalls.Store(true) }

// setRawFileCalls turns the raw calls on or off (the tests run both) and
// returns the previous setting.
func setRawFileCalls(on bool) bool { return rawFileCalls.Swap(on) }

func sysOpenat(dirfd int, name string, flags int) (int, error) {
	if !rawFileCalls.Load() {
		return unix.Openat(dirfd, name, flags, 0)
	}
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return -1, err
	}
	r, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(flags), 0, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

func sysRead(fd int, b []byte) (int, error) {
	if !rawFileCalls.Load() {
		return unix.Read(fd, b)
	}
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(p), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

func sysClose(fd int) error {
	if !rawFileCalls.Load() {
		return unix.Close(fd)
	}
	_, _, e := unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func sysGetdents(fd int, b []byte) (int, error) {
	if !rawFileCalls.Load() {
		return syscall.ReadDirent(fd, b)
	}
	r, _, e := unix.RawSyscall(unix.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}
