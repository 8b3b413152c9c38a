//go:build unix

package workspace

import "syscall"

// oNoFollow makes open fail on a symlink in the last component.
const oNoFollow = syscall.O_NOFOLLOW

// oNonBlock makes open return at once on a FIFO with no writer (and on a
// device that would wait); Read refuses such a file after fstat.
const oNonBlock = syscall.O_NONBLOCK
