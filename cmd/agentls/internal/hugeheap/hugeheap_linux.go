package hugeheap

// The cgo import below compiles hugeheap_linux.c (see the package doc):
// its constructor and mmap are all this package does.

import "C"
