package registry

import (
	"encoding/json"
	"fmt"
	"strings"

	gjs "github.com/google/jsonschema-go/jsonschema"
)

// fallbackValidator validates arguments against a schema that uses what
// schema.go does not implement (dynamic references, unevaluated*, nested
// $id); see compileSchema. It returns the problem lines, nil when valid.
type fallbackValidator func(args any) []string

// newFallback resolves doc with github.com/google/jsonschema-go, linked
// anyway by the MCP SDK, which implements drafts 7 and 2020-12 in full.
// Remote references are refused: it is given no loader.
func newFallback(doc map[string]any) (fallbackValidator, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var s gjs.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if d, _ := draftOf(s.Schema); d == draft2019 {
		s.Schema = "" // validated as 2020-12, the nearest draft it knows
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	return func(args any) []string {
		// The library wants float64 numbers, not json.Number.
		b, err := json.Marshal(args)
		if err != nil {
			return []string{problem(nil, "does not match the input schema")}
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return []string{problem(nil, "does not match the input schema")}
		}
		if err := resolved.Validate(v); err != nil {
			msg := strings.TrimPrefix(err.Error(), "validating root: ")
			return []string{problem(nil, fmt.Sprintf("does not match the input schema (%s)", clip(msg, 300)))}
		}
		return nil
	}, nil
}
