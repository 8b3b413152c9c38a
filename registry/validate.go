package registry

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxProblems is how many schema violations a validation message lists.
const maxProblems = 8

// validate checks args (already decoded with json.Number) against the
// entry's schema and returns a message listing the problems, or "".
func (e *entry) validate(args any) string {
	if err := e.decoded(); err != nil {
		return err.Error()
	}
	compiled, err := e.compiledSchema()
	if err != nil {
		return fmt.Sprintf("tool %s: invalid JSON Schema: %v", e.schema.Name, err)
	}
	problems := compiled.check(args)
	if problems == nil {
		return ""
	}
	slices.Sort(problems)
	problems = slices.Compact(problems)
	if len(problems) == 0 {
		problems = []string{"- /: does not match the input schema"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "invalid arguments for %s:\n", e.schema.Name)
	for i, p := range problems {
		if i == maxProblems {
			fmt.Fprintf(&b, "- … and %d more\n", len(problems)-maxProblems)
			break
		}
		b.WriteString(p)
		b.WriteByte('\n')
	}
	b.WriteString("Fix the arguments to match the tool's input schema and call it again.")
	return b.String()
}

// check returns one "- /pointer: expectation" line per violation, nil when
// args are valid. Expectations say what the schema expected without
// echoing the value the model sent: values may be long, and repeating them
// teaches nothing. Alternatives (anyOf, oneOf) are reported as one line,
// since the branches' own failures contradict each other.
func (s *schemaRoot) check(args any) []string {
	if s.fallback != nil {
		return s.fallback(args)
	}
	vd := &validator{draft: s.draft}
	if vd.validate(s.root, args, nil) {
		return nil
	}
	if vd.problems == nil {
		vd.problems = []string{}
	}
	return vd.problems
}

// validator walks a compiled schema over one value. With quick set it
// only decides (anyOf, oneOf, not, if): the first problem ends the walk and
// no line is made.
type validator struct {
	draft    draft
	quick    bool
	problems []string
	failed   bool
	// refs are the $ref targets entered at the current instance location,
	// to stop a schema that refers to itself without consuming input.
	refs []*node
}

func (vd *validator) fail(loc []string, msg func() string) {
	vd.failed = true
	if !vd.quick {
		vd.problems = append(vd.problems, problem(loc, msg()))
	}
}

// matches decides whether v matches n, without lines. sameValue: v is
// the value being validated (not one of its members), so the $ref chain
// carries on.
func (vd *validator) matches(n *node, v any, loc []string, sameValue bool) bool {
	q := &validator{draft: vd.draft, quick: true}
	if sameValue {
		q.refs = vd.refs
	}
	return q.validate(n, v, loc)
}

// validate reports whether v, found at loc, matches n, adding the
// problems it finds.
func (vd *validator) validate(n *node, v any, loc []string) bool {
	failedBefore := vd.failed
	vd.failed = false
	vd.check(n, v, loc)
	ok := !vd.failed
	vd.failed = vd.failed || failedBefore
	return ok
}

// child validates the value v of a property or item of the current value.
func (vd *validator) child(n *node, v any, loc []string, tok string) {
	l := make([]string, len(loc)+1)
	copy(l, loc)
	l[len(loc)] = tok
	saved := vd.refs
	vd.refs = nil
	if !vd.validate(n, v, l) {
		vd.failed = true
	}
	vd.refs = saved
}

func (vd *validator) stop() bool { return vd.quick && vd.failed }

func (vd *validator) check(n *node, v any, loc []string) {
	if n.boolean != nil {
		if !*n.boolean {
			vd.fail(loc, func() string { return "is not allowed here" })
		}
		return
	}
	t := typeOfValue(v)
	if n.types != 0 && n.types&t == 0 && !(n.types&typeInteger != 0 && t == typeNumber && isInteger(v)) {
		vd.fail(loc, func() string {
			return fmt.Sprintf("expected %s, got %s", strings.Join(n.types.names(), " or "), typeNames[bitIndex(t)])
		})
		return
	}
	if n.hasConst && !jsonEqual(v, n.constant) {
		vd.fail(loc, func() string { return "must be " + display(n.constant) })
		return
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(e any) bool { return jsonEqual(v, e) }) {
		vd.fail(loc, func() string {
			want := make([]string, len(n.enum))
			for i, w := range n.enum {
				want[i] = display(w)
			}
			if len(want) == 1 {
				return "must be " + want[0]
			}
			return "must be one of " + strings.Join(want, ", ")
		})
		return
	}
	if n.ref != nil {
		if slices.Contains(vd.refs, n.ref) {
			vd.fail(loc, func() string { return "the schema refers to itself without consuming input ($ref cycle)" })
			return
		}
		vd.refs = append(vd.refs, n.ref)
		vd.check(n.ref, v, loc)
		vd.refs = vd.refs[:len(vd.refs)-1]
		if vd.draft < draft2019 || vd.stop() {
			return
		}
	}
	switch v := v.(type) {
	case map[string]any:
		vd.object(n, v, loc)
	case []any:
		vd.array(n, v, loc)
	case string:
		vd.str(n, v, loc)
	case json.Number, float64, int:
		vd.number(n, v, loc)
	}
	if vd.stop() {
		return
	}
	if n.not != nil && vd.matches(n.not, v, loc, true) {
		vd.fail(loc, func() string { return "matches a form that is not allowed (not)" })
	}
	for _, s := range n.allOf {
		if vd.stop() {
			return
		}
		vd.check(s, v, loc)
	}
	if n.anyOf != nil && !slices.ContainsFunc(n.anyOf, func(s *node) bool { return vd.matches(s, v, loc, true) }) {
		vd.fail(loc, func() string { return "does not match any of the allowed forms (anyOf)" })
	}
	if n.oneOf != nil {
		matched := 0
		for _, s := range n.oneOf {
			if vd.matches(s, v, loc, true) {
				if matched++; matched == 2 {
					break
				}
			}
		}
		switch matched {
		case 0:
			vd.fail(loc, func() string { return "does not match any of the allowed forms (oneOf)" })
		case 2:
			vd.fail(loc, func() string {
				return "matches more than one of the allowed forms; it must match exactly one (oneOf)"
			})
		}
	}
	if n.ifNode != nil && !vd.stop() {
		if vd.matches(n.ifNode, v, loc, true) {
			if n.then != nil {
				vd.check(n.then, v, loc)
			}
		} else if n.els != nil {
			vd.check(n.els, v, loc)
		}
	}
}

func (vd *validator) object(n *node, obj map[string]any, loc []string) {
	if n.minProps >= 0 && len(obj) < n.minProps {
		vd.fail(loc, func() string {
			return fmt.Sprintf("must have at least %s (got %d)", count(n.minProps, "property"), len(obj))
		})
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		vd.fail(loc, func() string {
			return fmt.Sprintf("must have at most %s (got %d)", count(n.maxProps, "property"), len(obj))
		})
	}
	if missing := missingOf(obj, n.required); missing != nil {
		vd.fail(loc, func() string {
			if len(missing) == 1 {
				return fmt.Sprintf("missing required property %q", missing[0])
			}
			return "missing required properties " + quoteList(missing)
		})
	}
	for _, d := range n.dependentRequired {
		if _, ok := obj[d.prop]; ok {
			if missing := missingOf(obj, d.required); missing != nil {
				vd.fail(loc, func() string { return fmt.Sprintf("property %q requires %s", d.prop, quoteList(missing)) })
			}
		}
	}
	for _, d := range n.dependentSchemas {
		if _, ok := obj[d.prop]; ok && !vd.stop() {
			vd.check(d.schema, obj, loc)
		}
	}
	if vd.stop() {
		return
	}
	var unknown []string
	if n.properties != nil || n.patternProps != nil || n.additional != nil {
		for _, name := range sortedKeys(obj) {
			if vd.stop() {
				return
			}
			pv := obj[name]
			evaluated := false
			if s, ok := n.properties[name]; ok {
				evaluated = true
				vd.child(s, pv, loc, name)
			}
			for _, pp := range n.patternProps {
				if pp.re.MatchString(name) {
					evaluated = true
					vd.child(pp.schema, pv, loc, name)
				}
			}
			if !evaluated && n.additional != nil {
				if b := n.additional.boolean; b != nil && !*b {
					unknown = append(unknown, name)
					vd.failed = true
				} else {
					vd.child(n.additional, pv, loc, name)
				}
			}
		}
	}
	if len(unknown) > 0 {
		vd.fail(loc, func() string {
			msg := "unknown property " + quoteList(clipAll(unknown))
			if len(unknown) > 1 {
				msg = "unknown properties " + quoteList(clipAll(unknown))
			}
			if len(n.propNames) > 0 {
				msg += " (allowed: " + strings.Join(n.propNames, ", ") + ")"
			}
			return msg
		})
	}
	if n.propertyNames != nil {
		for _, name := range sortedKeys(obj) {
			if vd.stop() {
				return
			}
			if !vd.matches(n.propertyNames, name, nil, false) {
				vd.fail(loc, func() string { return fmt.Sprintf("property name %q is not allowed", clip(name, 64)) })
			}
		}
	}
}

func (vd *validator) array(n *node, arr []any, loc []string) {
	if n.minItems >= 0 && len(arr) < n.minItems {
		vd.fail(loc, func() string {
			return fmt.Sprintf("must have at least %s (got %d)", count(n.minItems, "item"), len(arr))
		})
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		vd.fail(loc, func() string {
			return fmt.Sprintf("must have at most %s (got %d)", count(n.maxItems, "item"), len(arr))
		})
	}
	if n.uniqueItems {
		if i, j := duplicate(arr); i >= 0 {
			vd.fail(loc, func() string { return fmt.Sprintf("items must be unique (items %d and %d are equal)", i, j) })
		}
	}
	done := 0
	for i, s := range n.prefix {
		if i >= len(arr) || vd.stop() {
			break
		}
		vd.child(s, arr[i], loc, strconv.Itoa(i))
		done = i + 1
	}
	if n.items != nil {
		from := 0
		if n.itemsAfter {
			from = done
		}
		if b := n.items.boolean; b != nil && !*b && n.itemsAfter && len(n.prefix) > 0 && from < len(arr) {
			extra := len(arr) - from
			vd.fail(loc, func() string { return fmt.Sprintf("has %s more than allowed", count(extra, "item")) })
		} else {
			for i := from; i < len(arr) && !vd.stop(); i++ {
				vd.child(n.items, arr[i], loc, strconv.Itoa(i))
			}
		}
	}
	if n.contains != nil && !vd.stop() {
		matched := 0
		for i, item := range arr {
			if vd.matches(n.contains, item, append(slices.Clip(loc), strconv.Itoa(i)), false) {
				matched++
			}
		}
		switch {
		case n.minContains >= 0 && matched < n.minContains:
			vd.fail(loc, func() string {
				return fmt.Sprintf("must contain at least %s matching the \"contains\" schema (got %d)", count(n.minContains, "item"), matched)
			})
		case n.minContains < 0 && matched == 0:
			vd.fail(loc, func() string { return "does not contain an item matching the \"contains\" schema" })
		}
		if n.maxContains >= 0 && matched > n.maxContains {
			vd.fail(loc, func() string {
				return fmt.Sprintf("must contain at most %s matching the \"contains\" schema (got %d)", count(n.maxContains, "item"), matched)
			})
		}
	}
}

func (vd *validator) str(n *node, s string, loc []string) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength {
			vd.fail(loc, func() string {
				return fmt.Sprintf("must have at least %s (got %d)", count(n.minLength, "character"), l)
			})
		}
		if n.maxLength >= 0 && l > n.maxLength {
			vd.fail(loc, func() string { return fmt.Sprintf("must have at most %s (got %d)", count(n.maxLength, "character"), l) })
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		vd.fail(loc, func() string { return fmt.Sprintf("must match the pattern %s", strconv.Quote(n.pattern.String())) })
	}
}

