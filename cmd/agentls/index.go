package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentls/agentls/codeindex"
	"github.com/agentls/agentls/workspace"
)

const indexSynopsis = "[-C DIR] [--json] [--no-cache]"

const indexHelp = `Builds the symbol index of DIR (or loads it from the on-disk cache, reparsing
only what changed) and prints every definition, one a line — a ctags
replacement on the command line.

Plain output is "path:line kind container.name"; with --json each line is an
object {name, kind, path, line, container} (line 1-based). Progress and a
summary go to stderr.`

func runIndex(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runIndexEnv(&env{ctx: ctx, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, args)
}

// indexLine is one definition of `agentls index --json`.
type indexLine struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Container string `json:"container,omitempty"`
}

func runIndexEnv(e *env, args []string) int {
	fs := newFlags(e, "index", indexSynopsis, indexHelp)
	dir := fs.String("C", ".", "the workspace `folder` to index")
	asJSON := fs.Bool("json", false, "print one JSON object a line")
	noCache := fs.Bool("no-cache", false, "neither load nor save the on-disk cache")
	pos, code := parseArgs(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(e, "index", indexSynopsis, "unexpected argument %q", pos[0])
	}
	ws, err := workspace.New(*dir)
	if err != nil {
		return usageError(e, "index", indexSynopsis, "-C %s: %v", *dir, err)
	}
	start := time.Now()
	lastReport := start
	ix := codeindex.New(ws, codeindex.Options{
		NoCache: *noCache,
		Progress: func(done, found int, final bool) {
			if now := time.Now(); !final && now.Sub(lastReport) > time.Second {
				lastReport = now
				fmt.Fprintf(e.stderr, "agentls index: %d files, %d symbols…\n", done, found)
			}
		},
	})
	defer ix.Close()
	if err := ix.Build(e.ctx); err != nil {
		fmt.Fprintf(e.stderr, "agentls index: %v\n", err)
		return exitError
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	enc := json.NewEncoder(w)
	defs := ix.Definitions()
	for _, s := range defs {
		if *asJSON {
			enc.Encode(indexLine{Name: s.Name, Kind: s.Kind.String(), Path: s.Path, Line: int(s.NameRange.Start.Line) + 1, Container: s.Container})
			continue
		}
		name := s.Name
		if s.Container != "" {
			name = s.Container + "." + s.Name
		}
		fmt.Fprintf(w, "%s:%d %s %s\n", s.Path, s.NameRange.Start.Line+1, s.Kind, name)
	}
	if err := w.Flush(); err != nil {
		return exitError
	}
	st := ix.Status()
	fmt.Fprintf(e.stderr, "agentls index: %d definitions in %d files (%d skipped) in %v\n",
		len(defs), st.Files, st.Skipped, time.Since(start).Round(time.Millisecond))
	return exitOK
}
