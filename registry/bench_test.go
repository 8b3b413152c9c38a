package registry

import (
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
