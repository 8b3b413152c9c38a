package registry

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestCanonicalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no bytes", "", emptySchema},
		{"white space", " \n\t", emptySchema},
		{"null", "null", emptySchema},
		{"empty object", "{}", emptySchema},
		{"object without properties", `{"type":"object"}`, emptySchema},
		{"no type", `{"properties":{"a":{"type":"string"}}}`, `{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{"keys sorted, compact", `{ "type" : "object", "properties": {"b": {"type":"integer","description":"B"}, "a": {"type":"string"}} }`,
			`{"properties":{"a":{"type":"string"},"b":{"description":"B","type":"integer"}},"type":"object"}`},
		{"required sorted and de-duplicated", `{"type":"object","properties":{},"required":["b","a","b","c","a"]}`,
			`{"properties":{},"required":["a","b","c"],"type":"object"}`},
		{"nested required", `{"type":"object","properties":{"e":{"type":"array","items":{"type":"object","required":["z","y","z"]}}}}`,
			`{"properties":{"e":{"items":{"required":["y","z"],"type":"object"},"type":"array"}},"type":"object"}`},
		{"required inside anyOf and $defs", `{"anyOf":[{"required":["b","a"]}],"$defs":{"x":{"required":["d","c"]}}}`,
			`{"$defs":{"x":{"required":["c","d"]}},"anyOf":[{"required":["a","b"]}],"properties":{},"type":"object"}`},
		{"property named required", `{"properties":{"required":{"type":"string"}},"required":["required"]}`,
			`{"properties":{"required":{"type":"string"}},"required":["required"],"type":"object"}`},
		{"required in data left alone", `{"properties":{"a":{"default":{"required":["b","a"]},"enum":[{"required":["z","a"]}]}}}`,
			`{"properties":{"a":{"default":{"required":["b","a"]},"enum":[{"required":["z","a"]}]}},"type":"object"}`},
		{"non-string required left for the compiler", `{"required":[2,1]}`, `{"properties":{},"required":[2,1],"type":"object"}`},
		{"numbers keep their spelling", `{"properties":{"n":{"maximum":1e3,"minimum":-0,"multipleOf":0.50}}}`,
			`{"properties":{"n":{"maximum":1e3,"minimum":-0,"multipleOf":0.50}},"type":"object"}`},
		{"no HTML escaping", `{"description":"a <b> & c","properties":{}}`, `{"description":"a <b> & c","properties":{},"type":"object"}`},
		{"unicode kept", `{"description":"caf\u00e9 ☕","properties":{}}`, `{"description":"café ☕","properties":{},"type":"object"}`},
		{"duplicate keys: last wins", `{"type":"object","properties":{},"description":"a","description":"b"}`, `{"description":"b","properties":{},"type":"object"}`},
		{"deep nesting", `{"properties":{"a":{"properties":{"b":{"properties":{"c":{"required":["y","x"]}}}}}}}`,
			`{"properties":{"a":{"properties":{"b":{"properties":{"c":{"required":["x","y"]}}}}}},"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize(json.RawMessage(tt.in))
			if err != nil {
				t.Fatalf("Canonicalize(%s): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Errorf("Canonicalize(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			again, err := Canonicalize(got)
			if err != nil || string(again) != string(got) {
				t.Errorf("not idempotent: %s → %s (%v)", got, again, err)
			}
		})
	}
}

func TestCanonicalizeRefuses(t *testing.T) {
	for _, in := range []string{
		`{`, `{"type":"object"} x`, `[]`, `"object"`, `true`, `3`,
		`{"type":"string"}`, `{"type":["object","null"]}`, `{"type":null}`,
	} {
		if got, err := Canonicalize(json.RawMessage(in)); err == nil {
			t.Errorf("Canonicalize(%s) = %s, want an error", in, got)
		}
	}
}

// FuzzCanonicalize checks that canonical output is valid JSON, is a fixed
// point, and that white space in the input does not change it.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `{"type":"object"}`, `{"required":["b","a","a"]}`,
		`{"properties":{"x":{"type":"string","enum":["a","b"]}},"required":["x"]}`,
		`{"anyOf":[{"required":["b","a"]},{"properties":{"q":{"items":[{"required":["d","c"]}]}}}]}`,
		`{"description":"<&>\u2028","properties":{"n":{"minimum":1.50e+2}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Canonicalize(json.RawMessage(in))
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Canonicalize(%q) = %q: not valid JSON", in, out)
		}
		again, err := Canonicalize(out)
		if err != nil {
			t.Fatalf("Canonicalize(canonical %q): %v", out, err)
		}
		if string(again) != string(out) {
			t.Fatalf("not idempotent:\n in %q\nout %q\nagain %q", in, out, again)
		}
		var indented bytes.Buffer
		if json.Indent(&indented, []byte(in), "", "  ") == nil {
			re, err := Canonicalize(indented.Bytes())
			if err != nil || string(re) != string(out) {
				t.Fatalf("indentation changed the canonical form:\n%q\n%q (%v)", out, re, err)
			}
		}
	})
}