func (vd *validator) number(n *node, v any, loc []string) {
	if n.minimum == nil && n.maximum == nil && n.exclMin == nil && n.exclMax == nil && n.multipleOf == nil {
		return
	}
	r, ok := numberRat(v)
	if !ok {
		return
	}
	if n.minimum != nil && r.Cmp(n.minimum) < 0 {
		vd.fail(loc, func() string { return "must be >= " + ratString(n.minimum) })
	}
	if n.maximum != nil && r.Cmp(n.maximum) > 0 {
		vd.fail(loc, func() string { return "must be <= " + ratString(n.maximum) })
	}
	if n.exclMin != nil && r.Cmp(n.exclMin) <= 0 {
		vd.fail(loc, func() string { return "must be > " + ratString(n.exclMin) })
	}
	if n.exclMax != nil && r.Cmp(n.exclMax) >= 0 {
		vd.fail(loc, func() string { return "must be < " + ratString(n.exclMax) })
	}
	if n.multipleOf != nil && !new(big.Rat).Quo(r, n.multipleOf).IsInt() {
		vd.fail(loc, func() string { return "must be a multiple of " + ratString(n.multipleOf) })
	}
}

// typeOfValue is v's JSON type; numbers are typeNumber (see isInteger).
func typeOfValue(v any) jsonType {
	switch v.(type) {
	case nil:
		return typeNull
	case bool:
		return typeBoolean
	case json.Number, float64, int:
		return typeNumber
	case string:
		return typeString
	case []any:
		return typeArray
	case map[string]any:
		return typeObject
	}
	return 0
}

