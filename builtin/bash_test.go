package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/shell"
	"github.com/agentls/agentls/workspace"
)

const bashArchive = `
-- main.go --
package main
-- notes.txt --
one
two
`

// bashSession is a test session with the given settings JSON and Ask.
func bashSession(t *testing.T, settings string, ask func(ctx context.Context, q string) (bool, error)) (context.Context, *workspace.Session) {
	t.Helper()
	ctx, s := newTestSession(t, bashArchive)
	if !strings.Contains(settings, "sandbox") && shell.Probe("") != nil {
		// Without bubblewrap nothing runs without asking; these tests are
		// about running commands, so they trust the classifier alone.
		var m map[string]any
		if settings == "" || json.Unmarshal([]byte(settings), &m) != nil {
			m = map[string]any{}
		}
		b, _ := m["bash"].(map[string]any)
		if b == nil {
			b = map[string]any{}
		}
		b["sandbox"] = "off"
		m["bash"] = b
		raw, _ := json.Marshal(m)
		settings = string(raw)
	}
	if settings != "" {
		s.Settings = json.RawMessage(settings)
	}
	s.Ask = ask
	return ctx, s
}

// neverAsk fails the test when a command asks for approval.
func neverAsk(t *testing.T) func(context.Context, string) (bool, error) {
	return func(_ context.Context, q string) (bool, error) {
		t.Errorf("unexpected question %q", q)
		return false, nil
	}
}

func TestBashReadOnlyRuns(t *testing.T) {
	ctx, s := bashSession(t, "", neverAsk(t))
	out := mustExec(t, ctx, "bash", map[string]any{"command": "ls && wc -l < notes.txt && pwd"})
	wantOut(t, out, "exit status 0, ", "main.go\nnotes.txt\n2\n"+s.WS.Root())
}

func TestBashNonZeroExitIsAResult(t *testing.T) {
	ctx, _ := bashSession(t, "", neverAsk(t))
	out := mustExec(t, ctx, "bash", map[string]any{"command": "grep -q nothing notes.txt"})
	wantOut(t, out, "exit status 1")
}

func TestBashParseError(t *testing.T) {
	ctx, _ := bashSession(t, "", neverAsk(t))
	wantErr(t, ctx, "bash", map[string]any{"command": "echo ok\nls &&"}, "line 2, column 4", "nothing ran")
}

func TestBashRefusalNamesRule(t *testing.T) {
	ctx, _ := bashSession(t, `{"bash":{"askFallback":"run","deny":["git push"]}}`, neverAsk(t))
	wantErr(t, ctx, "bash", map[string]any{"command": "rm -rf /"}, "rm outside the workspace")
	wantErr(t, ctx, "bash", map[string]any{"command": "git push origin main"}, `bash.deny "git push"`)
	wantErr(t, ctx, "bash", map[string]any{"command": "nohup sleep 1"}, "run_in_background")
}

func TestBashAsk(t *testing.T) {
	var questions []string
	answer := false
	ctx, s := bashSession(t, "", func(_ context.Context, q string) (bool, error) {
		questions = append(questions, q)
		return answer, nil
	})
	wantErr(t, ctx, "bash", map[string]any{"command": "touch made.txt"}, "declined")
	if _, err := os.Stat(filepath.Join(s.WS.Root(), "made.txt")); err == nil {
		t.Error("a declined command ran")
	}
	answer = true
	mustExec(t, ctx, "bash", map[string]any{"command": "touch made.txt"})
	if _, err := os.Stat(filepath.Join(s.WS.Root(), "made.txt")); err != nil {
		t.Errorf("an approved command did not run: %v", err)
	}
	want := "Allow agentls to run bash: `touch made.txt`?"
	if len(questions) != 2 || questions[0] != want {
		t.Errorf("questions = %q, want twice %q", questions, want)
	}
}

func TestBashNobodyToAsk(t *testing.T) {
	ctx, s := bashSession(t, "", nil)
	wantErr(t, ctx, "bash", map[string]any{"command": "touch x"}, "needs approval", "bash.allow")
	// The command line: the user typed the command.
	s.Settings = json.RawMessage(`{"bash":{"askFallback":"run"}}`)
	mustExec(t, ctx, "bash", map[string]any{"command": "touch x"})
	if _, err := os.Stat(filepath.Join(s.WS.Root(), "x")); err != nil {
		t.Error(err)
	}
}

func TestBashAllowPattern(t *testing.T) {
	ctx, _ := bashSession(t, `{"bash":{"allow":["touch"]}}`, neverAsk(t))
	mustExec(t, ctx, "bash", map[string]any{"command": "touch a b"})
}

