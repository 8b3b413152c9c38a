//go:build unix

package workspace

import "syscall"

// mkfifo makes a named pipe at p (best effort: some file systems refuse).
func mkfifo(p string) { syscall.Mkfifo(p, 0o644) }
