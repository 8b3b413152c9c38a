package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

// executeCommandParams is decoded here: go.lsp.dev/protocol v0.12.0 gives
// the arguments as []interface{}, and the tool arguments must stay bytes.
type executeCommandParams struct {
	Command       string            `json:"command"`
	Arguments     []json.RawMessage `json:"arguments"`
	WorkDoneToken json.RawMessage   `json:"workDoneToken"`
}

func (s *Server) executeCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	var p executeCommandParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	arg, err := commandArg(p)
	if err != nil {
		return nil, err
	}
	switch p.Command {
	case cmdListTools:
		return s.listTools(arg)
	case cmdCallTool:
		return s.callTool(ctx, arg, p.WorkDoneToken)
	case cmdCallTools:
		return s.callTools(ctx, arg, p.WorkDoneToken)
	}
	h, ok := s.commands[p.Command]
	if !ok || h == nil {
		return nil, InvalidParams("unknown command %q", p.Command)
	}
	var env struct {
		Workspace string `json:"workspace"`
		Path      string `json:"path"`
	}
	json.Unmarshal(arg, &env)
	f, ok := s.route(env.Workspace, env.Path)
	if !ok {
		return nil, InvalidParams("workspace %s is not an open folder", env.Workspace)
	}
	return h(ctx, f, arg)
}

// commandArg is the one argument object every command takes.
func commandArg(p executeCommandParams) (json.RawMessage, error) {
	if len(p.Arguments) == 0 {
		return nil, InvalidParams("%s takes one argument object; got none", p.Command)
	}
	a := bytes.TrimSpace(p.Arguments[0])
	if len(a) == 0 || a[0] != '{' {
		return nil, InvalidParams("%s takes one argument object; got %s", p.Command, clipJSON(a))
	}
	return a, nil
}

func clipJSON(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}

// registryFor is the registry of f; with no folder open (f nil) it is a
// built-in registry whose tools answer that a folder is needed.
func (s *Server) registryFor(f *Folder) *registry.Registry {
	if f != nil {
		return f.Registry()
	}
	s.mu.Lock()
	disabled := s.global.Disabled
	s.mu.Unlock()
	reg, _ := registry.NewBuiltin(disabled...)
	return reg
}

// listTools answers {workspace, revision, digest, tools} with the
// registry's cached tool list bytes: nothing is marshalled per tool.
func (s *Server) listTools(arg json.RawMessage) (any, error) {
	var a struct {
		Workspace string `json:"workspace"`
	}
	if err := json.Unmarshal(arg, &a); err != nil {
		return nil, InvalidParams("%s: %v", cmdListTools, err)
	}
	f, ok := s.route(a.Workspace, "")
	if !ok {
		return nil, InvalidParams("%s: workspace %s is not an open folder", cmdListTools, a.Workspace)
	}
	reg := s.registryFor(f)
	uri := ""
	if f != nil {
		uri = f.URI
	}
	// One snapshot of revision, digest and tools, with the canonical
	// bytes as they are: no marshalling.
	return reg.ListToolsJSON(uri), nil
}

type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// callArgs checks one call's envelope: a name, and arguments that are an
// object (absent or null mean {}).
func callArgs(c toolCall, where string) (json.RawMessage, error) {
	if c.Name == "" {
		return nil, InvalidParams("%s: missing \"name\"", where)
	}
	a := bytes.TrimSpace(c.Arguments)
	if len(a) == 0 || string(a) == "null" {
		return json.RawMessage("{}"), nil
	}
	if a[0] != '{' {
		return nil, InvalidParams("%s: \"arguments\" of %s must be an object; got %s", where, c.Name, clipJSON(a))
	}
	return a, nil
}

// pathArg is the path-like argument a call routes by.
func pathArg(args json.RawMessage) string {
	var a struct {
		Path   string `json:"path"`
		Source string `json:"source"`
	}
	json.Unmarshal(args, &a)
	if a.Path != "" {
		return a.Path
	}
	return a.Source
}

