package lsp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/lsp/lsptest"
)

// reportPercentiles adds p50 and p99 of the samples to the benchmark.
func reportPercentiles(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	at := func(q float64) float64 { return float64(samples[int(q*float64(len(samples)-1))].Microseconds()) }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}

// BenchmarkCallToolReadFile is an agentls.callTool read_file round trip
// over a pipe: encode, frame, dispatch, read the file (200 lines), reply.
func BenchmarkCallToolReadFile(b *testing.B) {
	var text strings.Builder
	for i := range 200 {
		fmt.Fprintf(&text, "line %d of the file, with some text to read\n", i)
	}
	s := startB(b, map[string]string{"a.txt": text.String()})
	s.Initialize(nil, nil, s.root)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		r := s.CallTool("read_file", map[string]any{"path": "a.txt"})
		samples = append(samples, time.Since(t0))
		if r.IsError {
			b.Fatal(r.Content)
		}
	}
	b.StopTimer()
	reportPercentiles(b, samples)
}

// BenchmarkListTools is an agentls.listTools round trip over a pipe.
func BenchmarkListTools(b *testing.B) {
	s := startB(b, nil)
	s.Initialize(nil, nil, s.root)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := s.ExecuteCommand("agentls.listTools", map[string]any{}, nil); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(t0))
	}
	b.StopTimer()
	reportPercentiles(b, samples)
}

// BenchmarkDidChangeRoundTrip types one character into a 5,000-line buffer
// and waits until the server has applied it to the overlay: a didChange,
// then a request that the read loop answers after it (so the figure
// includes one request round trip).
func BenchmarkDidChangeRoundTrip(b *testing.B) {
	s := startB(b, nil)
	s.Initialize(nil, nil, s.root)
	a := s.path("big.go")
	s.Open(a, bigText(5000))
	s.Sync()
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	uri := lsptest.URI(a)
	for i := range b.N {
		line := uint32(i*7919) % 5000
		t0 := time.Now()
		// Sent directly: the fake editor's own text model is not measured.
		s.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []any{map[string]any{"range": rng(line, 3, line, 3), "text": "x"}},
		})
		s.Sync()
		samples = append(samples, time.Since(t0))
	}
	b.StopTimer()
	reportPercentiles(b, samples)
}

func bigText(lines int) string {
	var sb strings.Builder
	for i := range lines {
		fmt.Fprintf(&sb, "\tvalue%d := compute(%d, \"some text\") // comment 中文\n", i, i)
	}
	return sb.String()
}