func bitIndex(t jsonType) int {
	for i := range typeNames {
		if t == 1<<i {
			return i
		}
	}
	return 0
}

// isInteger: 1, 1.0 and 1e3 are integers (draft 6 on; draft 4 said the
// same in practice).
func isInteger(v any) bool {
	r, ok := numberRat(v)
	return ok && r.IsInt()
}

// jsonEqual compares two JSON values, numbers by value (1 equals 1.0).
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !jsonEqual(va, vb) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number, float64, int:
		ra, ok1 := numberRat(a)
		rb, ok2 := numberRat(b)
		return ok1 && ok2 && ra.Cmp(rb) == 0
	case string:
		s, ok := b.(string)
		return ok && s == a
	case bool:
		x, ok := b.(bool)
		return ok && x == a
	case nil:
		return b == nil
	}
	return false
}

// duplicate returns the first pair of equal items (the one whose second
// item comes first), or -1, -1. Long arrays are grouped by fingerprint
// first, so they are not compared pair by pair.
func duplicate(arr []any) (int, int) {
	if len(arr) <= 20 {
		for j := 1; j < len(arr); j++ {
			for i := 0; i < j; i++ {
				if jsonEqual(arr[i], arr[j]) {
					return i, j
				}
			}
		}
		return -1, -1
	}
	seen := make(map[string][]int, len(arr))
	var b strings.Builder
	for j, item := range arr {
		b.Reset()
		fingerprint(&b, item)
		k := b.String()
		for _, i := range seen[k] {
			if jsonEqual(arr[i], item) {
				return i, j
			}
		}
		seen[k] = append(seen[k], j)
	}
	return -1, -1
}

