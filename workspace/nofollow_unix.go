//go:build unix

package workspace

import "syscall"

// oNoFollow makes open fail on a symlink in the last component.
const oNoFollow = syscall.O_NOFOLLOW
