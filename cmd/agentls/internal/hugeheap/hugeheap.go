// Package hugeheap backs the Go heap of a fresh `agentls call` with
// transparent huge pages on Linux: its init, then Again once the call has
// raised GOGC.
//
// A short process pays for every page of memory it touches first: a page
// fault, 4 KiB at a time, since Go 1.21.1 stopped asking Linux for huge
// pages and most systems give them only when asked (THP "madvise"). On the
// virtual machines agentls was measured on a fault costs ~17 us (best of
// 20; MADV_HUGEPAGE'd memory: 8 MiB in 0.5 ms instead of 56), and a grep
// over Python's standard library touched ~1,100 pages, most of them heap.
//
// The init advises MADV_HUGEPAGE on the heap arena from the 2 MiB range
// the heap grows in next to the end of the 64 MiB arena. The runtime maps
// its arena 4 MiB at a time (mmap MAP_FIXED), and a new mapping drops the
// advice, so what is covered is what is mapped when the init runs. The
// range in use then has 4 KiB pages already, which Linux keeps: the init
// makes the heap go on past it (see init), near the end of the chunk in
// a fresh chunk it makes the runtime map, so that the next 2-4 MiB, most
// of what a call allocates after its start, come as one or two huge-page
// faults. (MADV_COLLAPSE of the range in use took 0.2-15 ms here and
// failed with EINVAL more often than not.) It runs as one of the first
// inits, so the other packages' init allocations are covered too: it
// imports only the runtime, os, strings and syscall (a package it waits for,
// such as runtime/debug, would put it after the ~100 others).
//
// Only for the call command (argv[1] == "call"): a server lives long and
// keeps the runtime's default. GODEBUG=disablethp=1 turns it off, as it
// does the runtime's own use of huge pages.
package hugeheap
