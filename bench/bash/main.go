// Command bashbench measures what the bash sandbox costs: `true` and
// `git status` through the bash tool, unconfined (bash.sandbox "off"), in
// the read-only sandbox (what a read-only command gets) and in the
// workspace-write sandbox (what an approved command gets), in one run, and
// prints the medians as a table with the ratio to the unconfined run.
//
//	go run ./bench/bash                 # a generated git repository of -files files
//	go run ./bench/bash -C ~/src/linux  # an existing repository
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "github.com/agentls/agentls/builtin"
	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/shell"
	"github.com/agentls/agentls/workspace"
)

func main() {
	dir := flag.String("C", "", "a git repository to run in (default: generate one)")
	files := flag.Int("files", 20000, "files in the generated repository")
	runs := flag.Int("n", 20, "timed runs per row")
	flag.Parse()
	if err := shell.Probe(""); err != nil {
		fail(err)
	}
	if *dir == "" {
		tmp, err := os.MkdirTemp("", "bashbench-*")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(tmp)
		if err := generate(tmp, *files); err != nil {
			fail(err)
		}
		*dir = tmp
	}
	ws, err := workspace.New(*dir)
	if err != nil {
		fail(err)
	}
	tool, _ := registry.LookupBuiltin("bash")
	type row struct {
		mode, settings, command string
	}
	var rows []row
	for _, c := range []string{"true", "git status"} {
		rows = append(rows,
			row{"off", `{"bash":{"sandbox":"off"}}`, c},
			row{"read-only", `{}`, c},
			// env makes the command not read-only; bash.allow runs it in
			// the configured (workspace-write) sandbox.
			row{"workspace-write", `{"bash":{"allow":["env"]}}`, "env " + c})
	}
	fmt.Printf("%d runs each in %s\n\n", *runs, *dir)
	fmt.Printf("| command | sandbox | median | vs off |\n| --- | --- | --- | --- |\n")
	var base time.Duration
	for _, r := range rows {
		s, err := workspace.NewSession(ws, nil, nil)
		if err != nil {
			fail(err)
		}
		s.Settings = json.RawMessage(r.settings)
		ctx := workspace.WithSession(context.Background(), s)
		args, _ := json.Marshal(map[string]string{"command": r.command})
		var times []time.Duration
		for i := range *runs + 2 {
			start := time.Now()
			out, err := tool.Execute(ctx, args)
			d := time.Since(start)
			if err != nil || !strings.HasPrefix(out, "exit status 0") {
				fail(fmt.Errorf("%s (%s): %v %s", r.command, r.mode, err, out))
			}
			if i >= 2 { // two warm-up runs
				times = append(times, d)
			}
		}
		s.Close()
		slices.Sort(times)
		med := times[len(times)/2]
		if r.mode == "off" {
			base = med
		}
		fmt.Printf("| `%s` | %s | %.1f ms | %.2f× |\n", r.command, r.mode, float64(med.Microseconds())/1000, float64(med)/float64(base))
	}
}

// generate makes a git repository of n small files in directories of 100.
func generate(dir string, n int) error {
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "package d\n\nconst C%d = %d\n", i, i), 0o644); err != nil {
			return err
		}
	}
	os.WriteFile(filepath.Join(dir, ".env"), []byte("X=1\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "bench"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=b", "-c", "user.email=b@example.invalid"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bashbench:", err)
	os.Exit(1)
}
