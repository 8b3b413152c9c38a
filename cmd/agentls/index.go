package main

import (
	"fmt"
	"os"
)

// runIndex prints the symbol index. Stub: the codeindex engineer replaces
// this file, keeping the signature.
func runIndex(args []string) int {
	fmt.Fprintln(os.Stderr, "agentls index: not built yet")
	return exitUsage
}
