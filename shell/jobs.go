package shell

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Limits of background jobs.
const (
	MaxJobs        = 8       // running jobs per Manager (workspace session)
	maxKeptJobs    = 32      // finished jobs are forgotten, oldest first, beyond this
	JobBufferBytes = 1 << 20 // output kept per job (the most recent)
)

// Manager owns the background jobs of one workspace session. Close kills
// them all; the session closes its Manager when it ends, and KillAll ends
// the jobs of every Manager when the server exits.
type Manager struct {
	mu     sync.Mutex
	jobs   map[string]*Job
	order  []string // ids, oldest first
	next   int
	closed bool
}

// NewManager returns an empty job manager.
func NewManager() *Manager {
	return &Manager{jobs: map[string]*Job{}}
}

// Job is one background command.
type Job struct {
	ID      string
	Script  string
	Started time.Time

	p *process

	mu      sync.Mutex
	ring    []byte // the last JobBufferBytes of output, as a ring
	ringEnd int    // next write position once the ring is full
	written int64  // bytes of output so far
	read    int64  // bytes already returned by Read
	killed  bool
	result  *Result // set when the job has ended
	done    chan struct{}
}

// ErrTooManyJobs is returned by Start when MaxJobs jobs are running.
var ErrTooManyJobs = errors.New("too many background shells")

// Start starts spec as a background job. spec.Timeout and spec.Stream are
// ignored.
func (m *Manager) Start(spec Spec) (*Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("the session has ended")
	}
	var running []string
	for _, id := range m.order {
		if !m.jobs[id].Done() {
			running = append(running, id)
		}
	}
	if len(running) >= MaxJobs {
		return nil, fmt.Errorf("%w: %d are running (%s); wait for one or end one with kill_shell", ErrTooManyJobs, len(running), strings.Join(running, ", "))
	}
	m.next++
	j := &Job{ID: fmt.Sprintf("shell_%d", m.next), Script: spec.Script, Started: time.Now(), done: make(chan struct{})}
	p, err := startProcess(spec, j.write)
	if err != nil {
		return nil, err
	}
	j.p = p
	go func() {
		<-p.done
		var res Result
		p.fill(&res)
		j.mu.Lock()
		res.Killed = j.killed
		j.result = &res
		j.mu.Unlock()
		close(j.done)
	}()
	m.jobs[j.ID] = j
	m.order = append(m.order, j.ID)
	m.forgetOld()
	return j, nil
}

// forgetOld drops the oldest finished jobs beyond maxKeptJobs. m.mu is held.
func (m *Manager) forgetOld() {
	for i := 0; len(m.order) > maxKeptJobs && i < len(m.order); {
		id := m.order[i]
		if m.jobs[id].Done() {
			delete(m.jobs, id)
			m.order = slices.Delete(m.order, i, i+1)
			continue
		}
		i++
	}
}

// Job returns the job with the given id, or an error listing the known ids.
func (m *Manager) Job(id string) (*Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if j, ok := m.jobs[id]; ok {
		return j, nil
	}
	if len(m.order) == 0 {
		return nil, fmt.Errorf("no background shell %q: none was started in this session", id)
	}
	return nil, fmt.Errorf("no background shell %q; known: %s", id, strings.Join(m.order, ", "))
}

// Close kills every job and waits until their process groups are gone. The
// Manager accepts no new job afterwards. It is idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	jobs := make([]*Job, 0, len(m.jobs))
	for _, j := range m.jobs {
		jobs = append(jobs, j)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(j.Kill)
	}
	wg.Wait()
	return nil
}

// write appends output to the ring.
func (j *Job) write(b []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.written += int64(len(b))
	if len(b) >= JobBufferBytes {
		j.ring = append(j.ring[:0], b[len(b)-JobBufferBytes:]...)
		j.ringEnd = 0
		return
	}
	for len(b) > 0 {
		if len(j.ring) < JobBufferBytes {
			n := min(JobBufferBytes-len(j.ring), len(b))
			j.ring = append(j.ring, b[:n]...)
			b = b[n:]
			continue
		}
		n := copy(j.ring[j.ringEnd:], b)
		j.ringEnd = (j.ringEnd + n) % JobBufferBytes
		b = b[n:]
	}
}

// Done reports whether the job has ended.
func (j *Job) Done() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// Kill ends the job's process group (SIGTERM, then SIGKILL) and returns when
// it is gone. Killing an ended job does nothing.
func (j *Job) Kill() {
	j.mu.Lock()
	if j.result == nil {
		j.killed = true
	}
	j.mu.Unlock()
	j.p.terminate()
	<-j.done
}

// Wait blocks until the job ends, d passes or ctx is cancelled, and reports
// whether it ended.
func (j *Job) Wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-j.done:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return j.Done()
}

// Report is what bash_output and wait return about a job.
type Report struct {
	ID      string
	Running bool
	Result  Result // how it ended, when not Running
	Elapsed time.Duration
	// Output is the output new since the last Read (only the lines
	// matching the filter, when one was given), capped at MaxOutputChars.
	Output string
	// Dropped is how many new bytes were overwritten in the ring before
	// they could be read.
	Dropped int64
}

// String renders a report for the model.
func (r Report) String() string {
	var sb strings.Builder
	if r.Running {
		fmt.Fprintf(&sb, "%s: running for %s\n", r.ID, r.Elapsed.Round(time.Millisecond))
	} else {
		fmt.Fprintf(&sb, "%s: %s after %s\n", r.ID, r.Result.Status(), r.Result.Duration.Round(time.Millisecond))
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&sb, "[%d bytes of older output were dropped: only the last %d bytes are kept]\n", r.Dropped, JobBufferBytes)
	}
	if r.Output == "" {
		sb.WriteString("(no new output)")
	} else {
		sb.WriteString(r.Output)
	}
	return sb.String()
}

// Read returns the output new since the last Read and the job's status.
// With a filter, only the new lines that match it are returned (all new
// output is consumed either way).
func (j *Job) Read(filter *regexp.Regexp) Report {
	j.mu.Lock()
	defer j.mu.Unlock()
	rep := Report{ID: j.ID, Running: j.result == nil, Elapsed: time.Since(j.Started)}
	if j.result != nil {
		rep.Result = *j.result
	}
	start := j.written - int64(len(j.ring)) // absolute offset of the ring's oldest byte
	from := j.read
	if from < start {
		rep.Dropped = start - from
		from = start
	}
	// Linearise the ring from the oldest byte, then skip what was read.
	buf := make([]byte, 0, int(j.written-from))
	lin := j.ring
	if len(j.ring) == JobBufferBytes && j.ringEnd > 0 {
		lin = append(append(buf[:0:0], j.ring[j.ringEnd:]...), j.ring[:j.ringEnd]...)
	}
	buf = append(buf, lin[from-start:]...)
	if rep.Dropped > 0 {
		// The ring's oldest byte may sit inside a UTF-8 sequence.
		for len(buf) > 0 && !utf8.RuneStart(buf[0]) {
			buf = buf[1:]
		}
	}
	j.read = j.written
	text := string(buf)
	if filter != nil {
		var kept []string
		for _, line := range strings.SplitAfter(text, "\n") {
			if line != "" && filter.MatchString(strings.TrimSuffix(line, "\n")) {
				kept = append(kept, line)
			}
		}
		text = strings.Join(kept, "")
	}
	rep.Output = capText(text, MaxOutputChars)
	return rep
}
