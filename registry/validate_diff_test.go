package registry

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	gjs "github.com/google/jsonschema-go/jsonschema"
)

// TestValidatorAgreesWithLibrary generates random draft 2020-12 schemas
// and instances from a fixed seed and checks that our validator's verdict
// (valid or not) is the one of github.com/google/jsonschema-go v0.4.3, the
// validator the MCP SDK links. It covers the keywords tool schemas use;
// "format" (an annotation for both) and fractional multipleOf (the library
// divides floats, we compare exactly) are left out.
func TestValidatorAgreesWithLibrary(t *testing.T) {
	rounds := 3000
	if testing.Short() {
		rounds = 800
	}
	g := &schemaGen{r: rand.New(rand.NewPCG(19, 2026))}
	disagreements, valid, checks := 0, 0, 0
	for i := range rounds {
		schema, ok := g.schema(3).(map[string]any)
		if !ok {
			continue // a tool's schema is an object
		}
		raw, err := json.Marshal(schema)
		if err != nil {
			t.Fatal(err)
		}
		doc := map[string]any{}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		ours, err := compileSchema("t", doc)
		if err != nil {
			t.Fatalf("round %d: our compiler refused a valid schema %s: %v", i, raw, err)
		}
		var lib gjs.Schema
		if err := json.Unmarshal(raw, &lib); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		resolved, err := lib.Resolve(nil)
		if err != nil {
			t.Fatalf("round %d: library refused %s: %v", i, raw, err)
		}
		for range 6 {
			inst := g.value(3)
			ib, _ := json.Marshal(inst)
			var asNumber, asFloat any
			d := json.NewDecoder(bytes.NewReader(ib))
			d.UseNumber()
			if err := d.Decode(&asNumber); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(ib, &asFloat); err != nil {
				t.Fatal(err)
			}
			oursValid := ours.check(asNumber) == nil
			checks++
			if oursValid {
				valid++
			}
			libErr := resolved.Validate(asFloat)
			if oursValid != (libErr == nil) {
				disagreements++
				if disagreements <= 5 {
					t.Errorf("round %d: schema %s, instance %s: ours valid=%v (%v), library: %v",
						i, raw, ib, oursValid, ours.check(asNumber), libErr)
				}
			}
		}
	}
	if disagreements > 0 {
		t.Errorf("%d disagreements in %d checks", disagreements, checks)
	}
	// Both verdicts must be common, or the comparison says little.
	if valid < checks/10 || checks-valid < checks/10 {
		t.Errorf("%d of %d instances valid: the generator is lopsided", valid, checks)
	}
	t.Logf("%d checks, %d valid", checks, valid)
}

// schemaGen makes small random schemas and values over a shared vocabulary
// of property names and strings, so that instances hit the schemas often.
type schemaGen struct{ r *rand.Rand }

var (
	genNames   = []string{"a", "b", "c", "path"}
	genStrings = []string{"", "a", "ab", "xyz", "path/to", "A1"}
	genTypes   = []string{"null", "boolean", "number", "integer", "string", "array", "object"}
)

func (g *schemaGen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

func (g *schemaGen) value(depth int) any {
	k := g.r.IntN(8)
	if depth == 0 && k >= 6 {
		k = g.r.IntN(6)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return g.r.IntN(7) - 2
	case 3:
		return float64(g.r.IntN(9)-3) / 2
	case 4, 5:
		return g.pick(genStrings)
	case 6:
		n := g.r.IntN(4)
		arr := make([]any, n)
		for i := range arr {
			arr[i] = g.value(depth - 1)
		}
		return arr
	default:
		obj := map[string]any{}
		for range g.r.IntN(4) {
			obj[g.pick(genNames)] = g.value(depth - 1)
		}
		return obj
	}
}

func (g *schemaGen) schema(depth int) any {
	if g.r.IntN(12) == 0 {
		return g.r.IntN(3) != 0 // true or false schemas
	}
	s := map[string]any{}
	add := func(p int) bool { return g.r.IntN(100) < p }
	if add(50) {
		if add(80) {
			s["type"] = g.pick(genTypes)
		} else {
			i := g.r.IntN(3)
			s["type"] = []string{genTypes[i], genTypes[3+g.r.IntN(4)]}
		}
	}
	if add(10) {
		s["enum"] = []any{g.value(1), g.value(1), g.pick(genStrings)}
	}
	if add(6) {
		s["const"] = g.value(1)
	}
	if add(15) {
		s["minimum"] = g.r.IntN(5) - 2
	}
	if add(10) {
		s["exclusiveMaximum"] = float64(g.r.IntN(7)-2) / 2
	}
	if add(8) {
		s["multipleOf"] = g.r.IntN(3) + 1
	}
	if add(15) {
		s["minLength"] = g.r.IntN(3)
	}
	if add(10) {
		s["maxLength"] = g.r.IntN(3)
	}
	if add(10) {
		s["pattern"] = []string{"^a", "[0-9]", "z$", "^$"}[g.r.IntN(4)]
	}
	if add(10) {
		s["minItems"] = g.r.IntN(3)
	}
	if add(8) {
		s["maxItems"] = g.r.IntN(3)
	}
	if add(8) {
		s["uniqueItems"] = true
	}
	if add(6) {
		s["maxProperties"] = g.r.IntN(3)
	}
	if depth > 0 {
		if add(35) {
			props := map[string]any{}
			for range g.r.IntN(3) + 1 {
				props[g.pick(genNames)] = g.schema(depth - 1)
			}
			s["properties"] = props
		}
		if add(20) {
			s["required"] = []string{g.pick(genNames)}
		}
		if add(15) {
			if add(50) {
				s["additionalProperties"] = false
			} else {
				s["additionalProperties"] = g.schema(depth - 1)
			}
		}
		if add(6) {
			s["patternProperties"] = map[string]any{"^p": g.schema(depth - 1)}
		}
		if add(6) {
			s["propertyNames"] = map[string]any{"maxLength": 1}
		}
		if add(6) {
			s["dependentRequired"] = map[string]any{g.pick(genNames): []string{g.pick(genNames)}}
		}
		if add(20) {
			s["items"] = g.schema(depth - 1)
		}
		if add(8) {
			s["prefixItems"] = []any{g.schema(depth - 1), g.schema(depth - 1)}
		}
		if add(8) {
			s["contains"] = g.schema(depth - 1)
		}
		for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
			if add(8) {
				s[kw] = []any{g.schema(depth - 1), g.schema(depth - 1)}
			}
		}
		if add(6) {
			s["not"] = g.schema(depth - 1)
		}
		if add(6) {
			s["if"] = g.schema(depth - 1)
			s["then"] = g.schema(depth - 1)
			if add(50) {
				s["else"] = g.schema(depth - 1)
			}
		}
	}
	return s
}
