package nav_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/codeindex"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/lsp/nav"
)

// BenchmarkDidChangeIndexed types one character into a 5,000-line Go file
// open in a server with the code index, and measures until the read loop
// answers a request sent after the didChange: the time the read loop is
// kept from reading (p50 and p99). The index's own work on the change is
// not in the figure unless it runs on the read loop.
func BenchmarkDidChangeIndexed(b *testing.B) {
	root := b.TempDir()
	x := &nav.Extension{Options: codeindex.Options{CacheDir: b.TempDir()}}
	e := lsptest.New(b, func(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) int {
		return lsp.New(lsp.Options{Extensions: []lsp.Extension{x}}).Run(ctx, r, w, c)
	})
	e.Initialize(lsptest.VSCodeCapabilities(), nil, root)
	e.WaitFor("the index", func() bool {
		var st codeindex.Status
		if err := e.ExecuteCommand(nav.CmdIndexStatus, map[string]any{}, &st); err != nil {
			b.Fatal(err)
		}
		return st.State == codeindex.StateReady
	})
	var src strings.Builder
	src.WriteString("package big\n\n")
	for i := range 1250 {
		fmt.Fprintf(&src, "func F%d(a int) int {\n\tb := a * %d\n\treturn b\n}\n", i, i)
	}
	a := filepath.Join(root, "big.go")
	e.Open(a, src.String())
	e.Sync()
	uri := lsptest.URI(a)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		line := uint32(2 + (i*7919)%5000)
		t0 := time.Now()
		e.Notify("textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []any{map[string]any{
				"range": map[string]any{"start": map[string]any{"line": line, "character": 0}, "end": map[string]any{"line": line, "character": 0}},
				"text":  "/",
			}},
		})
		e.Sync()
		samples = append(samples, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(samples)
	at := func(q float64) float64 { return float64(samples[int(q*float64(len(samples)-1))].Microseconds()) }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}
