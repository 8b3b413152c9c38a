// Command grepbench runs the grep built-in on a directory, once like
// `agentls call -C DIR grep JSON`, or -repeat N times inside one process
// with one session (what a running server does), printing the wall and CPU
// seconds of each run after the warm-up runs to stderr.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"syscall"
	"time"

	_ "github.com/agentls/agentls/builtin"
	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

func main() {
	dir := flag.String("C", ".", "workspace folder")
	repeat := flag.Int("repeat", 1, "runs in this process")
	warmup := flag.Int("warmup", 1, "runs before the timed ones")
	quiet := flag.Bool("q", false, "do not print the result")
	fresh := flag.Bool("fresh", false, "a new session for every run (each run walks, like one CLI call)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the runs to this file")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: grepbench [-C DIR] [-repeat N] [-q] JSON")
		os.Exit(2)
	}
	ws, err := workspace.New(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s, err := workspace.NewSession(ws, nil, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer s.Close()
	ctx := workspace.WithSession(context.Background(), s)
	tool, _ := registry.LookupBuiltin("grep")
	args := json.RawMessage(flag.Arg(0))
	var out string
	for i := range *repeat {
		if *fresh {
			s, err := workspace.NewSession(ws, nil, nil)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			defer s.Close()
			ctx = workspace.WithSession(context.Background(), s)
		}
		start, cpu := time.Now(), cpuTime()
		out, err = tool.Execute(ctx, args)
		if i >= *warmup {
			fmt.Fprintf(os.Stderr, "%.4f %.4f\n", time.Since(start).Seconds(), (cpuTime() - cpu).Seconds())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return
		}
	}
	if !*quiet {
		fmt.Println(out)
	}
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
