package registry

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// builtins is the process-global set of built-in tools. It is filled by
// init() functions in package builtin and read afterwards; the mutex makes
// late registration (tests) safe.
var builtins struct {
	mu    sync.RWMutex
	tools map[string]*builtin
}

// builtin is a registered built-in with its entry made once per process:
// every per-session *Registry built by NewBuiltin shares it, and with it the
// canonical schema (made at the first listing or call) and the compiled
// one (made at the first call).
type builtin struct {
	tool Tool
	once sync.Once
	ent  *entry
	err  error
}

func (b *builtin) prepare() (*entry, error) {
	b.once.Do(func() { b.ent, b.err = makeEntry(b.tool, true) })
	return b.ent, b.err
}

// RegisterBuiltin adds t to the built-in set. It is meant to be called from
// init(); it panics when the name is invalid or already registered.
func RegisterBuiltin(t Tool) {
	if t == nil {
		panic("registry: RegisterBuiltin(nil)")
	}
	name := t.Name()
	if err := checkName(name); err != nil {
		panic("registry: RegisterBuiltin: " + err.Error())
	}
	builtins.mu.Lock()
	defer builtins.mu.Unlock()
	if builtins.tools == nil {
		builtins.tools = make(map[string]*builtin)
	}
	if _, dup := builtins.tools[name]; dup {
		panic(fmt.Sprintf("registry: built-in tool %q registered twice", name))
	}
	builtins.tools[name] = &builtin{tool: t}
}

// Builtins returns the registered built-in tools sorted by name.
func Builtins() []Tool {
	builtins.mu.RLock()
	defer builtins.mu.RUnlock()
	out := make([]Tool, 0, len(builtins.tools))
	for _, b := range builtins.tools {
		out = append(out, b.tool)
	}
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// LookupBuiltin returns the built-in tool with the given name.
func LookupBuiltin(name string) (Tool, bool) {
	builtins.mu.RLock()
	defer builtins.mu.RUnlock()
	b, ok := builtins.tools[name]
	if !ok {
		return nil, false
	}
	return b.tool, true
}

// Conditional is implemented by a built-in that a session offers only when
// its client provides a feature (Requires names it), such as the editor's
// own language servers: a tool list stays honest about what works.
type Conditional interface {
	Requires() string
}

// Features a client may provide (docs/PROTOCOL.md, client requests).
const (
	FeatureDiagnostics     = "agentls/diagnostics"     // the editor's diagnostics
	FeatureLanguageRequest = "agentls/languageRequest" // the editor's other language servers
	FeatureEditorState     = "agentls/editorState"     // open documents, cursor, selection
)

// Features lists every feature a client may provide.
var Features = []string{FeatureDiagnostics, FeatureLanguageRequest, FeatureEditorState}

// Requires is the feature t needs, or "" for a tool every session offers.
func Requires(t Tool) string {
	if c, ok := t.(Conditional); ok {
		return c.Requires()
	}
	return ""
}

// NewBuiltin returns a registry holding every built-in except the disabled
// names and the conditional ones (see NewBuiltinFor). The registry is never nil. The error reports a disabled name that
// is not a built-in (the closest names are suggested) or a built-in whose
// schema is invalid; the returned registry holds every other built-in, so a
// caller may log the error and go on.
func NewBuiltin(disabled ...string) (*Registry, error) {
	return NewBuiltinFor(nil, disabled...)
}

// NewBuiltinFor is NewBuiltin for a session whose client provides features:
// conditional built-ins that need one of them are included.
func NewBuiltinFor(features []string, disabled ...string) (*Registry, error) {
	builtins.mu.RLock()
	list := make([]*builtin, 0, len(builtins.tools))
	names := make([]string, 0, len(builtins.tools))
	for name, b := range builtins.tools {
		list = append(list, b)
		names = append(names, name)
	}
	builtins.mu.RUnlock()

	var errs []string
	skip := make(map[string]bool, len(disabled))
	for _, name := range disabled {
		skip[name] = true
		if !slices.Contains(names, name) {
			errs = append(errs, fmt.Sprintf("disabled tool %q is not a built-in%s", name, didYouMean(name, names)))
		}
	}
	slices.SortFunc(list, func(a, b *builtin) int { return strings.Compare(a.tool.Name(), b.tool.Name()) })

	r := New()
	for _, b := range list {
		if skip[b.tool.Name()] {
			continue
		}
		if f := Requires(b.tool); f != "" && !slices.Contains(features, f) {
			continue
		}
		e, err := b.prepare()
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if err := r.add(e); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return r, fmt.Errorf("built-in tools: %s", strings.Join(errs, "; "))
	}
	return r, nil
}
