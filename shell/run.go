package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Timeouts of foreground commands.
const (
	DefaultTimeout = 120 * time.Second
	MaxTimeout     = 600 * time.Second
	// KillGrace is how long a process group has between SIGTERM and SIGKILL.
	KillGrace = 2 * time.Second
)

// Spec is one command to run.
type Spec struct {
	Script string
	Dir    string   // working directory: the workspace root
	Env    []string // the complete environment (see Environ)
	// Timeout bounds a foreground command (0: DefaultTimeout); background
	// jobs have none.
	Timeout time.Duration
	// Sandbox, when set and not ModeOff, runs the command inside
	// bubblewrap.
	Sandbox *Sandbox
	// Stream, when set, receives the output as it arrives (foreground).
	Stream func(chunk []byte)
	// Grace is the time between SIGTERM and SIGKILL (0: KillGrace).
	Grace time.Duration
}

// Result is how a command ended.
type Result struct {
	ExitCode int    // -1 when a signal ended it
	Signal   string // the signal that ended it, if any
	Duration time.Duration
	Output   string // combined stdout and stderr, capped at MaxOutputChars
	TimedOut bool   // killed because the timeout passed
	Canceled bool   // killed because the call was cancelled
	Killed   bool   // killed by kill_shell or the end of its session

	pgid int // the process group (for tests)
}

// Status describes how the command ended: "exit status 0",
// "killed by SIGTERM (timed out after 2m0s)".
func (r Result) Status() string {
	var s string
	if r.Signal != "" {
		s = "killed by " + r.Signal
	} else {
		s = fmt.Sprintf("exit status %d", r.ExitCode)
	}
	switch {
	case r.TimedOut:
		s += " (timed out)"
	case r.Canceled:
		s += " (cancelled)"
	case r.Killed:
		s += " (killed on request)"
	}
	return s
}

// Environ returns the environment for commands: the server's own minus its
// AGENTLS_* variables and the relative entries of PATH, with TERM=dumb, no
// pagers or colours, no git prompts, and TMPDIR set to tmpDir.
func Environ(tmpDir string) []string {
	set := map[string]string{
		"TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0",
		"NO_COLOR": "1", "TMPDIR": tmpDir,
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AGENTLS_") {
			continue
		}
		if _, ok := set[k]; ok {
			continue
		}
		if k == "PATH" {
			kv = "PATH=" + absolutePath(kv[len("PATH="):])
		}
		env = append(env, kv)
	}
	for _, k := range []string{"TERM", "PAGER", "GIT_PAGER", "GIT_TERMINAL_PROMPT", "NO_COLOR", "TMPDIR"} {
		env = append(env, k+"="+set[k])
	}
	return env
}

