package shell

import "syscall"

const prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER from <linux/prctl.h>

// EnableSubreaper makes this process the reaper of its orphaned
// descendants (Linux PR_SET_CHILD_SUBREAPER). Processes of a command's group
// that outlive their parent are then reaped here as soon as they end,
// instead of by init, which in some containers never reaps them and on some
// machines does so only every second or so (the bwrap sandbox always leaves
// one such orphan). The cost: orphans of the server's other children (a
// plugin server's daemons) become zombies of the server. Call it once at
// startup, before starting commands; enabled false turns it off again.
func EnableSubreaper(enabled bool) error {
	v := uintptr(0)
	if enabled {
		v = 1
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, v, 0); errno != 0 {
		return errno
	}
	return nil
}
