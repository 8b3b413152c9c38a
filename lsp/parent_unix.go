//go:build unix

package lsp

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid still runs (EPERM: it runs as another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
