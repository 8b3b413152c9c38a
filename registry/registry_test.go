package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestAddCanonicalizesOnce(t *testing.T) {
	r := New()
	tool := &fakeTool{name: "b", desc: "B", schema: `{ "type":"object", "required":["y","x","x"], "properties":{"y":{},"x":{}} }`}
	mustAdd(t, r, tool, &fakeTool{name: "a", readOnly: true})
	got := r.Schemas()
	if len(got) != 2 || got[0].Name != "a" || got[1].Name != "b" {
		t.Fatalf("Schemas() = %+v, want a, b", got)
	}
	if want := `{"properties":{"x":{},"y":{}},"required":["x","y"],"type":"object"}`; string(got[1].InputSchema) != want {
		t.Errorf("b schema = %s, want %s", got[1].InputSchema, want)
	}
	if string(got[0].InputSchema) != emptySchema || !got[0].ReadOnly {
		t.Errorf("a = %+v", got[0])
	}
	// The stored bytes are reused, not re-marshalled.
	again := r.Schemas()
	if &again[1].InputSchema[0] != &got[1].InputSchema[0] {
		t.Error("Schemas() returned new schema bytes; want the stored ones")
	}
}

func TestAddRefuses(t *testing.T) {
	r := New()
	for _, tc := range []struct {
		tool Tool
		want string
	}{
		{&fakeTool{name: "bad_type", schema: `{"properties":{"a":{"type":"strin"}}}`}, `tool "bad_type": invalid JSON Schema`},
		{&fakeTool{name: "not_json", schema: `{"properties":`}, `tool "not_json": schema is not valid JSON`},
		{&fakeTool{name: "array_root", schema: `[]`}, `tool "array_root": schema root must be a JSON object`},
		{&fakeTool{name: "remote_ref", schema: `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`}, `tool "remote_ref": invalid JSON Schema`},
		{&fakeTool{name: "file_ref", schema: `{"properties":{"a":{"$ref":"file:///etc/passwd"}}}`}, `tool "file_ref": invalid JSON Schema`},
		{&fakeTool{name: "bad_pattern", schema: `{"properties":{"a":{"pattern":"("}}}`}, `tool "bad_pattern": invalid JSON Schema`},
		{&fakeTool{name: "bad_ref", schema: `{"properties":{"a":{"$ref":"#/$defs/none"}}}`}, `at /properties/a/$ref: "#/$defs/none": no such location in the schema`},
		{&fakeTool{name: "bad_anchor", schema: `{"properties":{"a":{"$ref":"#none"}}}`}, `no anchor "none"`},
		{&fakeTool{name: "relative_ref", schema: `{"properties":{"a":{"$ref":"other.json"}}}`}, `refers outside the schema`},
		{&fakeTool{name: "bad_schema_uri", schema: `{"$schema":"https://example.com/mine"}`}, `unknown meta-schema`},
		{&fakeTool{name: "bad_min", schema: `{"properties":{"a":{"minLength":-1}}}`}, `at /properties/a/minLength: must be a non-negative integer`},
		{&fakeTool{name: "bad_required", schema: `{"required":"a"}`}, `at /required: must be an array of strings`},
		{&fakeTool{name: "bad_multiple", schema: `{"properties":{"a":{"multipleOf":0}}}`}, `must be greater than 0`},
		{&fakeTool{name: "bad_subschema", schema: `{"properties":{"a":3}}`}, `at /properties/a: a schema must be an object or a boolean, not a number`},
		{&fakeTool{name: "bad_items_2020", schema: `{"properties":{"a":{"items":[{}]}}}`}, `use prefixItems`},
		{&fakeTool{name: "bad_description", schema: `{"properties":{"a":{"description":1}}}`}, `at /properties/a/description: must be a string`},
		{&fakeTool{name: "bad_remote_nested", schema: `{"properties":{"a":{"$id":"http://x/y.json","$ref":"http://example.com/z.json"}}}`}, `invalid JSON Schema`},
		{&fakeTool{name: "has space"}, `tool name "has space"`},
		{&fakeTool{name: "dotted.name"}, `tool name "dotted.name"`},
		{&fakeTool{name: strings.Repeat("x", 129)}, `longer than 128 bytes`},
		{&fakeTool{name: ""}, `tool name is empty`},
		{nil, "nil tool"},
	} {
		err := r.Add(tc.tool)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Add(%v) = %v, want an error containing %q", tc.tool, err, tc.want)
		}
	}
	if n := len(r.Schemas()); n != 0 || r.Revision() != 0 {
		t.Errorf("refused tools changed the registry: %d tools, revision %d", n, r.Revision())
	}
}