func TestBashTimeout(t *testing.T) {
	ctx, _ := bashSession(t, "", neverAsk(t))
	wantErr(t, ctx, "bash", map[string]any{"command": "echo started; sleep 30", "timeout_seconds": 1},
		"timed out after 1s", "started")
}

func TestBashCancel(t *testing.T) {
	ctx, _ := bashSession(t, "", neverAsk(t))
	ctx, cancel := context.WithCancel(ctx)
	var once sync.Once
	ctx = workspace.WithProgress(ctx, func(msg string) {
		if strings.Contains(msg, "started") {
			once.Do(cancel)
		}
	})
	wantErr(t, ctx, "bash", map[string]any{"command": "echo started; sleep 30"}, "cancelled")
}

func TestBashProgressAndTmpdir(t *testing.T) {
	ctx, s := bashSession(t, "", neverAsk(t))
	var mu sync.Mutex
	var streamed strings.Builder
	ctx = workspace.WithProgress(ctx, func(msg string) {
		mu.Lock()
		streamed.WriteString(msg)
		mu.Unlock()
	})
	// A command approved by bash.allow gets the session's TMPDIR (a
	// read-only one gets a private /tmp in the sandbox).
	s.Settings = json.RawMessage(`{"bash":{"allow":["echo"],"sandbox":"off"}}`)
	out := mustExec(t, ctx, "bash", map[string]any{"command": `echo "$TMPDIR"`})
	tmp := filepath.Join(sessionTemp(t, s), "tmp")
	wantOut(t, out, tmp)
	if streamed.String() != tmp+"\n" {
		t.Errorf("progress = %q", streamed.String())
	}
}

func TestBashUnsavedBuffersNote(t *testing.T) {
	ctx, s := bashSession(t, "", neverAsk(t))
	s.WS.Open(filepath.Join(s.WS.Root(), "notes.txt"), 1, "one\ntwo\nthree (unsaved)\n")
	out := mustExec(t, ctx, "bash", map[string]any{"command": "cat notes.txt"})
	wantOut(t, out, "note: unsaved editor changes in notes.txt were not visible")
}

func TestBashBackgroundJobs(t *testing.T) {
	ctx, s := bashSession(t, "", neverAsk(t))
	out := mustExec(t, ctx, "bash", map[string]any{"command": "echo one; echo two; exit 2", "run_in_background": true})
	id := regexp.MustCompile(`shell_\d+`).FindString(out)
	if id == "" {
		t.Fatalf("no shell id in %q", out)
	}
	out = mustExec(t, ctx, "wait", map[string]any{"shell_id": id, "timeout_seconds": 30})
	wantOut(t, out, id+": exit status 2", "one\ntwo\n")
	out = mustExec(t, ctx, "bash_output", map[string]any{"shell_id": id})
	wantOut(t, out, "(no new output)")

	// A long job: filter, kill_shell, and the session's end.
	out = mustExec(t, ctx, "bash", map[string]any{"command": "echo ready; echo noise; sleep 1000", "run_in_background": true})
	long := regexp.MustCompile(`shell_\d+`).FindString(out)
	out = mustExec(t, ctx, "bash", map[string]any{"command": "sleep 1000", "run_in_background": true})
	last := regexp.MustCompile(`shell_\d+`).FindString(out)
	out = mustExec(t, ctx, "wait", map[string]any{"shell_id": long, "timeout_seconds": 1})
	wantOut(t, out, long+": running")
	out = mustExec(t, ctx, "bash_output", map[string]any{"shell_id": long, "filter": "^no"})
	if strings.Contains(out, "ready") {
		t.Errorf("filter kept a non-matching line: %q", out)
	}
	out = mustExec(t, ctx, "kill_shell", map[string]any{"shell_id": long})
	// SIGTERM to the group; a sandboxed job's namespace gets SIGKILL
	// (shell.signalGroup).
	if !regexp.MustCompile(long + `: killed by SIG(TERM|KILL) \(killed on request\)`).MatchString(out) {
		t.Errorf("kill_shell: %q", out)
	}

	wantErr(t, ctx, "bash_output", map[string]any{"shell_id": "shell_99"}, "no background shell", id)
	wantErr(t, ctx, "bash_output", map[string]any{"shell_id": id, "filter": "("}, "invalid filter")

	j, err := jobs(s).Job(last)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if !j.Done() {
		t.Error("closing the session left a job running")
	}
}

func TestBashSandboxSetting(t *testing.T) {
	ctx, _ := bashSession(t, `{"bash":{"sandbox":"firejail"}}`, neverAsk(t))
	wantErr(t, ctx, "bash", map[string]any{"command": "ls"}, "unknown bash.sandbox", "did not run")
}
