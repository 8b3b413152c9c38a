package main

import (
	"fmt"
	"os"
)

// runServe runs the language server. Stub: the lsp engineer replaces this
// file, keeping the signature.
func runServe(args []string) int {
	fmt.Fprintln(os.Stderr, "agentls serve: not built yet")
	return exitUsage
}
