// Package hugeheap backs the Go heap of a fresh `agentls call` with
// transparent huge pages on Linux. Imported for its init only.
//
// A short process pays for every page of memory it touches first: a page
// fault, 4 KiB at a time, since Go 1.21.1 stopped asking Linux for huge
// pages and most systems give them only when asked (THP "madvise"). On the
// virtual machines agentls was measured on a fault costs ~17 us (best of
// 20; MADV_HUGEPAGE'd memory: 8 MiB in 0.5 ms instead of 56), and a grep
// over Python's standard library touched ~1,100 pages, most of them heap.
//
// The init advises MADV_HUGEPAGE on the heap arena the runtime mapped at
// start, from the first 2 MiB boundary at or below a fresh allocation to
// the end of the 64 MiB arena: the runtime's later mappings of that arena
// replace the advised range (mmap MAP_FIXED), so what is covered is the
// first few MiB mapped at start, which is what a call mostly uses. It runs
// as one of the first inits (it imports only the runtime and syscall), so
// the other packages' init allocations are covered too.
//
// Only for the call command (argv[1] == "call"): a server lives long and
// keeps the runtime's default. GODEBUG=disablethp=1 turns it off, as it
// does the runtime's own use of huge pages.
package hugeheap
