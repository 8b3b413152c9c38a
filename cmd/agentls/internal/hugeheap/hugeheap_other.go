//go:build !linux

package hugeheap

// Again: only Linux is advised (see hugeheap_linux.go).
func Again() {}