func TestLocalRefsWork(t *testing.T) {
	r := New()
	mustAdd(t, r, &fakeTool{name: "refs", schema: `{"$defs":{"edit":{"type":"object","required":["old"],"properties":{"old":{"type":"string"}}}},"properties":{"edits":{"type":"array","items":{"$ref":"#/$defs/edit"}}}}`})
	if res := r.Call(context.Background(), "refs", json.RawMessage(`{"edits":[{"old":"x"}]}`)); res.IsError {
		t.Fatalf("valid call: %s", res.Content)
	}
	res := r.Call(context.Background(), "refs", json.RawMessage(`{"edits":[{"old":1}]}`))
	if !res.IsError || !strings.Contains(res.Content, "- /edits/0/old: expected string, got number") {
		t.Errorf("got %+v", res)
	}
}

func TestReplaceRemoveRevisionDigest(t *testing.T) {
	r := New()
	rev0, dig0 := r.Revision(), r.Digest()
	if string(r.ToolsJSON()) != "[]" {
		t.Errorf("empty ToolsJSON = %s", r.ToolsJSON())
	}
	mustAdd(t, r, &fakeTool{name: "x", desc: "one"})
	rev1, dig1 := r.Revision(), r.Digest()
	if rev1 <= rev0 || dig1 == dig0 {
		t.Fatalf("Add did not move revision/digest: %d→%d %s→%s", rev0, rev1, dig0, dig1)
	}
	mustAdd(t, r, &fakeTool{name: "x", desc: "two"})
	if s := r.Schemas(); len(s) != 1 || s[0].Description != "two" {
		t.Fatalf("replace in place: %+v", s)
	}
	if r.Revision() <= rev1 || r.Digest() == dig1 {
		t.Error("replace did not move revision/digest")
	}
	mustAdd(t, r, &fakeTool{name: "x", desc: "one"})
	if r.Digest() != dig1 {
		t.Error("same tool list, different digest")
	}
	if !r.Remove("x") || r.Remove("x") {
		t.Error("Remove reported wrongly")
	}
	if r.Digest() != dig0 {
		t.Error("empty again, but digest differs from the first empty one")
	}
	// Digest is stable across registries built the same way in another order.
	a, b := New(), New()
	mustAdd(t, a, &fakeTool{name: "p"}, &fakeTool{name: "q"})
	mustAdd(t, b, &fakeTool{name: "q"}, &fakeTool{name: "p"})
	if a.Digest() != b.Digest() || string(a.ToolsJSON()) != string(b.ToolsJSON()) {
		t.Error("order of Add changed the list bytes")
	}
}

func TestToolsJSON(t *testing.T) {
	r := New()
	mustAdd(t, r, &fakeTool{name: "w", desc: `a "quoted" <tag> & more`, schema: `{"properties":{"p":{"type":"string"}}}`},
		&fakeTool{name: "r", desc: "reads", readOnly: true})
	want := `[{"name":"r","description":"reads","readOnly":true,"inputSchema":{"properties":{},"type":"object"}},` +
		`{"name":"w","description":"a \"quoted\" <tag> & more","readOnly":false,"inputSchema":{"properties":{"p":{"type":"string"}},"type":"object"}}]`
	if got := string(r.ToolsJSON()); got != want {
		t.Errorf("ToolsJSON\n got %s\nwant %s", got, want)
	}
	var decoded []Schema
	if err := json.Unmarshal(r.ToolsJSON(), &decoded); err != nil || len(decoded) != 2 {
		t.Fatalf("ToolsJSON does not decode as []Schema: %v", err)
	}
}

