package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

const callSynopsis = "[-C DIR] NAME [JSON|-]"

const callHelp = `Runs one tool on the folder DIR (default: the current directory) with the
disk as its only editor, and prints the result: the content on stdout, or on
stderr when the result is an error.

JSON is the tool's argument object; "-" reads it from stdin; without it the
tool gets {}. Each call is its own session, so the read-before-write rule
(read a file before editing it) does not apply here.

Settings (bash.allow, bash.deny, bash.sandbox, webFetch.allowPrivate,
tools.disabled, ...) come from the user's file $XDG_CONFIG_HOME/agentls/settings.json
(~/.config/agentls/settings.json), then --settings, which wins; DIR's own
.agentls/settings.json may only tighten them. bash.askFallback is "run" unless
set: a command that would need approval runs, since you typed it.

Exit status: 0 when the tool succeeded, 1 when its result is an error
(unknown tool, invalid arguments, refused path, ...), 2 for a usage error.

Example:
  agentls call -C . read_file '{"path":"README.md","limit":20}'
  echo '{"pattern":"TODO"}' | agentls call grep -`

func runCall(e *env, args []string) int {
	shortLivedGC()
	workspace.UseRawFileCalls()
	fs := newFlags(e, "call", callSynopsis, callHelp)
	dir := fs.String("C", ".", "the workspace `folder` the tool acts on")
	settingsArg := fs.String("settings", "", "the agentls settings as a JSON `object`, as an editor would send them (e.g. {\"bash\":{\"sandbox\":\"strict\"}})")
	pos, code := parseArgs(e, fs, args)
	if code >= 0 {
		return code
	}
	switch {
	case len(pos) == 0:
		return usageError(e, "call", callSynopsis, "missing the tool NAME (agentls tools lists them)")
	case len(pos) > 2:
		return usageError(e, "call", callSynopsis, "too many arguments: pass the tool arguments as one JSON object (quote it)")
	}
	name := pos[0]
	var raw []byte
	if len(pos) == 2 {
		raw = []byte(pos[1])
		if pos[1] == "-" {
			var err error
			if raw, err = io.ReadAll(e.stdin); err != nil {
				fmt.Fprintf(e.stderr, "agentls call: reading the arguments from stdin: %v\n", err)
				return exitError
			}
		}
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && !json.Valid(raw) {
		return usageError(e, "call", callSynopsis, "the arguments are not valid JSON: %s", jsonProblem(raw))
	}

	ws, err := workspace.New(*dir)
	if err != nil {
		return usageError(e, "call", callSynopsis, "-C %s: %v", *dir, err)
	}
	settings, err := commandSettings(e, "call", ws.Root(), *settingsArg, runWhenNobodyAsks)
	if err != nil {
		fmt.Fprintf(e.stderr, "agentls call: %v\n", err)
		return exitUsage
	}
	reg, err := registry.NewBuiltin(disabledTools(settings)...)
	if err != nil {
		fmt.Fprintf(e.stderr, "agentls call: %v\n", err)
	}
	sess, err := workspace.NewSession(ws, workspace.DiskEditor{WS: ws}, nil) // nil: no read-before-write
	if err != nil {
		fmt.Fprintf(e.stderr, "agentls call: %v\n", err)
		return exitError
	}
	defer sess.Close()
	if err := sess.SetSettings(settings); err != nil { // applies secrets.deny too
		return usageError(e, "call", callSynopsis, "settings: %v", err)
	}

	// A read-only tool changes nothing, so an interrupt before it has
	// run for a while may end the process outright (see catchInterrupts).
	delay := time.Duration(0)
	if t, ok := reg.Get(name); !ok || t.ReadOnly() {
		delay = interruptDelay
	}
	ctx, release := catchInterrupts(e.ctx, delay)
	defer release()
	res := reg.Call(workspace.WithSession(ctx, sess), name, raw)
	out := e.stdout
	if res.IsError {
		out = e.stderr
	}
	content := res.Content
	if content != "" && !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	if _, err := io.WriteString(out, content); err != nil {
		return exitError
	}
	if res.IsError {
		return exitError
	}
	return exitOK
}

// interruptDelay is how long a read-only tool runs before an interrupt
// cancels it rather than ending the process (see catchInterrupts).
const interruptDelay = 100 * time.Millisecond

// catchInterrupts returns a context derived from parent that the first
// interrupt (SIGINT, SIGTERM, SIGHUP) cancels, after which signals get
// their default action again, so that a second one ends the process; and
// the function that undoes it (call it when the call is over). With a
// delay, signals are caught only from then on: os/signal starts two
// threads to catch them (a goroutine locked to its thread and one waiting
// for signals), which cost a fresh call ~1.4 ms of CPU (perf stat, empty
// folder: 20.87 -> 19.48 ms task-clock, 454 -> 413 page faults; medians of
// 31, load 8) that a grep of a source tree, done in tens of milliseconds,
// need not pay. A tool that may change things (bash: its
// commands run in their own process group and must be killed on an
// interrupt) gets no delay.
func catchInterrupts(parent context.Context, delay time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	var (
		mu    sync.Mutex
		over  bool
		sstop context.CancelFunc // unregisters the signals
	)
	catch := func() {
		mu.Lock()
		defer mu.Unlock()
		if over {
			return
		}
		var sctx context.Context
		sctx, sstop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		stop := sstop
		context.AfterFunc(sctx, func() {
			stop() // the default action again
			cancel()
		})
	}
	var timer *time.Timer
	if delay > 0 {
		timer = time.AfterFunc(delay, catch)
	} else {
		catch()
	}
	return ctx, func() {
		if timer != nil {
			timer.Stop()
		}
		mu.Lock()
		over = true
		if sstop != nil {
			sstop()
		}
		mu.Unlock()
		cancel()
	}
}

// shortLivedGC tunes the collector for a process that lives for one call:
// while the heap a collection leaves live is small (under smallLiveHeap),
// GOGC is 400, so the first cycle comes at a 16 MiB heap instead of 4 MiB,
// which a search of a source tree mostly never reaches; once a collection
// leaves more live, GOGC goes back to 100, the runtime's default, so a call
// that holds much (building the code index of a large tree) collects as it
// always did. (A soft memory limit instead made such a call collect more
// often than the default: with 40 MB live and a 64 MiB limit, a cycle every
// 24 MB of allocation; `agentls call code_index` on Go's tree took 3.6 s
// and 3.7 s of user CPU instead of 2.2 and 2.3.) GOGC from the environment
// wins.
func shortLivedGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(callGOGC)
	watchLiveHeap()
}

