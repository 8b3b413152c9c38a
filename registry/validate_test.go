package registry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestValidationExpectations(t *testing.T) {
	const secret = "S3CR3T"
	for _, tc := range []struct {
		name, schema, args, want string
	}{
		{"minLength", `{"properties":{"p":{"type":"string","minLength":2}}}`, `{"p":"S"}`, "- /p: must have at least 2 characters (got 1)"},
		{"maxLength", `{"properties":{"p":{"type":"string","maxLength":2}}}`, `{"p":"S3CR3T"}`, "- /p: must have at most 2 characters (got 6)"},
		{"pattern", `{"properties":{"p":{"type":"string","pattern":"^a"}}}`, `{"p":"S3CR3T"}`, `- /p: must match the pattern "^a"`},
		{"format asserted only when asked", `{"properties":{"p":{"type":"string","format":"email"}}}`, `{"p":"S3CR3T"}`, ""},
		{"const", `{"properties":{"p":{"const":"x"}}}`, `{"p":"S3CR3T"}`, `- /p: must be "x"`},
		{"single enum", `{"properties":{"p":{"enum":[1]}}}`, `{"p":"S3CR3T"}`, `- /p: must be 1`},
		{"integer", `{"properties":{"n":{"type":"integer"}}}`, `{"n":1.5}`, "- /n: expected integer, got number"},
		{"exclusive", `{"properties":{"n":{"exclusiveMinimum":0}}}`, `{"n":0}`, "- /n: must be > 0"},
		{"minimum fraction", `{"properties":{"n":{"minimum":0.5}}}`, `{"n":0}`, "- /n: must be >= 0.5"},
		{"multipleOf", `{"properties":{"n":{"multipleOf":3}}}`, `{"n":4}`, "- /n: must be a multiple of 3"},
		{"minItems", `{"properties":{"a":{"type":"array","minItems":1}}}`, `{"a":[]}`, "- /a: must have at least 1 item (got 0)"},
		{"uniqueItems", `{"properties":{"a":{"uniqueItems":true}}}`, `{"a":["S3CR3T","S3CR3T"]}`, "- /a: items must be unique (items 0 and 1 are equal)"},
		{"anyOf", `{"anyOf":[{"required":["a"]},{"required":["b"]}]}`, `{"c":"S3CR3T"}`, "- /: does not match any of the allowed forms (anyOf)"},
		{"oneOf both", `{"oneOf":[{"required":["a"]},{"required":["b"]}]}`, `{"a":1,"b":2}`, "- /: matches more than one of the allowed forms; it must match exactly one (oneOf)"},
		{"not", `{"not":{"required":["a"]}}`, `{"a":"S3CR3T"}`, "- /: matches a form that is not allowed (not)"},
		{"false schema", `{"properties":{"a":false}}`, `{"a":"S3CR3T"}`, "- /a: is not allowed here"},
		{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, `- /: property "a" requires "b"`},
		{"nested pointer escapes", `{"properties":{"a/b":{"properties":{"c~d":{"type":"string"}}}}}`, `{"a/b":{"c~d":1}}`, "- /a~1b/c~0d: expected string, got number"},
		{"several missing", `{"required":["a","b"]}`, `{}`, `- /: missing required properties "a", "b"`},
		{"if/then", `{"if":{"required":["a"]},"then":{"required":["b"]}}`, `{"a":"S3CR3T"}`, `- /: missing required property "b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			mustAdd(t, r, &fakeTool{name: "t", schema: tc.schema})
			res := r.Call(context.Background(), "t", json.RawMessage(tc.args))
			if tc.want == "" {
				if res.IsError {
					t.Fatalf("unexpected error: %s", res.Content)
				}
				return
			}
			if !res.IsError || !strings.Contains(res.Content, tc.want+"\n") {
				t.Errorf("got\n%s\nwant a line %q", res.Content, tc.want)
			}
			if strings.Contains(res.Content, secret) {
				t.Errorf("message echoes the value:\n%s", res.Content)
			}
		})
	}
}

// FuzzCallArguments: any bytes as arguments give a result, never a panic;
// an error lists at most maxProblems problems and no result exceeds
// MaxResultBytes.
func FuzzCallArguments(f *testing.F) {
	r := New()
	if err := r.Add(&fakeTool{name: "t", schema: `{
		"additionalProperties":false,"required":["path"],
		"properties":{
			"path":{"type":"string","minLength":1,"pattern":"^[^/]"},
			"n":{"type":"integer","minimum":0,"maximum":10},
			"mode":{"enum":["a","b"]},
			"edits":{"type":"array","maxItems":3,"items":{"type":"object","required":["old"],"properties":{"old":{"type":"string"}},"additionalProperties":false}},
			"alt":{"oneOf":[{"type":"string"},{"type":"integer"}]}
		}}`, exec: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{``, `null`, `{}`, `{"path":"a"}`, `{"path":"/a","n":11,"mode":"c","edits":[{},{"old":1,"x":2}],"alt":1.5}`, `[`, `"x"`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		res := r.Call(context.Background(), "t", json.RawMessage(args))
		if len(res.Content) > MaxResultBytes {
			t.Fatalf("%d bytes", len(res.Content))
		}
		if !res.IsError && res.Content != "ok" {
			t.Fatalf("unexpected content %q", res.Content)
		}
		if n := strings.Count(res.Content, "\n- /"); n > maxProblems {
			t.Fatalf("%d problems listed:\n%s", n, res.Content)
		}
	})
}