func TestPrefixes(t *testing.T) {
	r := New()
	mustAdd(t, r, &fakeTool{name: "read_file"}, &fakeTool{name: "mcp__gh__issue"}, &fakeTool{name: "mcp__gh__pr"}, &fakeTool{name: "mcp__db__query"})
	rev := r.Revision()
	if n := r.SuspendPrefix("mcp__gh__"); n != 2 {
		t.Fatalf("SuspendPrefix = %d, want 2", n)
	}
	if _, ok := r.Get("mcp__gh__pr"); ok {
		t.Error("suspended tool still visible")
	}
	if r.Revision() == rev {
		t.Error("SuspendPrefix did not bump the revision")
	}
	err := r.Add(&fakeTool{name: "mcp__gh__new"})
	if err == nil || !strings.Contains(err.Error(), `prefix "mcp__gh__" is suspended`) {
		t.Errorf("Add under a suspended prefix: %v", err)
	}
	res := r.Call(context.Background(), "mcp__gh__pr", nil)
	if !res.IsError || !strings.Contains(res.Content, `tool "mcp__gh__pr" is unavailable for now: the tools under "mcp__gh__" are suspended`) {
		t.Errorf("call of a suspended tool: %+v", res)
	}
	r.ResumePrefix("mcp__gh__")
	if _, ok := r.Get("mcp__gh__pr"); !ok {
		t.Error("ResumePrefix did not re-admit the tools")
	}
	mustAdd(t, r, &fakeTool{name: "mcp__gh__new"})
	if n := r.RemovePrefix("mcp__"); n != 4 {
		t.Errorf("RemovePrefix = %d, want 4", n)
	}
	if names := r.names(); len(names) != 1 || names[0] != "read_file" {
		t.Errorf("left %v", names)
	}
	// Removing a suspended prefix also forgets the tools it held back.
	mustAdd(t, r, &fakeTool{name: "mcp__x__a"})
	r.SuspendPrefix("mcp__x__")
	r.RemovePrefix("mcp__x__")
	r.ResumePrefix("mcp__x__")
	if _, ok := r.Get("mcp__x__a"); ok {
		t.Error("RemovePrefix did not drop a suspended tool")
	}
}

func TestCallArguments(t *testing.T) {
	r := New()
	mustAdd(t, r, &fakeTool{name: "echo", schema: `{"properties":{"n":{"type":"integer"}}}`})
	ctx := context.Background()
	for _, args := range []string{"", "null", "  null ", "{}"} {
		if res := r.Call(ctx, "echo", json.RawMessage(args)); res.IsError || res.Content != "ok {}" {
			t.Errorf("Call(%q) = %+v, want ok {}", args, res)
		}
	}
	if res := r.Call(ctx, "echo", json.RawMessage(`{"n": 3}`)); res.IsError || res.Content != `ok {"n": 3}` {
		t.Errorf("arguments not passed as sent: %+v", res)
	}
	for _, bad := range []string{`{"n":`, `{} {}`, `nope`} {
		res := r.Call(ctx, "echo", json.RawMessage(bad))
		if !res.IsError || !strings.Contains(res.Content, "not valid JSON") {
			t.Errorf("Call(%q) = %+v, want a JSON error", bad, res)
		}
	}
	res := r.Call(ctx, "echo", json.RawMessage(`[1]`))
	if !res.IsError || !strings.Contains(res.Content, "- /: expected object, got array") {
		t.Errorf("array arguments: %+v", res)
	}
}

