package shell

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Sandbox runs commands inside bubblewrap (config bash.sandbox: "bwrap"):
// the network unshared, the whole filesystem read-only except Writable, a
// private /dev, /proc and PID namespace, and the sandbox killed with its
// parent.
type Sandbox struct {
	// Writable are the directories the command may write: the workspace
	// root and the session temp dir.
	Writable []string
	// Bwrap is the bubblewrap binary (empty: "bwrap" on PATH).
	Bwrap string
}

// ErrSandboxUnavailable is returned when a sandbox is configured but
// bubblewrap is missing or cannot create its namespaces; the command did not
// run.
var ErrSandboxUnavailable = errors.New("sandbox unavailable")

// wrap returns argv to run argv inside the sandbox.
func (s *Sandbox) wrap(dir string, argv []string) ([]string, error) {
	bwrap := s.Bwrap
	if bwrap == "" {
		bwrap = "bwrap"
	}
	path, err := exec.LookPath(bwrap)
	if err != nil {
		return nil, fmt.Errorf("%w: bash.sandbox is \"bwrap\" but bubblewrap is not installed (Debian: apt-get install bubblewrap); the command did not run", ErrSandboxUnavailable)
	}
	out := []string{path,
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--die-with-parent",
	}
	for _, w := range s.Writable {
		if w == "" {
			continue
		}
		out = append(out, "--bind", w, w)
	}
	if dir != "" {
		out = append(out, "--chdir", dir)
	}
	out = append(out, "--")
	return append(out, argv...), nil
}

// Check runs `true` in the sandbox to tell a configured but unusable sandbox
// (no user namespaces, no bwrap) from a failing command.
func (s *Sandbox) Check() error {
	argv, err := s.wrap("", []string{"/bin/true"})
	if err != nil {
		return err
	}
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: bubblewrap failed (%s); the command did not run", ErrSandboxUnavailable,
			strings.TrimSpace(string(out)+" "+err.Error()))
	}
	return nil
}