// absolutePath drops the empty, "." and other relative entries of a PATH
// value: they resolve against the workspace, where a checked-out `ls` would
// then run in place of the real one.
func absolutePath(path string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if filepath.IsAbs(dir) {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// shellPath is /bin/bash, or /bin/sh where bash is missing.
func shellPath() string {
	if _, err := os.Stat("/bin/bash"); err == nil {
		return "/bin/bash"
	}
	return "/bin/sh"
}

// Run runs a foreground command and waits for it, its timeout, or the
// cancellation of ctx. On timeout or cancellation the whole process group
// gets SIGTERM, then SIGKILL after the grace period; Run returns only when no
// process of the group is left. The error is for a command that could not
// start; how it ended is in the Result.
func Run(ctx context.Context, spec Spec) (Result, error) {
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("not started: %w", err)
	}
	out := newCapture(MaxOutputChars)
	sink := func(b []byte) {
		out.Write(b)
		if spec.Stream != nil {
			spec.Stream(b)
		}
	}
	p, err := startProcess(spec, sink)
	if err != nil {
		return Result{}, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var res Result
	select {
	case <-p.exited:
	case <-timer.C:
		res.TimedOut = true
		p.terminate()
	case <-ctx.Done():
		res.Canceled = true
		p.terminate()
	}
	<-p.done
	p.fill(&res)
	res.Output = out.String()
	return res, nil
}

// process is one started command: the leader (the shell) and its process
// group.
type process struct {
	cmd  *exec.Cmd
	pgid int
	// sandboxed: the leader is bwrap, whose command runs in a session of
	// its own, outside the group (see signalGroup).
	sandboxed bool
	nsKilled  atomic.Bool // signalGroup killed the sandbox's namespace
	grace     time.Duration
	started   time.Time
	exited    chan struct{} // closed when the leader has been reaped
	done      chan struct{} // closed when the group is gone and the output drained
	ended     time.Time     // set before done closes

	stopOnce sync.Once
}

// live holds every process started by this package that has not ended, so
// that KillAll can end them when the server exits.
var live = struct {
	sync.Mutex
	m map[*process]struct{}
}{m: map[*process]struct{}{}}

// KillAll ends every command started by this package — foreground commands
// and background jobs of every session — and returns when their process
// groups are gone (at most about KillGrace plus a moment). The server calls
// it from its SIGTERM/SIGINT handler and on exit.
func KillAll() {
	eachLive(func(p *process) {
		p.terminate()
		<-p.done
	})
}

// KillAllNow ends every command started by this package at once, with
// SIGKILL to each process group (no grace period: a client gives a server
// well under a second after exit before it kills it, and a process left
// then outlives both), and returns when the groups are gone (bounded). The
// server calls it on shutdown, exit, a signal and the end of its input.
func KillAllNow() {
	eachLive(func(p *process) {
		p.signalGroup(syscall.SIGKILL)
		p.waitGone(10 * time.Second)
	})
}

// eachLive runs end on every live process at once and returns when all
// calls have.
func eachLive(end func(*process)) {
	live.Lock()
	ps := make([]*process, 0, len(live.m))
	for p := range live.m {
		ps = append(ps, p)
	}
	live.Unlock()
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Go(func() { end(p) })
	}
	wg.Wait()
}

// startProcess starts spec's script in a new process group with stdin from
// /dev/null and stdout and stderr into one pipe whose content goes to sink.
func startProcess(spec Spec, sink func([]byte)) (*process, error) {
	argv, env := []string{shellPath(), "-c", spec.Script}, spec.Env
	if spec.Sandbox != nil && spec.Sandbox.Mode != ModeOff {
		var err error
		if argv, env, err = spec.Sandbox.wrap(spec.Dir, argv, env); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start command: %w", err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("start command: %w", err)
	}
	w.Close()
	grace := spec.Grace
	if grace <= 0 {
		grace = KillGrace
	}
	p := &process{cmd: cmd, pgid: cmd.Process.Pid, grace: grace, started: time.Now(),
		exited: make(chan struct{}), done: make(chan struct{}),
		sandboxed: spec.Sandbox != nil && spec.Sandbox.Mode != ModeOff}
	live.Lock()
	live.m[p] = struct{}{}
	live.Unlock()

	drained := make(chan struct{})
	go func() {
		defer close(drained)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				sink(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		cmd.Wait() // how it ended is read from cmd.ProcessState
		close(p.exited)
		// The leader is gone; whatever is left of its group is ended too.
		p.terminate()
		// The pipe reaches EOF when the last process holding it is gone; a
		// process that escaped the group (setsid) could hold it forever.
		select {
		case <-drained:
		case <-time.After(time.Second):
			r.Close()
			<-drained
		}
		r.Close()
		p.ended = time.Now()
		live.Lock()
		delete(live.m, p)
		live.Unlock()
		close(p.done)
	}()
	return p, nil
}

// terminate ends the process group: SIGTERM, then SIGKILL once the grace
// period passes, and returns when no process of the group is left (or, if
// one cannot be killed, after a bounded wait). Concurrent calls wait for the
// first.
func (p *process) terminate() {
	p.stopOnce.Do(func() {
		if !groupAlive(p.pgid) {
			return
		}
		p.signalGroup(syscall.SIGTERM)
		if p.waitGone(p.grace) {
			return
		}
		p.signalGroup(syscall.SIGKILL)
		p.waitGone(10 * time.Second)
	})
}

// groupAlive reports whether any process (zombies included) is in the
// process group.
func groupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// waitGone polls until the group is empty or d passes. Members that ended
// are zombies until their parent reaps them: init, or this process when it
// is a subreaper (EnableSubreaper), in which case waitGone reaps them.
func (p *process) waitGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		p.reapOrphans()
		if !groupAlive(p.pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
}

// reapOrphans reaps the ended members of the group that are children of
// this process (orphans reparented to it as a subreaper). It does nothing
// until the leader has been reaped by cmd.Wait, whose status it must not
// take.
func (p *process) reapOrphans() {
	select {
	case <-p.exited:
	default:
		return
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-p.pgid, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// fill copies how the leader ended into res.
func (p *process) fill(res *Result) {
	res.pgid = p.pgid
	res.Duration = p.ended.Sub(p.started)
	st := p.cmd.ProcessState
	if st == nil {
		res.ExitCode = -1
		return
	}
	res.ExitCode = st.ExitCode()
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = signalName(ws.Signal())
	} else if p.nsKilled.Load() {
		// bwrap exited on its own once the namespace it ran was killed.
		res.Signal = "SIGKILL"
	}
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	}
	return fmt.Sprintf("signal %d (%s)", int(s), s)
}
