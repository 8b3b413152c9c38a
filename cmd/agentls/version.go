package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at link time: go build -ldflags "-X main.version=v1.2.3".
var version = ""

func runVersion(e *env, args []string) int {
	fs := newFlags(e, "version", "", "Prints the version of agentls and of the Go toolchain that built it.")
	pos, code := parseArgs(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(e, "version", "", "unexpected argument %q", pos[0])
	}
	fmt.Fprintf(e.stdout, "agentls %s (%s)\n", versionString(), runtime.Version())
	return exitOK
}

func versionString() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
