package main

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
)

func TestZZAllocProfile(t *testing.T) {
	dir := os.Getenv("ZZ_DIR")
	if dir == "" {
		t.Skip()
	}
	runtime.MemProfileRate = 1
	var out, errb bytes.Buffer
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	run(&env{ctx: context.Background(), stdin: os.Stdin, stdout: &out, stderr: &errb}, []string{"call", "-C", dir, "grep", os.Getenv("ZZ_ARGS")})
	runtime.ReadMemStats(&ms1)
	t.Logf("alloc bytes %d objects %d out %d", ms1.TotalAlloc-ms0.TotalAlloc, ms1.Mallocs-ms0.Mallocs, out.Len())
	f, _ := os.Create(os.Getenv("ZZ_PROF"))
	pprof.Lookup("allocs").WriteTo(f, 0)
	f.Close()
}
