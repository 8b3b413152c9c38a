package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sort"

	"go.lsp.dev/protocol"
)

// settings is the "agentls" configuration object as the server reads it.
// Tools read their own keys (bash.*, webFetch.*) from the raw object
// through workspace.Session.Setting.
type settings struct {
	Disabled       []string          // tools.disabled, sorted
	Approval       map[string]string // tool name → allow|ask|deny
	ClientConfirms bool              // the client's agent UI confirms every call
	SaveAfterEdit  bool              // save a clean buffer after an edit (default true)
	Raw            json.RawMessage   // the whole object, for the tools
}

func defaultSettings() settings { return settings{SaveAfterEdit: true} }

// unwrapSection accepts both the agentls object itself and an object that
// holds it under "agentls" (the shape of didChangeConfiguration's settings).
func unwrapSection(raw json.RawMessage) json.RawMessage {
	var outer map[string]json.RawMessage
	if json.Unmarshal(raw, &outer) != nil {
		return raw
	}
	if inner, ok := outer["agentls"]; ok {
		return inner
	}
	return raw
}

// parseSettings reads raw (null or absent: the defaults). A bad value is
// reported in problems and ignored; unknown keys are logged.
func parseSettings(raw json.RawMessage, log *slog.Logger) (settings, []string) {
	st := defaultSettings()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return st, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return st, []string{fmt.Sprintf("the agentls settings must be an object: %v", err)}
	}
	st.Raw = raw
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for key, v := range obj {
		switch key {
		case "tools":
			var tools map[string]json.RawMessage
			if err := json.Unmarshal(v, &tools); err != nil {
				bad("agentls.tools must be an object; ignored")
				continue
			}
			for k, tv := range tools {
				if k != "disabled" {
					log.Info("unknown setting", "key", "agentls.tools."+k)
					continue
				}
				var names []string
				if err := json.Unmarshal(tv, &names); err != nil {
					bad("agentls.tools.disabled must be a list of tool names; ignored")
					continue
				}
				sort.Strings(names)
				st.Disabled = slices.Compact(names)
			}
		case "approval":
			var m map[string]string
			if err := json.Unmarshal(v, &m); err != nil {
				bad("agentls.approval must map tool names to \"allow\", \"ask\" or \"deny\"; ignored")
				continue
			}
			st.Approval = make(map[string]string, len(m))
			for name, mode := range m {
				switch mode {
				case "allow", "ask", "deny":
					st.Approval[name] = mode
				default:
					bad("agentls.approval.%s is %q; use \"allow\", \"ask\" or \"deny\" (ignored)", name, mode)
				}
			}
		case "clientConfirms":
			if err := json.Unmarshal(v, &st.ClientConfirms); err != nil {
				bad("agentls.clientConfirms must be true or false; ignored")
			}
		case "saveAfterEdit":
			if err := json.Unmarshal(v, &st.SaveAfterEdit); err != nil {
				st.SaveAfterEdit = true
				bad("agentls.saveAfterEdit must be true or false; ignored")
			}
		default:
			log.Info("setting not read by the server (a tool may read it)", "key", "agentls."+key)
		}
	}
	sort.Strings(problems)
	return st, problems
}

// didChangeConfiguration takes pushed settings, or pulls every folder's
// settings when the client answers workspace/configuration.
func (s *Server) didChangeConfiguration(raw json.RawMessage) {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	json.Unmarshal(raw, &p)
	s.mu.Lock()
	pull := s.client.configuration
	folders := slices.Clone(s.folders)
	s.mu.Unlock()
	if pull {
		for _, f := range folders {
			s.pullSettings(f)
		}
		return
	}
	sec := unwrapSection(p.Settings)
	if len(bytes.TrimSpace(sec)) == 0 || string(bytes.TrimSpace(sec)) == "null" {
		return
	}
	st, problems := parseSettings(sec, s.log)
	for _, msg := range problems {
		s.showMessage(2, "agentls settings: %s", msg)
	}
	s.mu.Lock()
	s.global = st
	s.mu.Unlock()
	for _, f := range folders {
		s.applySettings(f, st)
	}
}

// pullSettings asks the client for the folder's agentls section, off the
// read loop; an answer older than a later pull is dropped.
func (s *Server) pullSettings(f *Folder) {
	seq := f.cfgSeq.Add(1)
	s.goOwned(func() {
		var res []json.RawMessage
		err := s.conn.Call(s.ctx, "workspace/configuration", protocol.ConfigurationParams{
			Items: []protocol.ConfigurationItem{{ScopeURI: protocol.URI(f.URI), Section: "agentls"}},
		}, &res)
		if err != nil {
			s.log.Info("workspace/configuration failed", "folder", f.URI, "err", err)
			return
		}
		if f.cfgSeq.Load() != seq {
			return
		}
		s.mu.Lock()
		st := s.global
		s.mu.Unlock()
		if len(res) > 0 {
			v := bytes.TrimSpace(res[0])
			if len(v) > 0 && string(v) != "null" {
				var problems []string
				st, problems = parseSettings(v, s.log)
				for _, msg := range problems {
					s.showMessage(2, "agentls settings: %s", msg)
				}
			}
		}
		s.applySettings(f, st)
	})
}
