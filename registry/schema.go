package registry

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// This file compiles a tool's input schema (JSON Schema, drafts 4 to
// 2020-12) into a tree of nodes that validate.go walks. It is our own
// rather than a library's because a general validator pays for its
// meta-schemas at process start, and every `agentls call` is a process
// start. What it does not implement it refuses or hands over:
//
//   - A $ref must point into the schema itself: "#", a JSON pointer, an
//     anchor, or the root's own $id with one of those. Anything else
//     (another file, a URL) is refused: tool schemas are self-contained.
//   - "format" is an annotation, never asserted (draft 2020-12's default).
//   - Schemas that use the dynamic scope ($dynamicRef, $recursiveRef),
//     unevaluatedProperties/unevaluatedItems, or a nested $id (a second
//     base URI) are validated by github.com/google/jsonschema-go, which the
//     MCP SDK links anyway; its message is passed on as one problem.
//
// Compiling also checks the schema the way the draft's meta-schema would
// (keyword value types, regular expressions that compile, known types), so
// a plugin tool with a broken schema is refused when it is added.

type draft int

const (
	draft4    draft = 4
	draft6    draft = 6
	draft7    draft = 7
	draft2019 draft = 2019
	draft2020 draft = 2020
)

// draftOf maps a "$schema" value to its draft; "" is 2020-12.
func draftOf(uri string) (draft, bool) {
	u := strings.TrimSuffix(strings.TrimSuffix(uri, "#"), "/")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	switch u {
	case "":
		return draft2020, true
	case "json-schema.org/draft/2020-12/schema":
		return draft2020, true
	case "json-schema.org/draft/2019-09/schema":
		return draft2019, true
	case "json-schema.org/draft-07/schema":
		return draft7, true
	case "json-schema.org/draft-06/schema":
		return draft6, true
	case "json-schema.org/draft-04/schema":
		return draft4, true
	}
	return 0, false
}

// jsonType is a bit set of JSON types, in the order messages list them.
type jsonType uint8

