package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agentls/agentls/config"
)

// commandSettings layers the settings of a session the command line starts
// (call, mcp): the user's settings file, then the --settings object arg,
// then adjust (may be nil: call's askFallback default), then the
// workspace folder's own file, which may only tighten. What the workspace
// file said that it may not is reported on stderr.
func commandSettings(e *env, name, root, arg string, adjust func(json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	user, err := config.User()
	if err != nil {
		return nil, err
	}
	var flagObj json.RawMessage
	if strings.TrimSpace(arg) != "" {
		if flagObj, err = config.Parse("--settings", []byte(arg)); err != nil {
			return nil, err
		}
	}
	merged := config.Merge(user, flagObj)
	if adjust != nil {
		if merged, err = adjust(merged); err != nil {
			return nil, err
		}
	}
	out, ignored, err := config.ForWorkspace(root, merged)
	if err != nil {
		return nil, err
	}
	if len(ignored) > 0 {
		fmt.Fprintf(e.stderr, "agentls %s: %s\n", name, config.IgnoredMessage(config.WorkspacePath(root), ignored))
	}
	return out, nil
}

// disabledTools reads tools.disabled from settings.
func disabledTools(settings json.RawMessage) []string {
	var s struct {
		Tools struct {
			Disabled []string `json:"disabled"`
		} `json:"tools"`
	}
	json.Unmarshal(settings, &s)
	sort.Strings(s.Tools.Disabled)
	return slices.Compact(s.Tools.Disabled)
}

// editorSettings is the language server's settings hook: the user's
// settings file under the editor's settings (which win), then the
// folder's own file, which may only tighten. Problems (a malformed file,
// ignored workspace keys) are returned once per folder and text, so a
// settings change does not repeat them.
type editorSettings struct {
	mu   sync.Mutex
	told map[string]string // folder root → the problems last reported
}

func (h *editorSettings) layer(root string, editor json.RawMessage) (json.RawMessage, []string) {
	var problems []string
	user, err := config.User()
	if err != nil {
		problems = append(problems, err.Error()+" (the file is ignored until it is fixed)")
	}
	merged := config.Merge(user, editor)
	out, ignored, err := config.ForWorkspace(root, merged)
	if err != nil {
		problems = append(problems, err.Error()+" (the file is ignored until it is fixed)")
	}
	if len(ignored) > 0 {
		problems = append(problems, config.IgnoredMessage(config.WorkspacePath(root), ignored))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.told == nil {
		h.told = map[string]string{}
	}
	key := strings.Join(problems, "\n")
	if h.told[root] == key {
		problems = nil
	}
	h.told[root] = key
	return out, problems
}
