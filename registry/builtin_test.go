package registry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// registerForTest adds built-ins for the length of a test; nothing else in
// this package's tests registers built-ins.
func registerForTest(t *testing.T, tools ...Tool) {
	for _, tool := range tools {
		RegisterBuiltin(tool)
		t.Cleanup(func() {
			builtins.mu.Lock()
			delete(builtins.tools, tool.Name())
			builtins.mu.Unlock()
		})
	}
}

func TestBuiltins(t *testing.T) {
	registerForTest(t, &fakeTool{name: "zz_test_b", readOnly: true},
		&fakeTool{name: "zz_test_a", schema: `{"required":["q","p"],"properties":{"p":{},"q":{}}}`})
	func() {
		defer func() {
			if p := recover(); p == nil || !strings.Contains(p.(string), `"zz_test_a" registered twice`) {
				t.Errorf("duplicate RegisterBuiltin: recover() = %v", p)
			}
		}()
		RegisterBuiltin(&fakeTool{name: "zz_test_a"})
	}()
	list := Builtins()
	for i := 1; i < len(list); i++ {
		if list[i-1].Name() >= list[i].Name() {
			t.Errorf("Builtins() not sorted: %s before %s", list[i-1].Name(), list[i].Name())
		}
	}
	if tool, ok := LookupBuiltin("zz_test_b"); !ok || !tool.ReadOnly() {
		t.Error("LookupBuiltin(zz_test_b) failed")
	}
	if _, ok := LookupBuiltin("nope"); ok {
		t.Error("LookupBuiltin(nope) found something")
	}

	all, err := NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	some, err := NewBuiltin("zz_test_b")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := all.Get("zz_test_b"); !ok {
		t.Error("NewBuiltin() lacks zz_test_b")
	}
	if _, ok := some.Get("zz_test_b"); ok {
		t.Error(`NewBuiltin("zz_test_b") still has it`)
	}
	// Registries share the canonical bytes prepared once per process.
	sa, _ := all.lookup("zz_test_a")
	sb, _ := some.lookup("zz_test_a")
	if sa != sb {
		t.Error("built-in entry prepared twice")
	}
	// A call decodes and compiles the schema, and makes no canonical
	// bytes: only a listing needs them.
	if msg := sa.validate(map[string]any{"p": 1.0}); msg == "" {
		t.Error("validate without q: no problem")
	}
	if sa.schema.InputSchema != nil {
		t.Errorf("a call made the canonical bytes: %s", sa.schema.InputSchema)
	}
	if err := sa.prepared(); err != nil {
		t.Fatal(err)
	}
	if got := string(sa.schema.InputSchema); got != `{"properties":{"p":{},"q":{}},"required":["p","q"],"type":"object"}` {
		t.Errorf("schema %s", got)
	}

	r, err := NewBuiltin("zz_test_bb")
	if err == nil || !strings.Contains(err.Error(), `disabled tool "zz_test_bb" is not a built-in; did you mean zz_test_b`) {
		t.Errorf("unknown disabled name: %v", err)
	}
	if _, ok := r.Get("zz_test_b"); r == nil || !ok {
		t.Error("NewBuiltin with an error must still return the other built-ins")
	}
}

func TestRegisterBuiltinRefusesBadNames(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("RegisterBuiltin accepted an invalid name")
		}
	}()
	RegisterBuiltin(&fakeTool{name: "bad name"})
}

// TestBuiltinSchemaCompiledOnFirstCall: a built-in's schema is compiled when
// the tool is first called, not when a registry is made; a schema that does
// not compile fails that call with a message naming the tool and runs
// nothing.
func TestBuiltinSchemaCompiledOnFirstCall(t *testing.T) {
	ran := false
	registerForTest(t,
		&fakeTool{name: "zz_lazy_ok", schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`},
		&fakeTool{name: "zz_lazy_bad", schema: `{"properties":{"a":{"type":"strin"}}}`,
			exec: func(context.Context, json.RawMessage) (string, error) { ran = true; return "", nil }},
		&fakeTool{name: "zz_lazy_nojson", schema: `{"properties":`,
			exec: func(context.Context, json.RawMessage) (string, error) { ran = true; return "", nil }})
	r, err := NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	ok, _ := r.lookup("zz_lazy_ok")
	if ok.compiled != nil || ok.schema.InputSchema != nil {
		t.Error("zz_lazy_ok canonicalized or compiled before its first call")
	}
	if res := r.Call(context.Background(), "zz_lazy_ok", json.RawMessage(`{"n":"x"}`)); !res.IsError || !strings.Contains(res.Content, "/n") {
		t.Errorf("zz_lazy_ok with a string n: %+v", res)
	}
	if ok.compiled == nil {
		t.Error("zz_lazy_ok not compiled after its first call")
	}
	res := r.Call(context.Background(), "zz_lazy_bad", json.RawMessage(`{"a":"x"}`))
	if !res.IsError || !strings.Contains(res.Content, "zz_lazy_bad: invalid JSON Schema") || ran {
		t.Errorf("zz_lazy_bad: %+v (ran %v)", res, ran)
	}
	res = r.Call(context.Background(), "zz_lazy_nojson", json.RawMessage(`{}`))
	if !res.IsError || !strings.Contains(res.Content, `tool "zz_lazy_nojson": schema is not valid JSON`) || ran {
		t.Errorf("zz_lazy_nojson: %+v (ran %v)", res, ran)
	}
	// The listing leaves out the tool whose schema is not JSON.
	for _, s := range r.Schemas() {
		if s.Name == "zz_lazy_nojson" {
			t.Error("zz_lazy_nojson listed")
		}
	}
}