func TestValidationMessages(t *testing.T) {
	r := New()
	mustAdd(t, r, &fakeTool{name: "edit", schema: `{
		"type":"object","additionalProperties":false,
		"required":["path","old_string","new_string"],
		"properties":{
			"path":{"type":"string","minLength":1},
			"old_string":{"type":"string"},
			"new_string":{"type":"string"},
			"mode":{"enum":["replace","insert","delete"]},
			"limit":{"type":"integer","minimum":1,"maximum":100},
			"glob":{"type":"string","pattern":"^[^/]"},
			"edits":{"type":"array","maxItems":2,"items":{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}}}
		}}`})
	secret := "SECRET-VALUE-THAT-MUST-NOT-BE-ECHOED"
	args := fmt.Sprintf(`{"path":"","old_string":7,"mode":"%s","limit":%s,"glob":"/%s","edits":[{"a":"x","zz":1},{},{}],"extra":"%s"}`, secret, "1000", secret, secret)
	res := r.Call(context.Background(), "edit", json.RawMessage(args))
	if !res.IsError {
		t.Fatal("invalid arguments accepted")
	}
	for _, want := range []string{
		"invalid arguments for edit:\n",
		`- /: missing required property "new_string"`,
		`- /: unknown property "extra" (allowed: edits, glob, limit, mode, new_string, old_string, path)`,
		`- /edits/0: unknown property "zz" (allowed: a)`,
		`- /edits: must have at most 2 items (got 3)`,
		`- /limit: must be <= 100`,
		`- /mode: must be one of "replace", "insert", "delete"`,
		`- /old_string: expected string, got number`,
		`- /glob: must match the pattern "^[^/]"`,
	} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("message lacks %q:\n%s", want, res.Content)
		}
	}
	if strings.Contains(res.Content, secret) {
		t.Errorf("message echoes a value:\n%s", res.Content)
	}
	lines := strings.Count(res.Content, "\n- ")
	if lines > maxProblems+1 {
		t.Errorf("%d problem lines, want at most %d and a summary:\n%s", lines, maxProblems, res.Content)
	}
	if !strings.Contains(res.Content, "- … and 1 more") {
		t.Errorf("no count of the problems left out:\n%s", res.Content)
	}
	// Deterministic: the same call gives the same bytes.
	for range 5 {
		if again := r.Call(context.Background(), "edit", json.RawMessage(args)); again.Content != res.Content {
			t.Fatalf("message varies between calls:\n%s\n---\n%s", res.Content, again.Content)
		}
	}
}

func TestUnknownTool(t *testing.T) {
	r := New()
	mustAdd(t, r, &fakeTool{name: "read_file"}, &fakeTool{name: "write_file"}, &fakeTool{name: "grep"}, &fakeTool{name: "mcp__gh__search_issues"})
	ctx := context.Background()
	for name, want := range map[string]string{
		"raed_file":     `unknown tool "raed_file"; did you mean read_file?`,
		"Read_File":     `did you mean read_file?`,
		"search_issues": `did you mean mcp__gh__search_issues?`,
		"file":          `did you mean read_file, write_file?`,
		"zzzzzzzzzzzz":  `unknown tool "zzzzzzzzzzzz"; available tools: grep, mcp__gh__search_issues, read_file, write_file`,
	} {
		res := r.Call(ctx, name, nil)
		if !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("Call(%q) = %q, want %q", name, res.Content, want)
		}
	}
	if res := New().Call(ctx, "x", nil); !strings.Contains(res.Content, "no tools are available") {
		t.Errorf("empty registry: %q", res.Content)
	}
}

