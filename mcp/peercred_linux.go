package mcp

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// checkPeer verifies, before anything is sent on c, that the process at the
// other end of the Unix socket is the editor session the lock names: the
// kernel's SO_PEERCRED must give our own uid and the lock's pid. A lock
// file planted to point at another socket fails here.
func checkPeer(c net.Conn, lk Lock) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("the editor session's socket %s is not a Unix socket", lk.Socket)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("the peer of %s: %w", lk.Socket, cerr)
	}
	if int(cred.Uid) != os.Getuid() || int(cred.Pid) != lk.PID {
		return fmt.Errorf("the socket %s is served by pid %d (uid %d), not by the editor session its lock file names (pid %d, uid %d); ignoring that lock file",
			lk.Socket, cred.Pid, cred.Uid, lk.PID, os.Getuid())
	}
	return nil
}
