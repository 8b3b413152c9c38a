// Package registry holds the Tool interface, the process-global set of
// built-in tools, and the per-session *Registry that agents see: canonical
// schemas, argument validation, calls and batches.
//
// registry knows nothing about LSP, MCP or the workspace; the per-call
// environment travels in the context.
//
// Invariants: a call never fails as a Go error or a crash — an unknown
// tool, arguments that are not JSON or break the schema, a tool's error or
// panic and a cancelled context are all a Result with IsError, and every
// Result is cut to MaxResultBytes with a note saying how to get the rest;
// the tool list (ToolsJSON) is canonical bytes built once per revision,
// and equal digests mean the agent sees the same tools; a batch runs in
// parallel only when every call in it is read-only.
package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Tool is one tool an agent can call. Built-ins are stateless: everything a
// call needs (workspace, editor, session) comes from ctx.
type Tool interface {
	Name() string
	Description() string
	Schema() json.RawMessage // JSON Schema of the arguments
	Execute(ctx context.Context, args json.RawMessage) (string, error)
	ReadOnly() bool // no observable side effects
}

// Result is what a call returns to the agent. Tool failures (unknown tool,
// schema violation, refused path, error returned by Execute, panic) are
// results with IsError set, never Go errors.
type Result struct {
	Content string `json:"content"`
	IsError bool   `json:"isError"`
}

// Schema is one entry of a registry's tool list. InputSchema holds the
// canonical bytes stored by Add; callers must not modify them.
type Schema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	ReadOnly    bool            `json:"readOnly"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Annotations are the tool's (AnnotationsOf); not part of the tool
	// list's JSON, which the contract locks.
	Annotations Annotations `json:"-"`
}

// BatchCall is one call of RunBatch.
type BatchCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// entry is a tool admitted to a registry, its schema canonicalized and
// compiled. Entries are immutable once made (the canonical schema and the
// compiled one are made once, see prepared and compiledSchema) and may be
// shared by registries.
type entry struct {
	tool   Tool
	schema Schema // InputSchema holds the canonical bytes once prepared
	doc    map[string]any

	// A built-in's schema is decoded at its first listing or call, and
	// its canonical bytes made at its first listing (a fresh `agentls
	// call` lists nothing and calls one tool: it decodes and compiles
	// that tool's schema, and encodes none).
	docOnce   sync.Once
	docErr    error
	canonOnce sync.Once
	canonErr  error

	compileOnce sync.Once
	compiled    *schemaRoot
	compileErr  error
}

// decoded decodes the entry's schema on first use; afterwards e.doc may be
// read.
func (e *entry) decoded() error {
	e.docOnce.Do(func() {
		if e.doc != nil {
			return // made by newEntry
		}
		doc, err := decodeSchema(e.tool.Schema())
		if err != nil {
			e.docErr = fmt.Errorf("tool %q: %w", e.schema.Name, err)
			return
		}
		e.doc = doc
	})
	return e.docErr
}

// prepared decodes and canonicalizes the entry's schema on first use;
// afterwards e.schema.InputSchema and e.doc may be read.
func (e *entry) prepared() error {
	if err := e.decoded(); err != nil {
		return err
	}
	e.canonOnce.Do(func() {
		if e.schema.InputSchema != nil {
			return // made by newEntry
		}
		var err error
		if e.schema.InputSchema, err = encodeCanonical(e.doc); err != nil {
			e.canonErr = fmt.Errorf("tool %q: %w", e.schema.Name, err)
		}
	})
	return e.canonErr
}

// compiledSchema returns the entry's compiled schema, compiling it on first
// use: a built-in's is compiled when it is first called, not when a
// process starts (a fresh `agentls call` compiles one schema, not all).
func (e *entry) compiledSchema() (*schemaRoot, error) {
	if err := e.decoded(); err != nil {
		return nil, err
	}
	e.compileOnce.Do(func() {
		if e.compiled == nil {
			e.compiled, e.compileErr = compileSchema(e.schema.Name, e.doc)
		}
	})
	return e.compiled, e.compileErr
}

// newEntry canonicalizes and compiles t's schema. Errors name the tool.
func newEntry(t Tool) (*entry, error) { return makeEntry(t, false) }

// makeEntry is newEntry; when lazy, the schema is canonicalized and
// compiled on first use (built-ins, whose schemas the contract tests
// check).
func makeEntry(t Tool, lazy bool) (*entry, error) {
	if t == nil {
		return nil, errors.New("registry: nil tool")
	}
	name := t.Name()
	if err := checkName(name); err != nil {
		return nil, err
	}
	e := &entry{
		tool: t,
		schema: Schema{
			Name:        name,
			Description: t.Description(),
			ReadOnly:    t.ReadOnly(),
			Annotations: AnnotationsOf(t),
		},
	}
	if lazy {
		return e, nil
	}
	if err := e.prepared(); err != nil {
		return nil, err
	}
	compiled, err := compileSchema(name, e.doc)
	if err != nil {
		return nil, fmt.Errorf("tool %q: invalid JSON Schema: %w", name, err)
	}
	e.compiled = compiled
	return e, nil
}