func (s *Server) callTool(ctx context.Context, arg json.RawMessage, token json.RawMessage) (any, error) {
	var a struct {
		toolCall
		Workspace string `json:"workspace"`
	}
	if err := json.Unmarshal(arg, &a); err != nil {
		return nil, InvalidParams("%s: %v", cmdCallTool, err)
	}
	args, err := callArgs(a.toolCall, cmdCallTool)
	if err != nil {
		return nil, err
	}
	f, ok := s.route(a.Workspace, pathArg(args))
	if !ok {
		return registry.Result{IsError: true, Content: fmt.Sprintf("workspace %s is not an open folder; open folders: %s", a.Workspace, s.folderList())}, nil
	}
	if f != nil {
		if err := f.waitReady(ctx); err != nil {
			return nil, err
		}
	}
	reg := s.registryFor(f)
	if res, ok := s.approve(ctx, f, reg, a.Name, args, true); !ok {
		return res, nil
	}
	ctx, done := s.callContext(ctx, f, a.Name, token)
	defer done()
	return reg.Call(ctx, a.Name, args), nil
}

// batchResult is agentls.callTools' result: one result per call, in call
// order.
type batchResult struct {
	Results []registry.Result `json:"results"`
}

func (s *Server) callTools(ctx context.Context, arg json.RawMessage, token json.RawMessage) (any, error) {
	var a struct {
		Calls     []toolCall `json:"calls"`
		Workspace string     `json:"workspace"`
	}
	if err := json.Unmarshal(arg, &a); err != nil {
		return nil, InvalidParams("%s: %v", cmdCallTools, err)
	}
	if a.Calls == nil {
		return nil, InvalidParams("%s: missing \"calls\"", cmdCallTools)
	}
	calls := make([]registry.BatchCall, len(a.Calls))
	route := ""
	for i, c := range a.Calls {
		args, err := callArgs(c, fmt.Sprintf("%s: calls[%d]", cmdCallTools, i))
		if err != nil {
			return nil, err
		}
		calls[i] = registry.BatchCall{Name: c.Name, Arguments: args}
		if route == "" {
			route = pathArg(args)
		}
	}
	results := make([]registry.Result, len(calls))
	f, ok := s.route(a.Workspace, route)
	if !ok {
		for i := range results {
			results[i] = registry.Result{IsError: true, Content: fmt.Sprintf("workspace %s is not an open folder; open folders: %s", a.Workspace, s.folderList())}
		}
		return batchResult{Results: results}, nil
	}
	if f != nil {
		if err := f.waitReady(ctx); err != nil {
			return nil, err
		}
	}
	reg := s.registryFor(f)
	var run []registry.BatchCall
	var at []int
	for i, c := range calls {
		if res, ok := s.approve(ctx, f, reg, c.Name, c.Arguments, true); !ok {
			results[i] = res
			continue
		}
		run = append(run, c)
		at = append(at, i)
	}
	if len(run) > 0 {
		ctx, done := s.callContext(ctx, f, fmt.Sprintf("%d tools", len(run)), token)
		defer done()
		for j, r := range reg.RunBatch(ctx, run) {
			results[at[j]] = r
		}
	}
	return batchResult{Results: results}, nil
}

// callContext is the context a tool call runs in: the folder's session and
// progress reporting. done ends the progress.
func (s *Server) callContext(ctx context.Context, f *Folder, title string, token json.RawMessage) (context.Context, func()) {
	if f != nil {
		ctx = workspace.WithSession(ctx, f.Session)
	}
	p := s.startProgress(ctx, "agentls: "+title, token)
	ctx = workspace.WithProgress(ctx, p.report)
	return ctx, p.end
}

func (s *Server) folderList() string {
	fs := s.Folders()
	if len(fs) == 0 {
		return "none"
	}
	out := ""
	for i, f := range fs {
		if i > 0 {
			out += ", "
		}
		out += f.URI
	}
	return out
}
