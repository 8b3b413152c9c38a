// Command agentls is the agentls language server and its command line:
// the same tool registry over LSP (serve), MCP (mcp) and one-shot calls
// (call), plus the tool list (tools), the symbol index (index) and the tool
// contract (contract).
//
// Each subcommand lives in its own file and is one entry of the commands
// table below.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	_ "github.com/agentls/agentls/builtin"                       // registers the built-in tools
	_ "github.com/agentls/agentls/cmd/agentls/internal/hugeheap" // a call's heap on huge pages (Linux)
)

// env is what a subcommand runs with.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand. Commands that own the process's standard
// streams (serve, mcp: they speak a protocol on stdio) or that are built
// elsewhere take only their arguments; see stdioCommand.
type command struct {
	name    string
	args    string // the synopsis after the name
	summary string
	run     func(e *env, args []string) int
}

// commands is the dispatch table; "agentls" alone runs "serve".
var commands = []command{
	{"serve", "[--stdio]", "run the language server on stdin/stdout (the default)", stdioCommand(runServe)},
	{"tools", toolsSynopsis, "list the built-in tools and their schemas", runTools},
	{"call", callSynopsis, "run one tool on DIR and print its result", runCall},
	{"index", "[-C DIR] [--json] [--no-cache]", "build the symbol index and print every definition", stdioCommand(runIndex)},
	{"mcp", "[--dir DIR] [--attach]", "serve the tools over MCP on stdin/stdout", stdioCommand(runMCP)},
	{"contract", "", "print the tool contract (docs/TOOL_CONTRACT.md)", runContract},
	{"version", "", "print the version", runVersion},
}

// stdioCommand adapts a subcommand written against the process's own
// standard streams: func(args []string) int, as serve.go, index.go and
// mcp.go define.
func stdioCommand(run func(args []string) int) func(*env, []string) int {
	return func(_ *env, args []string) int { return run(args) }
}

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // the tool (or the command) failed
	exitUsage = 2 // the command line was wrong
)

func main() {
	// Interrupts are the commands' own business: serve, mcp and index
	// cancel their work on the first one (the next ends the process), call
	// too (see catchInterrupts); the others end at once.
	code := run(&env{ctx: context.Background(), stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:])
	os.Exit(code)
}

// run dispatches args to a subcommand and returns the exit status.
func run(e *env, args []string) int {
	if len(args) == 0 {
		if isTerminal(e.stdin) {
			// Someone typed "agentls": say what is waiting on their terminal.
			fmt.Fprintln(e.stderr, "agentls: a language server for editors, speaking LSP on stdin/stdout; waiting for one (Ctrl-D ends). See agentls --help for the commands.")
		}
		return lookup("serve").run(e, nil)
	}
	switch first := args[0]; {
	case first == "help" || first == "-h" || first == "-help" || first == "--help":
		if len(args) > 1 && first == "help" {
			if c := lookup(args[1]); c != nil {
				return c.run(e, []string{"--help"})
			}
		}
		usage(e.stdout)
		return exitOK
	case first == "--version" || first == "-version":
		return runVersion(e, nil)
	case strings.HasPrefix(first, "-"):
		// Editors start the server as "agentls --stdio" (vscode-languageclient
		// appends it); flags before any subcommand belong to serve.
		return lookup("serve").run(e, args)
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(e.stderr, "agentls: unknown command %q\n\n", args[0])
		usage(e.stderr)
		return exitUsage
	}
	return c.run(e, args[1:])
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprint(w, "agentls: a language server that gives AI agents tools acting on the editor session.\n\nUsage:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  agentls %-8s %-32s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprint(w, "\nWith no command, agentls runs serve. \"agentls COMMAND --help\" describes a command.\n")
}

// flags is a subcommand's flag set and its help text.
type flags struct {
	*flag.FlagSet
	name, synopsis, description string
}

// newFlags returns the flag set of a subcommand; --help prints the
// synopsis, the description and the flags on stdout.
func newFlags(e *env, name, synopsis, description string) *flags {
	fs := flag.NewFlagSet("agentls "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parseArgs reports bad flags
	fs.Usage = func() {}     // and prints the help
	return &flags{fs, name, synopsis, description}
}

func (f *flags) printHelp(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", strings.TrimSpace("agentls "+f.name+" "+f.synopsis), f.description)
	hasFlags := false
	f.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprint(w, "\nFlags:\n")
		f.SetOutput(w)
		f.PrintDefaults()
	}
}

// parseArgs parses flags anywhere among args (agentls call grep '{…}' -C
// dir works as well as flags first) and returns the positional arguments.
// "--" ends the flags. It returns exitOK after printing the help for
// --help, exitUsage for a bad flag, and -1 to go on.
func parseArgs(e *env, f *flags, args []string) (positional []string, code int) {
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				f.printHelp(e.stdout)
				return nil, exitOK
			}
			return nil, usageError(e, f.name, f.synopsis, "%v", err)
		}
		rest := f.Args()
		if len(rest) == 0 {
			return positional, -1
		}
		// Parse stops at the first positional argument or after "--".
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), -1
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// usageError reports a wrong command line for a subcommand and returns
// exitUsage.
func usageError(e *env, name, synopsis, format string, a ...any) int {
	fmt.Fprintf(e.stderr, "agentls %s: %s\nUsage: %s (see agentls %s --help)\n", name, fmt.Sprintf(format, a...),
		strings.TrimSpace("agentls "+name+" "+synopsis), name)
	return exitUsage
}