// fingerprint writes a form of v that equal values share (numbers by
// value, object members in key order).
func fingerprint(b *strings.Builder, v any) {
	switch v := v.(type) {
	case map[string]any:
		b.WriteByte('{')
		for _, k := range sortedKeys(v) {
			b.WriteString(strconv.Quote(k))
			fingerprint(b, v[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for _, e := range v {
			fingerprint(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case json.Number, float64, int:
		if r, ok := numberRat(v); ok {
			b.WriteString(r.RatString())
		}
	case string:
		b.WriteString(strconv.Quote(v))
	default:
		fmt.Fprint(b, v)
	}
}

func missingOf(obj map[string]any, required []string) []string {
	var missing []string
	for _, name := range required {
		if _, ok := obj[name]; !ok {
			missing = append(missing, name)
		}
	}
	return missing
}

func problem(loc []string, msg string) string {
	return "- " + pointer(loc) + ": " + msg
}

// pointer renders an instance location as a JSON pointer; the root is "/".
func pointer(loc []string) string {
	if len(loc) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, tok := range loc {
		tok = strings.ReplaceAll(tok, "~", "~0")
		tok = strings.ReplaceAll(tok, "/", "~1")
		b.WriteByte('/')
		b.WriteString(clip(tok, 64))
	}
	return b.String()
}

// display renders a value from the schema (never from the arguments).
func display(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	case []any, map[string]any:
		b, err := encodeCanonical(v)
		if err != nil {
			return "the constant in the schema"
		}
		return clip(string(b), 200)
	default:
		return fmt.Sprint(v)
	}
}

// count is "1 item", "2 items", "3 properties".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return strconv.Itoa(n) + " " + strings.TrimSuffix(noun, "y") + "ies"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func clipAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = clip(n, 64)
	}
	return out
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
