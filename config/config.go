// Package config reads the agentls settings that live in files rather than
// in an editor: the user's file ($XDG_CONFIG_HOME/agentls/settings.json),
// and a workspace's own file (.agentls/settings.json), which may only
// tighten what the user allowed.
//
// Both hold the keys of the editor's "agentls" settings section, nested
// ({"bash": {"allow": ["go test"]}}) or dotted ({"bash.allow": […]}).
// The layers, lowest first:
//
//  1. the user file;
//  2. what the session's client gives: an editor's settings, or the
//     command line's --settings (objects merge key by key, a value replaces);
//  3. the workspace file, applied by Tighten: only deny lists, disabled
//     tools, stricter approvals and a stricter sandbox take effect.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// UserPath is the user's settings file: $XDG_CONFIG_HOME/agentls/settings.json,
// else ~/.config/agentls/settings.json.
func UserPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "~"
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "agentls", "settings.json")
}

// WorkspacePath is the settings file of the workspace folder root.
func WorkspacePath(root string) string {
	return filepath.Join(root, ".agentls", "settings.json")
}

// maxFile bounds a settings file: it is read whole.
const maxFile = 1 << 20

// Load reads the settings file at path: nil when it does not exist, else
// its object with dotted keys expanded into nested objects. Malformed JSON
// is an error naming the file, the line and the column.
func Load(path string) (json.RawMessage, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("settings file %s: %w", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("settings file %s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("settings file %s: %w", path, err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("settings file %s: larger than %d bytes", path, maxFile)
	}
	return Parse(path, data)
}

// Parse reads a settings object from data; name says where it came from
// in errors. Empty data is no settings.
func Parse(name string, data []byte) (json.RawMessage, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %s", where(name, data, err), strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		off := int(dec.InputOffset())
		off += len(data[off:]) - len(bytes.TrimLeft(data[off:], " \t\r\n"))
		return nil, fmt.Errorf("%s: text after the settings object", position(name, data, off))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: the settings must be a JSON object ({\"bash\": {\"allow\": [\"go test\"]}}), not %s", name, kind(v))
	}
	obj, err := nest(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	// A copy of an editor's settings: {"agentls": {…}} or "agentls.bash.allow".
	if inner, ok := obj["agentls"].(map[string]any); ok && len(obj) == 1 {
		obj = inner
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return out, nil
}

// where names the position of a decoding error: file:line:column.
func where(name string, data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return position(name, data, int(se.Offset)-1) // Offset counts the bad byte
	case errors.As(err, &te):
		return position(name, data, int(te.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return position(name, data, len(data))
	}
	return name
}

func position(name string, data []byte, off int) string {
	off = min(max(off, 0), len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("%s:%d:%d", name, line, col)
}

func kind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

// nest expands dotted keys ("bash.allow") into nested objects, recursively.
func nest(obj map[string]any) (map[string]any, error) {
	out := map[string]any{}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic conflicts
	for _, k := range keys {
		v := obj[k]
		if m, ok := v.(map[string]any); ok {
			var err error
			if v, err = nest(m); err != nil {
				return nil, err
			}
		}
		parts := strings.Split(k, ".")
		dst := out
		for i, p := range parts[:len(parts)-1] {
			next, ok := dst[p]
			if !ok {
				m := map[string]any{}
				dst[p] = m
				dst = m
				continue
			}
			m, ok := next.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("key %q conflicts with %q, which is not an object", k, strings.Join(parts[:i+1], "."))
			}
			dst = m
		}
		last := parts[len(parts)-1]
		if old, ok := dst[last].(map[string]any); ok {
			if m, ok := v.(map[string]any); ok {
				dst[last] = merge(old, m)
				continue
			}
		}
		dst[last] = v
	}
	return out, nil
}

// Merge lays over on top of base: objects merge key by key, any other
// value of over replaces base's. Either may be nil.
func Merge(base, over json.RawMessage) json.RawMessage {
	b, bok := object(base)
	o, ook := object(over)
	switch {
	case !ook:
		return base
	case !bok:
		out, _ := json.Marshal(o)
		return out
	}
	out, _ := json.Marshal(merge(b, o))
	return out
}

func merge(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bm, bok := out[k].(map[string]any)
		om, ook := v.(map[string]any)
		if bok && ook {
			out[k] = merge(bm, om)
		} else {
			out[k] = v
		}
	}
	return out
}

// object decodes raw as a settings object with dotted keys nested.
func object(raw json.RawMessage) (map[string]any, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, false
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&m) != nil || m == nil {
		return nil, false
	}
	n, err := nest(m)
	if err != nil {
		return m, true
	}
	return n, true
}

// User reads the user's settings file (UserPath); nil when there is none.
func User() (json.RawMessage, error) { return Load(UserPath()) }

// ForWorkspace applies the settings file of the workspace folder root, if
// any, to settings (Tighten). ignored names what the file said that a
// workspace may not; err reports a file that cannot be read or parsed, in
// which case settings are returned unchanged.
func ForWorkspace(root string, settings json.RawMessage) (out json.RawMessage, ignored []string, err error) {
	path := WorkspacePath(root)
	ws, err := Load(path)
	if err != nil || ws == nil {
		return settings, nil, err
	}
	out, ignored = Tighten(settings, ws)
	return out, ignored, nil
}