func TestToolErrorsAndPanics(t *testing.T) {
	r := New()
	mustAdd(t, r,
		&fakeTool{name: "fails", exec: func(context.Context, json.RawMessage) (string, error) {
			return "", errors.New("old_string matches 3 places")
		}},
		&fakeTool{name: "partial", exec: func(context.Context, json.RawMessage) (string, error) {
			return "some output", errors.New("timed out after 2s")
		}},
		&fakeTool{name: "boom", exec: func(context.Context, json.RawMessage) (string, error) {
			panic("wheels came off")
		}},
	)
	ctx := context.Background()
	if res := r.Call(ctx, "fails", nil); !res.IsError || res.Content != "old_string matches 3 places" {
		t.Errorf("error result: %+v", res)
	}
	if res := r.Call(ctx, "partial", nil); !res.IsError || res.Content != "some output\n\ntimed out after 2s" {
		t.Errorf("partial output with error: %+v", res)
	}
	res := r.Call(ctx, "boom", nil)
	if !res.IsError || !strings.Contains(res.Content, "tool boom crashed") || !strings.Contains(res.Content, "wheels came off") {
		t.Errorf("panic result: %+v", res)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if res := r.Call(cancelled, "fails", nil); !res.IsError || !strings.Contains(res.Content, "was not run: context canceled") {
		t.Errorf("cancelled call: %+v", res)
	}
}

func TestLargeResultsAreCut(t *testing.T) {
	var big strings.Builder
	for i := 1; big.Len() < 3*MaxResultBytes; i++ {
		fmt.Fprintf(&big, "%6d→line with é and 日本 %s\n", i, strings.Repeat("x", i%50))
	}
	oneLine := strings.Repeat("日本語", MaxResultBytes) // no newline at all, multi-byte runes
	r := New()
	mustAdd(t, r,
		&fakeTool{name: "big", exec: func(context.Context, json.RawMessage) (string, error) { return big.String(), nil }},
		&fakeTool{name: "line", exec: func(context.Context, json.RawMessage) (string, error) { return oneLine, nil }},
		&fakeTool{name: "bigerr", exec: func(context.Context, json.RawMessage) (string, error) { return "", errors.New(big.String()) }},
		&fakeTool{name: "exact", exec: func(context.Context, json.RawMessage) (string, error) {
			return strings.Repeat("a", MaxResultBytes), nil
		}},
	)
	for _, name := range []string{"big", "line", "bigerr"} {
		res := r.Call(context.Background(), name, nil)
		if len(res.Content) > MaxResultBytes {
			t.Errorf("%s: %d bytes, want at most %d", name, len(res.Content), MaxResultBytes)
		}
		if !strings.Contains(res.Content, "[output cut: showing the first ") || !strings.Contains(res.Content, "offset/limit") {
			t.Errorf("%s: no note on how to get the rest:\n%s", name, res.Content[len(res.Content)-300:])
		}
		if !json.Valid([]byte(fmt.Sprintf("%q", res.Content))) || !strings.HasPrefix(big.String()+oneLine, "") {
			t.Errorf("%s: invalid text", name)
		}
		body, _, _ := strings.Cut(res.Content, "\n\n[output cut")
		if name == "big" && !strings.HasSuffix(body, "\n") && !strings.HasPrefix(big.String(), body+"\n") {
			t.Errorf("big: not cut at a line boundary")
		}
		if name == "bigerr" && !res.IsError {
			t.Error("cutting lost IsError")
		}
	}
	if res := r.Call(context.Background(), "exact", nil); len(res.Content) != MaxResultBytes || strings.Contains(res.Content, "cut") {
		t.Errorf("content of exactly MaxResultBytes was cut")
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"read_file", "raed_file", 2}, {"grep", "grep", 0}} {
		if got := editDistance(tc.a, tc.b); got != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}

func TestListsDoNotMarshal(t *testing.T) {
	r := New()
	for i := range 10 {
		mustAdd(t, r, &fakeTool{name: fmt.Sprintf("t%d", i), schema: `{"properties":{"a":{"type":"string"}}}`})
	}
	r.ToolsJSON() // build the cache for this revision
	if n := testing.AllocsPerRun(100, func() { r.ToolsJSON(); r.Digest() }); n != 0 {
		t.Errorf("ToolsJSON+Digest allocate %.0f times per call, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { r.Schemas() }); n > 1 {
		t.Errorf("Schemas allocates %.0f times per call, want at most 1 (the slice copy)", n)
	}
}

func TestConcurrentUse(t *testing.T) {
	r := New()
	mustAdd(t, r, &fakeTool{name: "base", readOnly: true})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				name := fmt.Sprintf("mcp__s%d__t%d", g, i%5)
				_ = r.Add(&fakeTool{name: name, desc: fmt.Sprint(i)})
				_ = r.Call(context.Background(), "base", nil)
				_ = r.RunBatch(context.Background(), []BatchCall{{Name: "base"}, {Name: name}})
				_ = r.Schemas()
				_ = r.ToolsJSON()
				_ = r.Digest()
				if i%10 == 0 {
					r.SuspendPrefix(fmt.Sprintf("mcp__s%d__", g))
					r.ResumePrefix(fmt.Sprintf("mcp__s%d__", g))
				}
				r.Remove(name)
			}
		})
	}
	wg.Wait()
	if got := r.names(); len(got) != 1 || got[0] != "base" {
		t.Errorf("left %v", got)
	}
}