// checkName accepts the names the model APIs accept (OpenAI, Anthropic,
// MCP clients): 1 to 128 ASCII letters, digits, '_' and '-'. A plugin front
// must map other names (dots, spaces) to these.
func checkName(name string) error {
	if name == "" {
		return errors.New("tool name is empty")
	}
	if len(name) > 128 {
		return fmt.Errorf("tool name %.40q... is longer than 128 bytes", name)
	}
	for _, c := range []byte(name) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
		if !ok {
			return fmt.Errorf("tool name %q: only ASCII letters, digits, '_' and '-' are allowed", name)
		}
	}
	return nil
}

// Registry is the set of tools one agent session sees: enabled built-ins
// plus plugin tools. It is safe for concurrent use.
type Registry struct {
	mu        sync.RWMutex
	tools     map[string]*entry
	suspended map[string][]*entry // prefix → tools held back by SuspendPrefix
	rev       uint64              // bumped on every change; guarded by mu
	changed   chan struct{}       // closed (and cleared) by the next change; guarded by mu

	// The list views, rebuilt lazily when rev moved past cacheRev.
	cacheMu   sync.Mutex
	cacheRev  uint64
	cacheOK   bool
	schemas   []Schema
	toolsJSON json.RawMessage
	digest    string
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{tools: make(map[string]*entry), suspended: make(map[string][]*entry)}
}

// Add admits t, replacing a tool of the same name in place. The schema is
// canonicalized and compiled here, once; a schema that is not valid JSON
// Schema, an invalid name, or a name under a suspended prefix is refused
// with an error naming the tool.
func (r *Registry) Add(t Tool) error {
	e, err := newEntry(t)
	if err != nil {
		return err
	}
	return r.add(e)
}

func (r *Registry) add(e *entry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for prefix := range r.suspended {
		if strings.HasPrefix(e.schema.Name, prefix) {
			return fmt.Errorf("tool %q: prefix %q is suspended", e.schema.Name, prefix)
		}
	}
	r.tools[e.schema.Name] = e
	r.bumpLocked()
	return nil
}

// Remove drops the named tool and reports whether it was there.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; !ok {
		return false
	}
	delete(r.tools, name)
	r.bumpLocked()
	return true
}

// RemovePrefix drops every tool whose name starts with prefix, including
// tools held back by SuspendPrefix, and returns how many active tools it
// dropped. A suspension stays in force until ResumePrefix.
func (r *Registry) RemovePrefix(prefix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for name := range r.tools {
		if strings.HasPrefix(name, prefix) {
			delete(r.tools, name)
			n++
		}
	}
	for p, held := range r.suspended {
		r.suspended[p] = slices.DeleteFunc(held, func(e *entry) bool { return strings.HasPrefix(e.schema.Name, prefix) })
	}
	if n > 0 {
		r.bumpLocked()
	}
	return n
}

// SuspendPrefix removes every tool whose name starts with prefix and holds
// them back until ResumePrefix; meanwhile Add refuses names with that
// prefix. It returns how many tools it removed. Used when a plugin server
// disconnects.
func (r *Registry) SuspendPrefix(prefix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	held := r.suspended[prefix]
	n := 0
	for name, e := range r.tools {
		if strings.HasPrefix(name, prefix) {
			held = append(held, e)
			delete(r.tools, name)
			n++
		}
	}
	r.suspended[prefix] = held
	if n > 0 {
		r.bumpLocked()
	}
	return n
}

// ResumePrefix lifts a suspension and re-admits the tools it held back.
func (r *Registry) ResumePrefix(prefix string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	held, ok := r.suspended[prefix]
	if !ok {
		return
	}
	delete(r.suspended, prefix)
	for _, e := range held {
		r.tools[e.schema.Name] = e
	}
	if len(held) > 0 {
		r.bumpLocked()
	}
}

