package registry

import (
	"fmt"
	"slices"
	"strings"
)

// unknownTool is the message for a call of a name the registry lacks.
func (r *Registry) unknownTool(name string) string {
	shown := clip(name, 64)
	if prefix, ok := r.suspendedPrefixOf(name); ok {
		return fmt.Sprintf("tool %q is unavailable for now: the tools under %q are suspended (their server is disconnected); try again later or use another tool", shown, prefix)
	}
	names := r.names()
	if len(names) == 0 {
		return fmt.Sprintf("unknown tool %q: no tools are available", shown)
	}
	if hint := didYouMean(name, names); hint != "" {
		return fmt.Sprintf("unknown tool %q%s", shown, hint)
	}
	const maxListed = 40
	if len(names) > maxListed {
		return fmt.Sprintf("unknown tool %q; available tools include %s, … (%d in all)", shown, strings.Join(names[:maxListed], ", "), len(names))
	}
	return fmt.Sprintf("unknown tool %q; available tools: %s", shown, strings.Join(names, ", "))
}

// didYouMean returns "; did you mean a, b?" with up to three known names
// close to name (by edit distance, case-insensitive, or sharing a
// namespace-free suffix), or "".
func didYouMean(name string, known []string) string {
	type cand struct {
		name string
		dist int
	}
	lname := strings.ToLower(name)
	limit := max(2, len(name)/3)
	var cands []cand
	for _, k := range known {
		lk := strings.ToLower(k)
		d := editDistance(lname, lk)
		switch {
		case d <= limit:
		case len(lname) >= 3 && (strings.HasSuffix(lk, "__"+lname) || strings.Contains(lk, lname)):
			d = limit + 1 // a namespaced or longer name holding the asked one
		default:
			continue
		}
		cands = append(cands, cand{k, d})
	}
	if len(cands) == 0 {
		return ""
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.name, b.name)
	})
	if len(cands) > 3 {
		cands = cands[:3]
	}
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.name
	}
	return "; did you mean " + strings.Join(out, ", ") + "?"
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	if len(a) > 256 || len(b) > 256 { // not a typo of a tool name
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// suspendedPrefixOf reports the suspended prefix holding back the named
// tool.
func (r *Registry) suspendedPrefixOf(name string) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for prefix, held := range r.suspended {
		for _, e := range held {
			if e.schema.Name == name {
				return prefix, true
			}
		}
	}
	return "", false
}
