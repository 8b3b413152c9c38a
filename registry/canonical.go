package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// emptySchema is the canonical schema of a tool that takes no arguments.
const emptySchema = `{"properties":{},"type":"object"}`

// Canonicalize returns the canonical bytes of a tool's input schema: object
// keys sorted, no insignificant white space, no HTML escaping, every
// "required" list sorted and de-duplicated. An empty schema (no bytes,
// null or {}) becomes {"properties":{},"type":"object"}; a root without
// "type" gets "type":"object" and an object root without "properties" gets
// "properties":{}. The root must be a JSON object describing an object,
// since tool arguments always are one.
//
// Canonicalize is idempotent: canonical bytes come back unchanged. Numbers
// keep their literal spelling.
func Canonicalize(schema json.RawMessage) (json.RawMessage, error) {
	doc, err := decodeSchema(schema)
	if err != nil {
		return nil, err
	}
	return encodeCanonical(doc)
}

// decodeSchema parses schema into its canonical tree (see Canonicalize).
func decodeSchema(schema json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return emptyObjectSchema(), nil
	}
	v, err := decodeJSON(schema)
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	if v == nil {
		return emptyObjectSchema(), nil
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema root must be a JSON object, not %s", jsonKind(v))
	}
	switch t := root["type"].(type) {
	case nil:
		if _, present := root["type"]; present {
			return nil, errors.New(`schema root "type" must be "object", not null`)
		}
		root["type"] = "object"
	case string:
		if t != "object" {
			return nil, fmt.Errorf(`schema root "type" must be "object", not %q: tool arguments are an object`, t)
		}
	default:
		return nil, fmt.Errorf(`schema root "type" must be "object", not %s`, jsonKind(t))
	}
	if _, ok := root["properties"]; !ok {
		root["properties"] = map[string]any{}
	}
	normalizeSchema(root)
	return root, nil
}

func emptyObjectSchema() map[string]any {
	return map[string]any{"properties": map[string]any{}, "type": "object"}
}

// decodeJSON decodes exactly one JSON value, numbers as json.Number.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the top-level value")
	}
	return v, nil
}

func encodeCanonical(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // maps encode with sorted keys
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Keywords whose values are schemas, by shape. Only schema positions are
// normalized: a "required" key inside "enum", "const", "default" or
// "examples" is data and stays as written.
var (
	schemaKeywords = []string{
		"additionalItems", "additionalProperties", "contains", "contentSchema",
		"else", "if", "items", "not", "propertyNames", "then",
		"unevaluatedItems", "unevaluatedProperties",
	}
	schemaListKeywords = []string{"allOf", "anyOf", "items", "oneOf", "prefixItems"}
	schemaMapKeywords  = []string{"$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties"}
)

// normalizeSchema sorts and de-duplicates "required" in s and in every
// sub-schema of s.
func normalizeSchema(v any) {
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	if req, ok := s["required"].([]any); ok {
		s["required"] = sortedStrings(req)
	}
	for _, k := range schemaKeywords {
		normalizeSchema(s[k])
	}
	for _, k := range schemaListKeywords {
		if list, ok := s[k].([]any); ok {
			for _, sub := range list {
				normalizeSchema(sub)
			}
		}
	}
	for _, k := range schemaMapKeywords {
		if m, ok := s[k].(map[string]any); ok {
			for _, sub := range m {
				normalizeSchema(sub) // "dependencies" may also hold string lists: skipped
			}
		}
	}
}

// sortedStrings sorts and de-duplicates a list of strings; a list holding
// anything else is returned unchanged (compiling the schema reports it).
func sortedStrings(list []any) []any {
	strs := make([]string, 0, len(list))
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return list
		}
		strs = append(strs, s)
	}
	slices.Sort(strs)
	strs = slices.Compact(strs)
	out := make([]any, len(strs))
	for i, s := range strs {
		out[i] = s
	}
	return out
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
