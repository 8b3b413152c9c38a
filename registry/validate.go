package registry

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// maxProblems is how many schema violations a validation message lists.
const maxProblems = 8

// toolSchemaURL is the location a tool's schema is compiled under. Nothing is
// ever loaded from it.
func toolSchemaURL(name string) string { return "mem://agentls/tools/" + name + ".json" }

// noLoader refuses every external resource: schemas are compiled from their
// own bytes only, never from the network or the disk. The standard
// meta-schemas are built into the library and still resolve.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("loading %s refused: tool schemas must be self-contained", url)
}

func compileSchema(name string, doc map[string]any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	url := toolSchemaURL(name)
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// validate checks args (already decoded with json.Number) against the
// entry's schema and returns a message listing the problems, or "".
func (e *entry) validate(args any) string {
	compiled, err := e.compiledSchema()
	if err != nil {
		return fmt.Sprintf("tool %s: invalid JSON Schema: %v", e.schema.Name, err)
	}
	err = compiled.Validate(args)
	if err == nil {
		return ""
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return fmt.Sprintf("invalid arguments for %s: %v", e.schema.Name, err)
	}
	var problems []string
	e.collect(verr, &problems)
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

// collect appends one "- /pointer: expectation" line per leaf violation.
// Alternatives (anyOf, oneOf) are reported as one line, since the branches'
// own failures contradict each other.
func (e *entry) collect(v *jsonschema.ValidationError, out *[]string) {
	switch k := v.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range v.Causes {
			e.collect(c, out)
		}
		return
	case *kind.AnyOf:
		*out = append(*out, problem(v.InstanceLocation, "does not match any of the allowed forms (anyOf)"))
		return
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			*out = append(*out, problem(v.InstanceLocation, "matches more than one of the allowed forms; it must match exactly one (oneOf)"))
		} else {
			*out = append(*out, problem(v.InstanceLocation, "does not match any of the allowed forms (oneOf)"))
		}
		return
	}
	if len(v.Causes) > 0 { // a keyword with nested failures (items, properties, ...)
		for _, c := range v.Causes {
			e.collect(c, out)
		}
		return
	}
	*out = append(*out, problem(v.InstanceLocation, e.expectation(v)))
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

// expectation says what the schema expected, without echoing the value the
// model sent: values may be long, and repeating them teaches nothing.
func (e *entry) expectation(v *jsonschema.ValidationError) string {
	switch k := v.ErrorKind.(type) {
	case *kind.Type:
		return fmt.Sprintf("expected %s, got %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Required:
		if len(k.Missing) == 1 {
			return fmt.Sprintf("missing required property %q", k.Missing[0])
		}
		return "missing required properties " + quoteList(k.Missing)
	case *kind.AdditionalProperties:
		msg := "unknown property " + quoteList(clipAll(k.Properties))
		if len(k.Properties) > 1 {
			msg = "unknown properties " + quoteList(clipAll(k.Properties))
		}
		if allowed := e.allowedProperties(v.SchemaURL); len(allowed) > 0 {
			msg += " (allowed: " + strings.Join(allowed, ", ") + ")"
		}
		return msg
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = display(w)
		}
		if len(want) == 1 {
			return "must be " + want[0]
		}
		return "must be one of " + strings.Join(want, ", ")
	case *kind.Const:
		return "must be " + display(k.Want)
	case *kind.Format:
		return fmt.Sprintf("must be a valid %s", k.Want)
	case *kind.Pattern:
		return fmt.Sprintf("must match the pattern %s", strconv.Quote(k.Want))
	case *kind.MinLength:
		return fmt.Sprintf("must have at least %s (got %d)", count(k.Want, "character"), k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must have at most %s (got %d)", count(k.Want, "character"), k.Got)
	case *kind.Minimum:
		return "must be >= " + ratString(k.Want)
	case *kind.Maximum:
		return "must be <= " + ratString(k.Want)
	case *kind.ExclusiveMinimum:
		return "must be > " + ratString(k.Want)
	case *kind.ExclusiveMaximum:
		return "must be < " + ratString(k.Want)
	case *kind.MultipleOf:
		return "must be a multiple of " + ratString(k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %s (got %d)", count(k.Want, "item"), k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %s (got %d)", count(k.Want, "item"), k.Got)
	case *kind.UniqueItems:
		return fmt.Sprintf("items must be unique (items %d and %d are equal)", k.Duplicates[0], k.Duplicates[1])
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %s (got %d)", count(k.Want, "property"), k.Got)
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %s (got %d)", count(k.Want, "property"), k.Got)
	case *kind.Dependency:
		return fmt.Sprintf("property %q requires %s", k.Prop, quoteList(k.Missing))
	case *kind.DependentRequired:
		return fmt.Sprintf("property %q requires %s", k.Prop, quoteList(k.Missing))
	case *kind.PropertyNames:
		return fmt.Sprintf("property name %q is not allowed", clip(k.Property, 64))
	case *kind.AdditionalItems:
		return fmt.Sprintf("has %s more than allowed", count(k.Count, "item"))
	case *kind.FalseSchema:
		return "is not allowed here"
	case *kind.Not:
		return "matches a form that is not allowed (not)"
	case *kind.Contains, *kind.MinContains, *kind.MaxContains:
		return "does not contain the required items (" + strings.Join(k.KeywordPath(), "/") + ")"
	}
	if kw := v.ErrorKind.KeywordPath(); len(kw) > 0 {
		return fmt.Sprintf("fails the %q rule", kw[0])
	}
	return "does not match the input schema"
}

// allowedProperties lists the "properties" of the sub-schema at schemaURL
// (the library's absolute keyword location), sorted.
func (e *entry) allowedProperties(schemaURL string) []string {
	_, frag, ok := strings.Cut(schemaURL, "#")
	if !ok {
		return nil
	}
	var node any = e.doc
	for tok := range strings.SplitSeq(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			node = n[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil
			}
			node = n[i]
		default:
			return nil
		}
	}
	obj, _ := node.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
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
