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
		{"else", `{"if":{"required":["a"]},"else":{"required":["b"]}}`, `{"c":"S3CR3T"}`, `- /: missing required property "b"`},
		{"type short-circuits", `{"properties":{"p":{"type":"string","minLength":9,"enum":["x"]}}}`, `{"p":1}`, "- /p: expected string, got number"},
		{"several types", `{"properties":{"p":{"type":["string","null"]}}}`, `{"p":1}`, "- /p: expected null or string, got number"},
		{"integer spelled 1.0", `{"properties":{"n":{"type":"integer","maximum":1}}}`, `{"n":1.0}`, ""},
		{"unknown properties sorted", `{"properties":{"a":{}},"additionalProperties":false}`, `{"z":1,"b":"S3CR3T","m":3}`, `- /: unknown properties "b", "m", "z" (allowed: a)`},
		{"additionalProperties schema", `{"additionalProperties":{"type":"boolean"}}`, `{"x":"S3CR3T"}`, "- /x: expected boolean, got string"},
		{"patternProperties", `{"patternProperties":{"^n_":{"type":"integer"}}}`, `{"n_a":"S3CR3T","m":"S3CR3T"}`, "- /n_a: expected integer, got string"},
		{"local $ref", `{"properties":{"a":{"$ref":"#/$defs/pos"}},"$defs":{"pos":{"type":"integer","minimum":1}}}`, `{"a":0}`, "- /a: must be >= 1"},
		{"$ref by anchor", `{"properties":{"a":{"$ref":"#pos"}},"$defs":{"p":{"$anchor":"pos","type":"integer"}}}`, `{"a":"S3CR3T"}`, "- /a: expected integer, got string"},
		{"recursive $ref", `{"$defs":{"t":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/t"}},"n":{"type":"integer"}}}},"properties":{"tree":{"$ref":"#/$defs/t"}}}`, `{"tree":{"kids":[{"kids":[{"n":"S3CR3T"}]}]}}`, "- /tree/kids/0/kids/0/n: expected integer, got string"},
		{"$ref cycle", `{"properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`, `{"a":1}`, "- /a: the schema refers to itself without consuming input ($ref cycle)"},
		{"prefixItems and items false", `{"properties":{"a":{"prefixItems":[{"type":"string"}],"items":false}}}`, `{"a":["x","S3CR3T","S3CR3T"]}`, "- /a: has 2 items more than allowed"},
		{"draft-07 tuple", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"items":[{"type":"string"}],"additionalItems":false}}}`, `{"a":["x",1]}`, "- /a: has 1 item more than allowed"},
		{"draft-07 $ref ignores siblings", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s","maxLength":1}}}`, `{"a":"S3CR3T"}`, ""},
		{"draft-07 dependencies", `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"]}}`, `{"a":1}`, `- /: property "a" requires "b"`},
		{"draft-04 exclusiveMinimum", `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"n":{"minimum":0,"exclusiveMinimum":true}}}`, `{"n":0}`, "- /n: must be > 0"},
		{"contains", `{"properties":{"a":{"contains":{"type":"string"}}}}`, `{"a":[1,2]}`, `- /a: does not contain an item matching the "contains" schema`},
		{"propertyNames", `{"propertyNames":{"pattern":"^[a-z]+$"}}`, `{"Big":"S3CR3T"}`, `- /: property name "Big" is not allowed`},
		{"dependentSchemas", `{"dependentSchemas":{"a":{"required":["b"]}}}`, `{"a":1}`, `- /: missing required property "b"`},
		{"maxProperties", `{"maxProperties":1}`, `{"a":1,"b":2}`, "- /: must have at most 1 property (got 2)"},
		{"huge exponent", `{"properties":{"n":{"maximum":10}}}`, `{"n":1e999999999}`, "- /n: must be <= 10"},
		{"tiny exponent", `{"properties":{"n":{"exclusiveMinimum":0}}}`, `{"n":1e-999999999}`, ""},
		{"uniqueItems long", `{"properties":{"a":{"uniqueItems":true}}}`, `{"a":[` + strings.Repeat(`"x",`, 0) + `1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,{"k":[1]},{"k":[1.0]}]}`, "- /a: items must be unique (items 22 and 23 are equal)"},
		{"unevaluatedProperties (library)", `{"properties":{"a":{}},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, "- /: does not match the input schema"},
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
			if !res.IsError || !strings.Contains(res.Content, tc.want) {
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
