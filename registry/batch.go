package registry

import (
	"context"
	"runtime"
	"sync"
)

// maxParallel bounds how many read-only calls of a batch run at once.
func maxParallel() int { return min(8, max(2, runtime.GOMAXPROCS(0))) }

// RunBatch runs calls and returns their results in call order. When every
// call names a read-only tool (or an unknown one, which runs nothing) they
// run in parallel, at most a few at a time; otherwise they run one after
// another in order, so a write sees the effect of the calls before it.
func (r *Registry) RunBatch(ctx context.Context, calls []BatchCall) []Result {
	results := make([]Result, len(calls))
	entries := make([]*entry, len(calls))
	parallel := len(calls) > 1
	for i, c := range calls {
		e, ok := r.lookup(c.Name)
		if ok {
			entries[i] = e
			parallel = parallel && e.schema.ReadOnly
		}
	}
	run := func(i int) {
		if e := entries[i]; e != nil {
			results[i] = e.call(ctx, calls[i].Arguments)
		} else {
			results[i] = errorResult(r.unknownTool(calls[i].Name))
		}
	}
	if !parallel {
		for i := range calls {
			run(i)
		}
		return results
	}
	sem := make(chan struct{}, maxParallel())
	var wg sync.WaitGroup
	for i := range calls {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			run(i)
		}()
	}
	wg.Wait()
	return results
}
