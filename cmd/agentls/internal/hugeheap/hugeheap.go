// Package hugeheap backs the Go heap of a fresh `agentls call` with
// transparent huge pages on Linux, from its first byte. Importing it is all
// there is to it (cmd/agentls imports it for its side effect).
//
// A short process pays for every page of memory it touches first: a page
// fault, 4 KiB at a time, since Go 1.21.1 stopped asking Linux for huge
// pages and most systems give them only when asked (THP "madvise"). On the
// virtual machines agentls is measured on a fault costs 12-30 us (a C loop
// touching 512 fresh pages: 27-35 us a page under load, 0.3-8 us a page
// for the same range advised MADV_HUGEPAGE), and a call on an empty folder
// touched 400-560 pages, 140-270 of them in the first 2 MiB of its heap:
// the runtime's own start and the other packages' inits.
//
// Go code runs too late for those: the runtime has made its first heap
// mapping and touched it before any package init, and the range it
// touched keeps its 4 KiB pages. So the advice is given in C, where the
// runtime maps its heap: in a cgo binary on Linux the runtime calls the C
// library's mmap for every mapping it makes (runtime/cgo's x_cgo_mmap, so
// that sanitizers can intercept it), and hugeheap_linux.c defines mmap, which
// an executable's own definition does before the C library's. It makes the
// system call itself and, in a call, advises MADV_HUGEPAGE on each heap
// mapping: anonymous, read-write, MAP_FIXED into the arena the runtime
// reserved, a whole number of 4 MiB chunks (mheap.grow maps the heap a
// chunk at a time). Other mappings (its reservations, its metadata) and
// every mapping of a server are left as they were. A constructor, run by
// the C library before the Go runtime starts, sets the switch from argv.
//
// Only for the call command (argv[1] == "call"): a server lives long and
// keeps the runtime's default. GODEBUG=disablethp=1 turns it off, as it
// does the runtime's own use of huge pages. Without glibc (which passes
// argv to constructors) nothing is advised.
package hugeheap
