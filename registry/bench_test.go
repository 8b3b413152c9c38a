package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

func benchRegistry(b *testing.B) *Registry {
	r := New()
	for i := range 20 {
		mustAdd(b, r, &fakeTool{name: fmt.Sprintf("tool_%02d", i), desc: "a tool that does things",
			schema: `{"properties":{"path":{"type":"string","description":"file"},"limit":{"type":"integer"}},"required":["path"]}`})
	}
	return r
}

// BenchmarkSchemas: the hot path of listTools. It copies the sorted slice
// headers and marshals nothing.
func BenchmarkSchemas(b *testing.B) {
	r := benchRegistry(b)
	b.ReportAllocs()
	for b.Loop() {
		if len(r.Schemas()) != 20 {
			b.Fatal("wrong count")
		}
	}
}

func BenchmarkToolsJSON(b *testing.B) {
	r := benchRegistry(b)
	b.ReportAllocs()
	for b.Loop() {
		if len(r.ToolsJSON()) == 0 {
			b.Fatal("empty")
		}
	}
}

func BenchmarkDigest(b *testing.B) {
	r := benchRegistry(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Digest()
	}
}

// BenchmarkCall: the registry's overhead on one call (decode, validate,
// execute a trivial tool, cut check).
func BenchmarkCall(b *testing.B) {
	r := benchRegistry(b)
	args := json.RawMessage(`{"path":"src/main.go","limit":200}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Call(ctx, "tool_07", args); res.IsError {
			b.Fatal(res.Content)
		}
	}
}
