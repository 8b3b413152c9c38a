package shell

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestJobLifecycle(t *testing.T) {
	t.Parallel() // waits on the clock, not the CPU
	m := NewManager()
	defer m.Close()
	spec := testSpec(t, "")
	fifo := filepath.Join(spec.Dir, "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	spec.Script = `echo "build 1 ok"; echo "warn: x"; read line < go; echo "build 2 $line"; exit 4`
	j, err := m.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	if j.ID != "shell_1" {
		t.Errorf("id = %q", j.ID)
	}
	if got, err := m.Job("shell_1"); err != nil || got != j {
		t.Fatalf("Job(shell_1) = %v, %v", got, err)
	}
	// Release the job: opening the fifo waits until the job reads it, so
	// the first two lines are written by then.
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	waitOutput(t, j, "warn: x\n")
	if rep := j.Read(regexp.MustCompile(`^build`)); !rep.Running || rep.Output != "build 1 ok\n" {
		t.Errorf("first read: running=%v output %q", rep.Running, rep.Output)
	}
	f.WriteString("done\n")
	f.Close()
	if !j.Wait(context.Background(), 30*time.Second) {
		t.Fatal("job did not end")
	}
	rep := j.Read(nil)
	if rep.Running || rep.Result.ExitCode != 4 {
		t.Errorf("after wait: %+v", rep)
	}
	if rep.Output != "build 2 done\n" {
		t.Errorf("second read = %q, want only the new line", rep.Output)
	}
	if s := rep.String(); !strings.Contains(s, "shell_1: exit status 4") {
		t.Errorf("report = %q", s)
	}
	if rep := j.Read(nil); rep.Output != "" || !strings.Contains(rep.String(), "(no new output)") {
		t.Errorf("third read = %q", rep.String())
	}
	if _, err := m.Job("shell_9"); err == nil || !strings.Contains(err.Error(), "shell_1") {
		t.Errorf("unknown id error = %v", err)
	}
}

func TestJobKillStubborn(t *testing.T) {
	t.Parallel() // waits on the clock, not the CPU
	m := NewManager()
	defer m.Close()
	spec := testSpec(t, stubbornScript)
	j, err := m.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	waitOutput(t, j, "ready")
	j.Kill()
	rep := j.Read(nil)
	if rep.Running || !rep.Result.Killed || rep.Result.Signal != "SIGKILL" {
		t.Errorf("after kill: %s", rep.String())
	}
	assertNoSurvivors(t, j.allOutput())
}

// waitOutput reads the job until its output contains s, bounded by the
// job's own end.
func waitOutput(t *testing.T, j *Job, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		j.mu.Lock()
		out := string(j.ring)
		j.mu.Unlock()
		if strings.Contains(out, s) {
			return
		}
		if j.Done() || time.Now().After(deadline) {
			t.Fatalf("job never printed %q: %q", s, out)
		}
		j.Wait(context.Background(), 10*time.Millisecond)
	}
}

// allOutput is the whole ring (for tests).
func (j *Job) allOutput() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return string(j.ring)
}

func TestManagerCloseKillsJobs(t *testing.T) {
	t.Parallel() // waits on the clock, not the CPU
	m := NewManager()
	var jobs []*Job
	for range 3 {
		j, err := m.Start(testSpec(t, stubbornScript))
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	for _, j := range jobs {
		waitOutput(t, j, "ready")
	}
	m.Close()
	for _, j := range jobs {
		if !j.Done() {
			t.Errorf("%s still running after Close", j.ID)
		}
		assertNoSurvivors(t, j.allOutput())
	}
	if _, err := m.Start(testSpec(t, "true")); err == nil {
		t.Error("Start after Close succeeded")
	}
}

// TestKillAll must not run in parallel: KillAll ends every command of the
// package, those of other tests too.
func TestKillAll(t *testing.T) {
	m := NewManager()
	defer m.Close()
	j, err := m.Start(testSpec(t, stubbornScript))
	if err != nil {
		t.Fatal(err)
	}
	waitOutput(t, j, "ready")
	KillAll()
	// The process group is gone when KillAll returns; the job records it
	// right after.
	if !j.Wait(context.Background(), 10*time.Second) {
		t.Fatal("job survives KillAll")
	}
	assertNoSurvivors(t, j.allOutput())
}

func TestJobLimit(t *testing.T) {
	t.Parallel() // waits on the clock, not the CPU
	m := NewManager()
	defer m.Close()
	spec := testSpec(t, "read x < go")
	if err := syscall.Mkfifo(filepath.Join(spec.Dir, "go"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range MaxJobs {
		if _, err := m.Start(spec); err != nil {
			t.Fatalf("job %d: %v", i, err)
		}
	}
	_, err := m.Start(spec)
	if !errors.Is(err, ErrTooManyJobs) || !strings.Contains(err.Error(), "kill_shell") {
		t.Fatalf("ninth job: %v", err)
	}
}

func TestJobRingDropsOldOutput(t *testing.T) {
	j := &Job{ID: "shell_x", done: make(chan struct{})}
	chunk := strings.Repeat("x", 1000) + "\n"
	for range 1100 { // about 1.1 MB
		j.write([]byte(chunk))
	}
	j.write([]byte("last\n"))
	rep := j.Read(nil)
	if rep.Dropped != j.written-JobBufferBytes {
		t.Errorf("dropped %d, want %d", rep.Dropped, j.written-JobBufferBytes)
	}
	if !strings.HasSuffix(rep.Output, "last\n") || !strings.Contains(rep.Output, "of output cut") {
		t.Errorf("output tail %q", rep.Output[len(rep.Output)-100:])
	}
	j.write([]byte("more\n"))
	if rep := j.Read(nil); rep.Output != "more\n" || rep.Dropped != 0 {
		t.Errorf("next read %q dropped %d", rep.Output, rep.Dropped)
	}
}
