package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder logs the start and end of every call, in the order they happen.
type recorder struct {
	mu      sync.Mutex
	events  []string
	running int
	peak    int
}

func (r *recorder) tool(name string, readOnly bool, body func(ctx context.Context) error) *fakeTool {
	return &fakeTool{name: name, readOnly: readOnly, schema: `{"properties":{"id":{"type":"integer"}}}`,
		exec: func(ctx context.Context, args json.RawMessage) (string, error) {
			var a struct{ ID int }
			_ = json.Unmarshal(args, &a)
			r.mu.Lock()
			r.events = append(r.events, fmt.Sprintf("start %d", a.ID))
			r.running++
			r.peak = max(r.peak, r.running)
			r.mu.Unlock()
			err := body(ctx)
			r.mu.Lock()
			r.events = append(r.events, fmt.Sprintf("end %d", a.ID))
			r.running--
			r.mu.Unlock()
			return fmt.Sprintf("%s %d", name, a.ID), err
		}}
}

func calls(names ...string) []BatchCall {
	out := make([]BatchCall, len(names))
	for i, n := range names {
		out[i] = BatchCall{Name: n, Arguments: json.RawMessage(fmt.Sprintf(`{"id":%d}`, i))}
	}
	return out
}

func TestRunBatchReadOnlyRunsInParallel(t *testing.T) {
	var rec recorder
	// Each call waits until the other has started: this only finishes when
	// the two run at the same time. The timeout bounds a failing run.
	var started sync.WaitGroup
	started.Add(2)
	barrier := func(ctx context.Context) error {
		started.Done()
		done := make(chan struct{})
		go func() { started.Wait(); close(done) }()
		select {
		case <-done:
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("the other call never started: batch ran sequentially")
		}
	}
	r := New()
	mustAdd(t, r, rec.tool("look", true, barrier))
	res := r.RunBatch(context.Background(), calls("look", "look"))
	for i, res := range res {
		if res.IsError || res.Content != fmt.Sprintf("look %d", i) {
			t.Errorf("result %d = %+v", i, res)
		}
	}
}

func TestRunBatchParallelIsBounded(t *testing.T) {
	var rec recorder
	r := New()
	mustAdd(t, r, rec.tool("look", true, func(context.Context) error { return nil }))
	names := make([]string, 40)
	for i := range names {
		names[i] = "look"
	}
	names[7] = "lokk" // unknown: an error in place, still read-only
	res := r.RunBatch(context.Background(), calls(names...))
	if len(res) != len(names) {
		t.Fatalf("%d results for %d calls", len(res), len(names))
	}
	for i, res := range res {
		if i == 7 {
			if !res.IsError || !strings.Contains(res.Content, "did you mean look?") {
				t.Errorf("unknown tool result %+v", res)
			}
			continue
		}
		if res.Content != fmt.Sprintf("look %d", i) {
			t.Errorf("result %d out of order: %+v", i, res)
		}
	}
	if rec.peak > maxParallel() {
		t.Errorf("%d calls ran at once, bound is %d", rec.peak, maxParallel())
	}
}

func TestRunBatchMixedRunsInOrder(t *testing.T) {
	var rec recorder
	nop := func(context.Context) error { return nil }
	r := New()
	mustAdd(t, r, rec.tool("look", true, nop), rec.tool("write", false, nop),
		rec.tool("fail", false, func(context.Context) error { return errors.New("refused") }))
	res := r.RunBatch(context.Background(), calls("look", "write", "look", "fail", "look", "write"))
	want := []string{"start 0", "end 0", "start 1", "end 1", "start 2", "end 2", "start 3", "end 3", "start 4", "end 4", "start 5", "end 5"}
	if strings.Join(rec.events, ",") != strings.Join(want, ",") {
		t.Errorf("events %v\nwant   %v", rec.events, want)
	}
	for i, name := range []string{"look", "write", "look", "fail", "look", "write"} {
		if !strings.HasPrefix(res[i].Content, fmt.Sprintf("%s %d", name, i)) || res[i].IsError != (name == "fail") {
			t.Errorf("result %d = %+v", i, res[i])
		}
	}
}

func TestRunBatchEdges(t *testing.T) {
	r := New()
	mustAdd(t, r, &fakeTool{name: "w"})
	if res := r.RunBatch(context.Background(), nil); res == nil || len(res) != 0 {
		t.Errorf("empty batch = %#v, want an empty non-nil slice", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, res := range r.RunBatch(ctx, calls("w", "w")) {
		if !res.IsError {
			t.Errorf("cancelled batch ran a call: %+v", res)
		}
	}
}
