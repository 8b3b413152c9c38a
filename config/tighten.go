package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Tighten applies a workspace's settings file (ws, from WorkspacePath) to
// the settings the user chose (user, every other layer merged). A file
// inside the workspace comes with the repository, so it may only make the
// agent's reach smaller: it adds to deny lists and disabled tools, raises
// approvals (allow < ask < deny), turns the sandbox on, turns
// bash.askFallback to "deny" and webFetch.allowPrivate and clientConfirms
// off. Everything else it says — bash.allow, a weaker approval, mcpServers,
// a looser sandbox, "!pattern" exceptions to secrets.deny — is ignored and
// named in ignored, so the user can be told.
func Tighten(user, ws json.RawMessage) (out json.RawMessage, ignored []string) {
	w, ok := object(ws)
	if !ok {
		return user, nil
	}
	u, _ := object(user)
	if u == nil {
		u = map[string]any{}
	}
	ign := func(key, why string) { ignored = append(ignored, key+" ("+why+")") }

	for key, v := range w {
		switch key {
		case "tools":
			m, _ := v.(map[string]any)
			for k, tv := range m {
				if k != "disabled" {
					ign("tools."+k, "not a restriction")
					continue
				}
				names, ok := strings_(tv)
				if !ok {
					ign("tools.disabled", "not a list of tool names")
					continue
				}
				setPath(u, union(getStrings(u, "tools", "disabled"), names), "tools", "disabled")
			}
			if m == nil {
				ign("tools", "not an object")
			}
		case "approval":
			m, ok := v.(map[string]any)
			if !ok {
				ign("approval", "not an object")
				continue
			}
			for tool, mv := range m {
				mode, _ := mv.(string)
				cur, has := get(u, "approval", tool).(string)
				switch {
				case rank(mode) < 0:
					ign("approval."+tool, "not allow, ask or deny")
				case has && rank(mode) <= rank(cur):
					if rank(mode) < rank(cur) {
						ign("approval."+tool, "weaker than the user's "+cur)
					}
				case !has && mode == "allow":
					ign("approval."+tool, "a workspace cannot allow a tool")
				default:
					setPath(u, mode, "approval", tool)
				}
			}
		case "bash":
			m, ok := v.(map[string]any)
			if !ok {
				ign("bash", "not an object")
				continue
			}
			for k, bv := range m {
				switch k {
				case "deny":
					pats, ok := strings_(bv)
					if !ok {
						ign("bash.deny", "not a list of patterns")
						continue
					}
					setPath(u, union(getStrings(u, "bash", "deny"), pats), "bash", "deny")
				case "sandbox":
					mode, _ := bv.(string)
					cur, _ := get(u, "bash", "sandbox").(string)
					want, known := sandboxRank(mode)
					have, _ := sandboxRank(cur)
					switch {
					case !known:
						ign("bash.sandbox", "unknown mode "+fmt.Sprintf("%q", mode))
					case want > have:
						setPath(u, mode, "bash", "sandbox")
					case want < have:
						ign("bash.sandbox", "a workspace cannot loosen the sandbox")
					case mode != cur && cur != "":
						ign("bash.sandbox", "the user chose "+cur)
					}
				case "askFallback":
					if bv == "deny" {
						setPath(u, "deny", "bash", "askFallback")
					} else {
						ign("bash.askFallback", "a workspace may only set \"deny\"")
					}
				case "network":
					if bv == false {
						setPath(u, false, "bash", "network")
					} else {
						ign("bash.network", "a workspace may only set false")
					}
				case "allow":
					ign("bash.allow", "a workspace cannot allow commands")
				default:
					ign("bash."+k, "not a restriction")
				}
			}
		case "secrets":
			m, _ := v.(map[string]any)
			pats, ok := strings_(m["deny"])
			if !ok {
				ign("secrets", "only secrets.deny, a list of patterns, is read")
				continue
			}
			var add []string
			for _, p := range pats {
				if strings.HasPrefix(p, "!") {
					ign("secrets.deny "+p, "a workspace cannot exempt a file")
					continue
				}
				add = append(add, p)
			}
			setPath(u, union(getStrings(u, "secrets", "deny"), add), "secrets", "deny")
			for k := range m {
				if k != "deny" {
					ign("secrets."+k, "not a restriction")
				}
			}
		case "webFetch":
			m, _ := v.(map[string]any)
			for k, fv := range m {
				if k == "allowPrivate" && fv == false {
					setPath(u, false, "webFetch", "allowPrivate")
				} else {
					ign("webFetch."+k, "a workspace may only set allowPrivate to false")
				}
			}
		case "clientConfirms":
			if v == false {
				u["clientConfirms"] = false
			} else {
				ign("clientConfirms", "a workspace may only set it to false")
			}
		default:
			ign(key, "not a restriction")
		}
	}
	sort.Strings(ignored)
	b, err := json.Marshal(u)
	if err != nil {
		return user, ignored
	}
	return b, ignored
}

// rank orders approval modes by strictness; -1 for anything else.
func rank(mode string) int {
	return slices.Index([]string{"allow", "ask", "deny"}, mode)
}

func get(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func getStrings(m map[string]any, path ...string) []string {
	s, _ := strings_(get(m, path...))
	return s
}

// strings_ reads a JSON list of strings.
func strings_(v any) ([]string, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// setPath sets m[path…] = v, creating (or replacing non-object) parents.
func setPath(m map[string]any, v any, path ...string) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// IgnoredMessage says in one line which workspace settings were ignored.
func IgnoredMessage(path string, ignored []string) string {
	return fmt.Sprintf("%s may only tighten the settings; ignored: %s", path, strings.Join(ignored, "; "))
}

// sandboxRank orders bash.sandbox modes by how much they confine: "off"
// (and the old "none") < "auto" (the default, "") < "strict" (and the old
// "bwrap", which meant no network).
func sandboxRank(mode string) (int, bool) {
	switch mode {
	case "off", "none":
		return 0, true
	case "", "auto":
		return 1, true
	case "strict", "bwrap":
		return 2, true
	}
	return 0, false
}
