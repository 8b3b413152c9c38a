package builtin

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/registry"
)

// fileTools are the tools of this package's file layer.
var fileTools = []string{"delete_file", "edit_file", "glob", "ls", "move_file", "multi_edit", "notebook_edit", "read_file", "write_file"}

// TestFileToolsRegistry adds the file tools to a registry (which compiles
// their schemas), checks their read-only flags and the size of what they
// add to the model's prompt, and calls them through the registry.
func TestFileToolsRegistry(t *testing.T) {
	r := registry.New()
	readOnly := map[string]bool{"read_file": true, "ls": true, "glob": true}
	for _, name := range fileTools {
		tool, ok := registry.LookupBuiltin(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		if err := r.Add(tool); err != nil {
			t.Fatalf("add %s: %v", name, err)
		}
		if tool.ReadOnly() != readOnly[name] {
			t.Errorf("%s: ReadOnly() = %v", name, tool.ReadOnly())
		}
	}
	// 9 of ~17 tools, within a 16 KiB budget for all (5.4 KiB when written).
	if n := len(r.ToolsJSON()); n > 6<<10 {
		t.Errorf("the file tools' schema list is %d bytes, over 6 KiB", n)
	}
	ctx, _ := newTestSession(t, testdataArchive(t, "files.txtar"))
	res := r.Call(ctx, "read_file", []byte(`{"path":"main.go","limit":1}`))
	if res.IsError || !strings.HasPrefix(res.Content, "1→package main") {
		t.Errorf("read_file through the registry: %+v", res)
	}
	res = r.Call(ctx, "edit_file", []byte(`{"path":"main.go","old_string":"a"}`))
	if !res.IsError || !strings.Contains(res.Content, "new_string") {
		t.Errorf("edit_file without new_string: %+v", res)
	}
	res = r.Call(ctx, "notebook_edit", []byte(`{"path":"x.ipynb","edit_mode":"move"}`))
	if !res.IsError || !strings.Contains(res.Content, "edit_mode") {
		t.Errorf("notebook_edit with a bad edit_mode: %+v", res)
	}
}
