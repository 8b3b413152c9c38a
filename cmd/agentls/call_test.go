package main

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestCatchInterrupts: a call's context is cancelled by the first SIGHUP
// once caught (at once without a delay), and not by release alone before
// a delay has passed.
func TestCatchInterrupts(t *testing.T) {
	ctx, release := catchInterrupts(t.Context(), 0)
	defer release()
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP did not cancel the call")
	}

	ctx, release = catchInterrupts(t.Context(), time.Hour)
	if ctx.Err() != nil {
		t.Fatal("cancelled before any interrupt")
	}
	release()
	if ctx.Err() != context.Canceled {
		t.Fatalf("after release: %v", ctx.Err())
	}
}