// SetPrefix makes ts the whole set of tools whose names start with prefix,
// in one change: the tools under prefix not in ts leave, those of ts come
// in (a plugin server's tools as it connects), and a suspension of prefix
// is lifted with the tools it held back dropped. A client listing the
// tools meanwhile sees the old set or the new one, never a part of the new
// one. A tool of ts that Add would refuse, or whose name lacks the prefix,
// is left out with an error naming it; admitted are the names that came in.
func (r *Registry) SetPrefix(prefix string, ts []Tool) (admitted []string, errs []error) {
	es := make([]*entry, 0, len(ts))
	for _, t := range ts {
		if !strings.HasPrefix(t.Name(), prefix) {
			errs = append(errs, fmt.Errorf("tool %q: name does not start with %q", t.Name(), prefix))
			continue
		}
		e, err := newEntry(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		es = append(es, e)
		admitted = append(admitted, e.schema.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.suspended, prefix)
	for name := range r.tools {
		if strings.HasPrefix(name, prefix) {
			delete(r.tools, name)
		}
	}
	for _, e := range es {
		r.tools[e.schema.Name] = e
	}
	r.bumpLocked()
	return admitted, errs
}

// Get returns the named tool.
func (r *Registry) Get(name string) (Tool, bool) {
	e, ok := r.lookup(name)
	if !ok {
		return nil, false
	}
	return e.tool, true
}

func (r *Registry) lookup(name string) (*entry, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	return e, ok
}

// names returns the names of the active tools, sorted.
func (r *Registry) names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.tools))
	for name := range r.tools {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// bumpLocked records a change of the tool set. The caller holds mu.
func (r *Registry) bumpLocked() {
	r.rev++
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// Changed returns a channel closed by the next change of the tool set
// (take it, then read the state, then wait: no change is missed).
func (r *Registry) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.changed == nil {
		r.changed = make(chan struct{})
	}
	return r.changed
}

// Revision is a counter bumped on every change of the tool set.
func (r *Registry) Revision() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.rev
}

// Schemas returns the tools sorted by name. InputSchema holds the canonical
// bytes stored by Add, shared: callers must not modify them. Nothing is
// marshalled.
func (r *Registry) Schemas() []Schema {
	r.cacheMu.Lock()
	defer r.cacheMu.Unlock()
	r.refreshLocked()
	return slices.Clone(r.schemas)
}

// ToolsJSON returns the JSON array of Schemas(), built once per revision.
// The bytes are shared: callers must not modify them.
func (r *Registry) ToolsJSON() json.RawMessage {
	r.cacheMu.Lock()
	defer r.cacheMu.Unlock()
	r.refreshLocked()
	return r.toolsJSON
}

// Digest is the hex sha256 of ToolsJSON(): equal digests mean the agent sees
// byte-identical tool lists.
func (r *Registry) Digest() string {
	r.cacheMu.Lock()
	defer r.cacheMu.Unlock()
	r.refreshLocked()
	return r.digest
}

// ListToolsJSON returns the agentls.listTools result for workspace (a
// folder URI): {"workspace","revision","digest","tools"}, tools being
// ToolsJSON() byte for byte. Revision, digest and tools come from the same
// revision. Use it rather than marshalling a struct: encoding/json would
// re-escape the canonical bytes ('<' becomes \u003c).
func (r *Registry) ListToolsJSON(workspace string) json.RawMessage {
	r.cacheMu.Lock()
	defer r.cacheMu.Unlock()
	r.refreshLocked()
	buf := make([]byte, 0, len(r.toolsJSON)+len(workspace)+128)
	buf = append(buf, `{"workspace":`...)
	buf = appendString(buf, workspace)
	buf = append(buf, `,"revision":`...)
	buf = strconv.AppendUint(buf, r.cacheRev, 10)
	buf = append(buf, `,"digest":"`...)
	buf = append(buf, r.digest...)
	buf = append(buf, `","tools":`...)
	buf = append(buf, r.toolsJSON...)
	buf = append(buf, '}')
	return buf
}

// refreshLocked rebuilds the list views when the tool set changed since
// they were built. The caller must hold cacheMu.
func (r *Registry) refreshLocked() {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.cacheOK && r.cacheRev == r.rev {
		return
	}
	list := make([]Schema, 0, len(r.tools))
	size := 2
	for _, e := range r.tools {
		if e.prepared() != nil {
			continue // a built-in with a broken schema: its calls say so
		}
		list = append(list, e.schema)
		size += len(e.schema.Name) + len(e.schema.Description) + len(e.schema.InputSchema) + 64
	}
	slices.SortFunc(list, func(a, b Schema) int { return strings.Compare(a.Name, b.Name) })

	buf := make([]byte, 0, size)
	buf = append(buf, '[')
	for i, s := range list {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"name":`...)
		buf = appendString(buf, s.Name)
		buf = append(buf, `,"description":`...)
		buf = appendString(buf, s.Description)
		buf = append(buf, `,"readOnly":`...)
		buf = strconv.AppendBool(buf, s.ReadOnly)
		buf = append(buf, `,"inputSchema":`...)
		buf = append(buf, s.InputSchema...)
		buf = append(buf, '}')
	}
	buf = append(buf, ']')
	sum := sha256.Sum256(buf)

	r.schemas = list
	r.toolsJSON = buf
	r.digest = hex.EncodeToString(sum[:])
	r.cacheRev = r.rev
	r.cacheOK = true
}

// appendString appends s as a JSON string, without HTML escaping, the way
// Canonicalize writes strings.
func appendString(buf []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(buf, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}
