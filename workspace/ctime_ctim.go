//go:build linux || openbsd || solaris || dragonfly

package workspace

import "syscall"

// statCtime is the inode change time (Unix ns) of a stat: a new link, a
// rename or a write sets it.
func statCtime(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
