package builtin

import (
	"testing"

	"github.com/agentls/agentls/registry"
)

// TestBuiltinSchemasCompile adds every built-in to a registry, which
// compiles its schema at once (sessions compile a built-in's schema at its
// first call only).
func TestBuiltinSchemasCompile(t *testing.T) {
	r := registry.New()
	for _, tool := range registry.Builtins() {
		if err := r.Add(tool); err != nil {
			t.Errorf("%s: %v", tool.Name(), err)
		}
	}
}
