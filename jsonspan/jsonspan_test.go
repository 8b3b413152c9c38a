package jsonspan

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestObject(t *testing.T) {
	const doc = ` { "a" : [1, {"b":"x\"}"}] ,
	"\u00e9t\u00e9": null, "n": -1.5e3 }`
	ms, end, err := Object(doc, SkipSpace(doc, 0))
	if err != nil || end != len(doc) {
		t.Fatalf("Object: end %d of %d, %v", end, len(doc), err)
	}
	want := map[string]string{"a": `[1, {"b":"x\"}"}]`, "été": "null", "n": "-1.5e3"}
	if len(ms) != len(want) {
		t.Fatalf("%d members: %+v", len(ms), ms)
	}
	for _, m := range ms {
		if got := doc[m.ValStart:m.ValEnd]; got != want[m.Key] {
			t.Errorf("%s: value %q, want %q", m.Key, got, want[m.Key])
		}
		var k string
		if json.Unmarshal([]byte(doc[m.KeyStart:m.KeyEnd]), &k) != nil || k != m.Key {
			t.Errorf("%s: key span %q", m.Key, doc[m.KeyStart:m.KeyEnd])
		}
	}
	m, ok := Find(ms, "a")
	if !ok {
		t.Fatal("Find a")
	}
	es, _, err := Array(doc, m.ValStart)
	if err != nil || len(es) != 2 || doc[es[1].Start:es[1].End] != `{"b":"x\"}"}` {
		t.Errorf("Array: %+v %v", es, err)
	}
	if _, ok := Find(ms, "missing"); ok {
		t.Error("Find of a missing key")
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, doc := range []string{``, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `{a:1}`, `["x]`, `[1,]`, `[1 2]`} {
		var err error
		switch {
		case doc != "" && doc[0] == '[':
			_, _, err = Array(doc, 0)
		default:
			_, _, err = Object(doc, 0)
		}
		if err != ErrSyntax {
			t.Errorf("%q: %v, want ErrSyntax", doc, err)
		}
	}
}

// On valid JSON every member's span decodes to what encoding/json decodes
// for that member.
func FuzzObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":[1,2,{"b":null}],"c":"\u0041"}`, "{\n \"x\": {\"y\": [true, false]}\n}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var whole map[string]any
		if json.Unmarshal([]byte(doc), &whole) != nil || whole == nil {
			return
		}
		ms, end, err := Object(doc, SkipSpace(doc, 0))
		if err != nil || SkipSpace(doc, end) != len(doc) {
			t.Fatalf("%q: end %d, %v", doc, end, err)
		}
		got := map[string]any{}
		for _, m := range ms {
			var v any
			if err := json.Unmarshal([]byte(doc[m.ValStart:m.ValEnd]), &v); err != nil {
				t.Fatalf("%q: member %s span %q: %v", doc, m.Key, doc[m.ValStart:m.ValEnd], err)
			}
			got[m.Key] = v
		}
		if !reflect.DeepEqual(got, whole) {
			t.Fatalf("%q: spans decode to %v, encoding/json to %v", doc, got, whole)
		}
	})
}