func TestListToolsJSON(t *testing.T) {
	r := New()
	mustAdd(t, r, &fakeTool{name: "a", desc: "<a>"})
	got := r.ListToolsJSON("file:///w")
	want := `{"workspace":"file:///w","revision":1,"digest":"` + r.Digest() + `","tools":` + string(r.ToolsJSON()) + `}`
	if string(got) != want {
		t.Errorf("ListToolsJSON\n got %s\nwant %s", got, want)
	}
	var v struct {
		Workspace string
		Revision  uint64
		Digest    string
		Tools     []Schema
	}
	if err := json.Unmarshal(got, &v); err != nil || v.Tools[0].Description != "<a>" {
		t.Errorf("decode: %v %+v", err, v)
	}
}

func TestChanged(t *testing.T) {
	r := New()
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	ch := r.Changed()
	if closed(ch) {
		t.Fatal("Changed closed before any change")
	}
	r.Remove("absent") // no change
	if closed(ch) {
		t.Fatal("Changed closed by a Remove that removed nothing")
	}
	mustAdd(t, r, &fakeTool{name: "mcp__p__a", desc: "a", schema: `{"type":"object"}`})
	if !closed(ch) {
		t.Fatal("Changed not closed by Add")
	}
	for _, change := range []func(){
		func() { r.SuspendPrefix("mcp__p__") },
		func() { r.ResumePrefix("mcp__p__") },
		func() { r.RemovePrefix("mcp__p__") },
	} {
		ch := r.Changed()
		change()
		if !closed(ch) {
			t.Fatal("Changed not closed by a change")
		}
	}
}

func TestSetPrefix(t *testing.T) {
	r := New()
	mustAdd(t, r, &fakeTool{name: "read_file"}, &fakeTool{name: "mcp__gh__a"}, &fakeTool{name: "mcp__gh__b"})
	r.SuspendPrefix("mcp__gh__")
	rev := r.Revision()
	admitted, errs := r.SetPrefix("mcp__gh__", []Tool{
		&fakeTool{name: "mcp__gh__b"}, &fakeTool{name: "mcp__gh__c"},
		&fakeTool{name: "mcp__gh__bad", schema: `{"properties":`}, &fakeTool{name: "other"},
	})
	if fmt.Sprint(admitted) != "[mcp__gh__b mcp__gh__c]" {
		t.Errorf("admitted %v", admitted)
	}
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), `tool "mcp__gh__bad"`) || !strings.Contains(errs[1].Error(), `"other": name does not start with "mcp__gh__"`) {
		t.Errorf("errors %v", errs)
	}
	if got := fmt.Sprint(r.names()); got != "[mcp__gh__b mcp__gh__c read_file]" {
		t.Errorf("tools %s", got)
	}
	if r.Revision() != rev+1 {
		t.Errorf("revision moved by %d, want one change", r.Revision()-rev)
	}
	// The suspension is lifted: the held-back mcp__gh__a does not come back.
	mustAdd(t, r, &fakeTool{name: "mcp__gh__d"})
	r.ResumePrefix("mcp__gh__")
	if _, ok := r.Get("mcp__gh__a"); ok {
		t.Error("a tool held back by the suspension came back")
	}
}

// TestSetPrefixIsOneChange lists the tools while a plugin's 40 tools come
// in: each list has none of them or all (the LSP end-to-end test once saw
// three of a plugin's tools).
func TestSetPrefixIsOneChange(t *testing.T) {
	r := New()
	mustAdd(t, r, &fakeTool{name: "read_file"})
	var ts []Tool
	for i := range 40 {
		ts = append(ts, &fakeTool{name: fmt.Sprintf("mcp__p__t%02d", i)})
	}
	done := make(chan struct{})
	seen := make(chan int, 1)
	go func() {
		defer close(seen)
		for {
			n := 0
			for _, s := range r.Schemas() {
				if strings.HasPrefix(s.Name, "mcp__p__") {
					n++
				}
			}
			if n != 0 && n != 40 {
				seen <- n
				return
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	r.SetPrefix("mcp__p__", ts)
	close(done)
	if n, ok := <-seen; ok {
		t.Errorf("a list held %d of the plugin's 40 tools", n)
	}
}