const (
	typeNull jsonType = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

var typeNames = []string{"null", "boolean", "number", "integer", "string", "array", "object"}

func typeFromName(s string) jsonType {
	for i, n := range typeNames {
		if n == s {
			return 1 << i
		}
	}
	return 0
}

func (t jsonType) names() []string {
	var out []string
	for i, n := range typeNames {
		if t&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// node is one compiled (sub)schema. Absent keywords are nil or -1.
type node struct {
	boolean *bool // a schema that is true or false
	ptr     string

	types    jsonType
	enum     []any
	hasEnum  bool
	constant any
	hasConst bool

	ref *node // $ref, resolved

	minimum, maximum, exclMin, exclMax, multipleOf *big.Rat

	minLength, maxLength     int
	pattern                  *regexp.Regexp
	minItems, maxItems       int
	uniqueItems              bool
	minProps, maxProps       int
	minContains, maxContains int

	required          []string
	dependentRequired []dependency // also draft 4-7 "dependencies" lists
	dependentSchemas  []depSchema  // also draft 4-7 "dependencies" schemas

	properties    map[string]*node
	propNames     []string // the keys of properties, sorted
	patternProps  []patternProp
	additional    *node
	propertyNames *node

	prefix     []*node // prefixItems, or the array form of items before 2020-12
	items      *node   // items (2020-12), additionalItems (array form) or items (schema form)
	itemsAfter bool    // items applies only after prefix (not to every item)
	contains   *node

	allOf, anyOf, oneOf []*node
	not                 *node
	ifNode, then, els   *node
}

type dependency struct {
	prop     string
	required []string
}

type depSchema struct {
	prop   string
	schema *node
}

type patternProp struct {
	re     *regexp.Regexp
	schema *node
}

// schemaRoot is a compiled tool schema.
type schemaRoot struct {
	root     *node
	draft    draft
	fallback fallbackValidator // set when the schema needs what node does not do
}

// schemaCompiler compiles one document.
type schemaCompiler struct {
	doc     any
	draft   draft
	id      string           // the root's $id, without fragment
	nodes   map[string]*node // by JSON pointer, so $ref cycles end
	anchors map[string]string
	pending []pendingRef
	exotic  string // the first keyword that needs the fallback
}

type pendingRef struct {
	n   *node
	ref string
	at  string
}

// compileSchema compiles a tool's schema document.
func compileSchema(name string, doc map[string]any) (*schemaRoot, error) {
	c := &schemaCompiler{doc: doc, nodes: map[string]*node{}, anchors: map[string]string{}}
	d := draft2020
	if s, present := doc["$schema"]; present {
		uri, ok := s.(string)
		if !ok {
			return nil, fmt.Errorf("at /$schema: must be a string")
		}
		if d, ok = draftOf(uri); !ok {
			return nil, fmt.Errorf("at /$schema: unknown meta-schema %q (use draft 4, 6, 7, 2019-09 or 2020-12)", uri)
		}
	}
	c.draft = d
	if id, ok := doc["$id"].(string); ok {
		c.id, _, _ = strings.Cut(id, "#")
	}
	c.collectAnchors(doc, "", true)
	root, err := c.compile(doc, "")
	if err != nil {
		return nil, err
	}
	out := &schemaRoot{root: root, draft: d}
	if c.exotic != "" {
		fb, err := newFallback(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.exotic, err)
		}
		out.fallback = fb
		return out, nil
	}
	for _, p := range c.pending {
		target, err := c.resolve(p.ref, p.at)
		if err != nil {
			return nil, err
		}
		p.n.ref = target
	}
	return out, nil
}

// collectAnchors records "$anchor" (2019-09 on) and "$id": "#name" (before)
// locations, and notes a nested $id, which changes the base URI.
func (c *schemaCompiler) collectAnchors(v any, ptr string, isRoot bool) {
	switch v := v.(type) {
	case map[string]any:
		if a, ok := v["$anchor"].(string); ok && c.draft >= draft2019 {
			c.anchors[a] = ptr
		}
		if a, ok := v["$dynamicAnchor"].(string); ok && c.draft >= draft2020 {
			c.anchors[a] = ptr // a plain anchor unless a $dynamicRef names it
		}
		if id, ok := v["$id"].(string); ok && !isRoot {
			if c.draft < draft2019 && strings.HasPrefix(id, "#") {
				c.anchors[id[1:]] = ptr
			} else if c.exotic == "" {
				c.exotic = "at " + pointerOf(ptr) + "/$id: a nested $id"
			}
		}
		for k, sub := range v {
			switch k {
			case "enum", "const", "default", "examples":
				continue // data, not schemas
			}
			c.collectAnchors(sub, ptr+"/"+escapeToken(k), false)
		}
	case []any:
		for i, sub := range v {
			c.collectAnchors(sub, ptr+"/"+strconv.Itoa(i), false)
		}
	}
}

func escapeToken(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func pointerOf(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

// resolve finds the node a $ref names.
func (c *schemaCompiler) resolve(ref, at string) (*node, error) {
	base, frag, hasFrag := strings.Cut(ref, "#")
	if base != "" && base != c.id {
		return nil, fmt.Errorf("at %s: %q refers outside the schema; tool schemas must be self-contained", at+"/$ref", ref)
	}
	ptr := ""
	switch {
	case !hasFrag || frag == "":
	case strings.HasPrefix(frag, "/"):
		p, err := unescapeFragment(frag)
		if err != nil {
			return nil, fmt.Errorf("at %s: %q: %v", at+"/$ref", ref, err)
		}
		ptr = p
	default:
		p, ok := c.anchors[frag]
		if !ok {
			return nil, fmt.Errorf("at %s: %q: no anchor %q in the schema", at+"/$ref", ref, frag)
		}
		ptr = p
	}
	if n, ok := c.nodes[ptr]; ok {
		return n, nil
	}
	v, ok := lookupPointer(c.doc, ptr)
	if !ok {
		return nil, fmt.Errorf("at %s: %q: no such location in the schema", at+"/$ref", ref)
	}
	n, err := c.compile(v, ptr)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// unescapeFragment turns a URI fragment holding a JSON pointer into the
// pointer, percent-decoding it.
func unescapeFragment(frag string) (string, error) {
	if !strings.Contains(frag, "%") {
		return frag, nil
	}
	var b strings.Builder
	for i := 0; i < len(frag); i++ {
		if frag[i] == '%' && i+2 < len(frag) {
			x, err := strconv.ParseUint(frag[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf("bad escape in the fragment")
			}
			b.WriteByte(byte(x))
			i += 2
			continue
		}
		b.WriteByte(frag[i])
	}
	return b.String(), nil
}

func lookupPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	node := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			v, ok := n[tok]
			if !ok {
				return nil, false
			}
			node = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			node = n[i]
		default:
			return nil, false
		}
	}
	return node, true
}

// compile makes the node of the schema v found at ptr (memoized by ptr).
func (c *schemaCompiler) compile(v any, ptr string) (*node, error) {
	if n, ok := c.nodes[ptr]; ok {
		return n, nil
	}
	n := &node{ptr: ptr, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1,
		minProps: -1, maxProps: -1, minContains: -1, maxContains: -1}
	c.nodes[ptr] = n
	if b, ok := v.(bool); ok {
		if c.draft < draft6 {
			return nil, fmt.Errorf("at %s: a schema must be an object in draft 4", pointerOf(ptr))
		}
		n.boolean = &b
		return n, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("at %s: a schema must be an object or a boolean, not %s", pointerOf(ptr), jsonKind(v))
	}
	if err := c.fill(n, obj, ptr); err != nil {
		return nil, err
	}
	return n, nil
}

// fill reads obj's keywords into n. Unknown keywords are annotations.
func (c *schemaCompiler) fill(n *node, obj map[string]any, ptr string) error {
	d := c.draft
	at := func(kw string) string { return ptr + "/" + escapeToken(kw) }
	bad := func(kw, want string) error {
		return fmt.Errorf("at %s: %s", at(kw), want)
	}
	sub := func(kw string) (*node, error) {
		v, ok := obj[kw]
		if !ok {
			return nil, nil
		}
		return c.compile(v, at(kw))
	}
	subList := func(kw string, minItems int) ([]*node, error) {
		v, ok := obj[kw]
		if !ok {
			return nil, nil
		}
		arr, ok := v.([]any)
		if !ok || len(arr) < minItems {
			return nil, bad(kw, "must be a non-empty array of schemas")
		}
		out := make([]*node, len(arr))
		for i, s := range arr {
			sn, err := c.compile(s, at(kw)+"/"+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			out[i] = sn
		}
		return out, nil
	}
	subMap := func(kw string) (map[string]*node, []string, error) {
		v, ok := obj[kw]
		if !ok {
			return nil, nil, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, bad(kw, "must be an object of schemas")
		}
		out := make(map[string]*node, len(m))
		keys := make([]string, 0, len(m))
		for k, s := range m {
			sn, err := c.compile(s, at(kw)+"/"+escapeToken(k))
			if err != nil {
				return nil, nil, err
			}
			out[k] = sn
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return out, keys, nil
	}
	count := func(kw string) (int, error) {
		v, ok := obj[kw]
		if !ok {
			return -1, nil
		}
		r, ok := numberRat(v)
		if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
			return -1, bad(kw, "must be a non-negative integer")
		}
		return int(r.Num().Int64()), nil
	}
	number := func(kw string) (*big.Rat, error) {
		v, ok := obj[kw]
		if !ok {
			return nil, nil
		}
		r, ok := numberRat(v)
		if !ok {
			return nil, bad(kw, "must be a number")
		}
		return r, nil
	}
	stringList := func(kw string) ([]string, error) {
		v, ok := obj[kw]
		if !ok {
			return nil, nil
		}
		return stringArray(v, func(want string) error { return bad(kw, want) })
	}
	var err error

	for _, kw := range []string{"title", "description", "$comment", "format", "$anchor", "$id"} {
		if v, ok := obj[kw]; ok {
			if _, ok := v.(string); !ok {
				return bad(kw, "must be a string")
			}
		}
	}
	for _, kw := range []string{"readOnly", "writeOnly", "deprecated"} {
		if v, ok := obj[kw]; ok {
			if _, ok := v.(bool); !ok {
				return bad(kw, "must be a boolean")
			}
		}
	}
	if v, ok := obj["examples"]; ok {
		if _, ok := v.([]any); !ok {
			return bad("examples", "must be an array")
		}
	}
	for _, kw := range []string{"$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems"} {
		if _, ok := obj[kw]; ok && d >= draft2019 && c.exotic == "" {
			c.exotic = "at " + at(kw)
		}
	}

	// $ref
	if v, ok := obj["$ref"]; ok {
		ref, ok := v.(string)
		if !ok {
			return bad("$ref", "must be a string")
		}
		c.pending = append(c.pending, pendingRef{n: n, ref: ref, at: ptr})
		if d < draft2019 {
			return nil // siblings of $ref are ignored before 2019-09
		}
	}
	for _, kw := range []string{"$defs", "definitions"} {
		if _, _, err := subMap(kw); err != nil {
			return err
		}
	}

	// type
	if v, ok := obj["type"]; ok {
		switch t := v.(type) {
		case string:
			n.types = typeFromName(t)
			if n.types == 0 {
				return bad("type", fmt.Sprintf("%q is not a JSON type (%s)", t, strings.Join(typeNames, ", ")))
			}
		case []any:
			for _, e := range t {
				s, _ := e.(string)
				tt := typeFromName(s)
				if tt == 0 {
					return bad("type", fmt.Sprintf("%s is not a JSON type (%s)", display(e), strings.Join(typeNames, ", ")))
				}
				if n.types&tt != 0 {
					return bad("type", fmt.Sprintf("lists %q twice", s))
				}
				n.types |= tt
			}
		default:
			return bad("type", "must be a type name or an array of them")
		}
	}
	if v, ok := obj["enum"]; ok {
		arr, ok := v.([]any)
		if !ok {
			return bad("enum", "must be an array")
		}
		n.enum, n.hasEnum = arr, true
	}
	if v, ok := obj["const"]; ok && d >= draft6 {
		n.constant, n.hasConst = v, true
	}

	// numbers
	if n.minimum, err = number("minimum"); err != nil {
		return err
	}
	if n.maximum, err = number("maximum"); err != nil {
		return err
	}
	if d == draft4 {
		for _, p := range []struct {
			kw    string
			bound **big.Rat
			excl  **big.Rat
		}{{"exclusiveMinimum", &n.minimum, &n.exclMin}, {"exclusiveMaximum", &n.maximum, &n.exclMax}} {
			v, ok := obj[p.kw]
			if !ok {
				continue
			}
			b, ok := v.(bool)
			if !ok {
				return bad(p.kw, "must be a boolean in draft 4")
			}
			if b && *p.bound != nil {
				*p.excl, *p.bound = *p.bound, nil
			}
		}
	} else {
		if n.exclMin, err = number("exclusiveMinimum"); err != nil {
			return err
		}
		if n.exclMax, err = number("exclusiveMaximum"); err != nil {
			return err
		}
	}
	if n.multipleOf, err = number("multipleOf"); err != nil {
		return err
	}
	if n.multipleOf != nil && n.multipleOf.Sign() <= 0 {
		return bad("multipleOf", "must be greater than 0")
	}

	// strings
	if n.minLength, err = count("minLength"); err != nil {
		return err
	}
	if n.maxLength, err = count("maxLength"); err != nil {
		return err
	}
	if v, ok := obj["pattern"]; ok {
		s, ok := v.(string)
		if !ok {
			return bad("pattern", "must be a string")
		}
		if n.pattern, err = regexp.Compile(s); err != nil {
			return bad("pattern", fmt.Sprintf("%q is not a valid regular expression: %v", s, err))
		}
	}

	// arrays
	if n.minItems, err = count("minItems"); err != nil {
		return err
	}
	if n.maxItems, err = count("maxItems"); err != nil {
		return err
	}
	if v, ok := obj["uniqueItems"]; ok {
		if n.uniqueItems, ok = v.(bool); !ok {
			return bad("uniqueItems", "must be a boolean")
		}
	}
	if d >= draft2020 {
		if n.prefix, err = subList("prefixItems", 1); err != nil {
			return err
		}
		if v, ok := obj["items"]; ok {
			if _, isArr := v.([]any); isArr {
				return bad("items", "must be a schema in draft 2020-12 (use prefixItems for a tuple)")
			}
		}
		if n.items, err = sub("items"); err != nil {
			return err
		}
		n.itemsAfter = true
	} else {
		if v, ok := obj["items"]; ok {
			if _, isArr := v.([]any); isArr {
				if n.prefix, err = subList("items", 0); err != nil {
					return err
				}
				if n.items, err = sub("additionalItems"); err != nil {
					return err
				}
				n.itemsAfter = true
			} else if n.items, err = sub("items"); err != nil {
				return err
			}
		}
	}
	if d >= draft6 {
		if n.contains, err = sub("contains"); err != nil {
			return err
		}
	}
	if d >= draft2019 {
		if n.minContains, err = count("minContains"); err != nil {
			return err
		}
		if n.maxContains, err = count("maxContains"); err != nil {
			return err
		}
	}

	// objects
	if n.minProps, err = count("minProperties"); err != nil {
		return err
	}
	if n.maxProps, err = count("maxProperties"); err != nil {
		return err
	}
	if n.required, err = stringList("required"); err != nil {
		return err
	}
	if n.properties, n.propNames, err = subMap("properties"); err != nil {
		return err
	}
	if v, ok := obj["patternProperties"]; ok {
		m, ok := v.(map[string]any)
		if !ok {
			return bad("patternProperties", "must be an object of schemas")
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			re, err := regexp.Compile(k)
			if err != nil {
				return bad("patternProperties", fmt.Sprintf("%q is not a valid regular expression: %v", k, err))
			}
			sn, err := c.compile(m[k], at("patternProperties")+"/"+escapeToken(k))
			if err != nil {
				return err
			}
			n.patternProps = append(n.patternProps, patternProp{re, sn})
		}
	}
	if n.additional, err = sub("additionalProperties"); err != nil {
		return err
	}
	if d >= draft6 {
		if n.propertyNames, err = sub("propertyNames"); err != nil {
			return err
		}
	}
	if d < draft2019 {
		if v, ok := obj["dependencies"]; ok {
			m, ok := v.(map[string]any)
			if !ok {
				return bad("dependencies", "must be an object")
			}
			for _, k := range sortedKeys(m) {
				if arr, isArr := m[k].([]any); isArr {
					req, err := stringArray(arr, func(want string) error { return bad("dependencies", fmt.Sprintf("%q %s", k, want)) })
					if err != nil {
						return err
					}
					n.dependentRequired = append(n.dependentRequired, dependency{k, req})
					continue
				}
				sn, err := c.compile(m[k], at("dependencies")+"/"+escapeToken(k))
				if err != nil {
					return err
				}
				n.dependentSchemas = append(n.dependentSchemas, depSchema{k, sn})
			}
		}
	} else {
		if v, ok := obj["dependentRequired"]; ok {
			m, ok := v.(map[string]any)
			if !ok {
				return bad("dependentRequired", "must be an object of string arrays")
			}
			for _, k := range sortedKeys(m) {
				req, err := stringArray(m[k], func(want string) error { return bad("dependentRequired", fmt.Sprintf("%q %s", k, want)) })
				if err != nil {
					return err
				}
				n.dependentRequired = append(n.dependentRequired, dependency{k, req})
			}
		}
		m, keys, err := subMap("dependentSchemas")
		if err != nil {
			return err
		}
		for _, k := range keys {
			n.dependentSchemas = append(n.dependentSchemas, depSchema{k, m[k]})
		}
	}

	// applicators
	if n.allOf, err = subList("allOf", 1); err != nil {
		return err
	}
	if n.anyOf, err = subList("anyOf", 1); err != nil {
		return err
	}
	if n.oneOf, err = subList("oneOf", 1); err != nil {
		return err
	}
	if n.not, err = sub("not"); err != nil {
		return err
	}
	if d >= draft7 {
		if n.ifNode, err = sub("if"); err != nil {
			return err
		}
		if n.then, err = sub("then"); err != nil {
			return err
		}
		if n.els, err = sub("else"); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// stringArray reads an array of distinct strings.
func stringArray(v any, bad func(want string) error) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, bad("must be an array of strings")
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, bad("must be an array of strings")
		}
		if slices.Contains(out, s) {
			return nil, bad(fmt.Sprintf("lists %q twice", s))
		}
		out = append(out, s)
	}
	return out, nil
}

// maxExponent bounds the decimal exponent of a number compared exactly:
// 1e999999999 would otherwise make a big.Rat of a billion digits.
const maxExponent = 400

// numberRat is v (a json.Number, or a float64 from Go code) as an exact
// rational. Numbers beyond ±10^maxExponent are clamped to it, which keeps
// every comparison with a schema's bounds (themselves clamped) right.
func numberRat(v any) (*big.Rat, bool) {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = string(v)
	case float64:
		s = strconv.FormatFloat(v, 'g', -1, 64)
	case int:
		return new(big.Rat).SetInt64(int64(v)), true
	default:
		return nil, false
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			e = maxExponent + 1 // too long for an int: surely out of range
			if strings.HasPrefix(s[i+1:], "-") {
				e = -e
			}
		}
		mant, exp = s[:i], e
	}
	if exp > maxExponent || exp < -maxExponent {
		m, ok := new(big.Rat).SetString(mant)
		if !ok {
			return nil, false
		}
		if m.Sign() == 0 {
			return m, true
		}
		clamp := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(maxExponent), nil))
		if exp < 0 {
			clamp.Inv(clamp)
		}
		if m.Sign() < 0 {
			clamp.Neg(clamp)
		}
		return clamp, true
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}