// callGOGC is a call's GOGC while its live heap is under smallLiveHeap.
const (
	callGOGC      = 400
	smallLiveHeap = 8 << 20
)

// watchLiveHeap estimates the live heap after each collection (a
// finalizer on an object made anew each cycle) and restores GOGC 100 the
// first time it is at least smallLiveHeap. The estimate is the next heap
// goal over 1+GOGC/100 (the goal is the live heap grown by GOGC percent,
// plus the same share of stacks and globals, so it errs high by a little):
// runtime.ReadMemStats gives it, and unlike runtime/metrics costs nothing
// until a collection happens (runtime/metrics' init, paid by every call:
// ~0.3 ms, 15 KB in ~100 allocations).
func watchLiveHeap() {
	var arm func()
	arm = func() {
		sentinel := new([16]byte)
		runtime.SetFinalizer(sentinel, func(*[16]byte) {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.NextGC*100/(100+callGOGC) >= smallLiveHeap {
				debug.SetGCPercent(100)
				return
			}
			arm()
		})
	}
	arm()
}

// jsonProblem says where raw stops being JSON.
func jsonProblem(raw []byte) string {
	var v any
	err := json.Unmarshal(raw, &v)
	if err == nil {
		return "unknown error"
	}
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%v (at byte %d); quote the object for the shell: '{\"path\":\"x\"}'", se, se.Offset)
	}
	return err.Error()
}

// onlyRunWhenNobodyAsks is what runWhenNobodyAsks makes of no settings.
const onlyRunWhenNobodyAsks = `{"bash":{"askFallback":"run"}}`

// runWhenNobodyAsks gives a command-line call bash.askFallback "run"
// unless the settings say otherwise: the user typed the command, there is
// nobody else to ask.
func runWhenNobodyAsks(settings json.RawMessage) (json.RawMessage, error) {
	if len(settings) == 0 {
		// No settings file and no --settings (most calls): the bytes that
		// json.Marshal makes below, without its encoders (~0.35 % of a
		// fresh call's CPU samples, perf record on an empty folder).
		return json.RawMessage(onlyRunWhenNobodyAsks), nil
	}
	m := map[string]any{}
	if len(settings) > 0 {
		if err := json.Unmarshal(settings, &m); err != nil || m == nil {
			return nil, fmt.Errorf("--settings: want a JSON object")
		}
	}
	bash, isObj := m["bash"].(map[string]any)
	if _, ok := m["bash"]; ok && !isObj {
		return nil, fmt.Errorf(`--settings: "bash" must be an object`)
	}
	if bash == nil {
		bash = map[string]any{}
	}
	if bash["askFallback"] == nil {
		bash["askFallback"] = "run"
	}
	m["bash"] = bash
	return json.Marshal(m)
}
