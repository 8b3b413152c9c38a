package main

import (
	"fmt"
	"os"
)

// runMCP serves the tools over MCP. Stub: the mcp engineer replaces this
// file, keeping the signature.
func runMCP(args []string) int {
	fmt.Fprintln(os.Stderr, "agentls mcp: not built yet")
	return exitUsage
}
