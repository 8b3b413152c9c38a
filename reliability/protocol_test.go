package reliability

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

// wrongValues are JSON values of every type, for fields that want another.
var wrongValues = []string{
	`null`, `true`, `0`, `-1`, `1.5`, `1e400`, `"x"`, `""`, `[]`, `[1,"a",null]`, `{}`, `{"a":{"b":[]}}`,
	`"\ud800"`, `9223372036854775808`, `"` + strings.Repeat("A", 70000) + `"`,
}

// validParams are well-formed params of the methods the server accepts;
// the test breaks each field of each in turn.
func validParams(root string) map[string]map[string]any {
	uri := lsptest.URI(filepath.Join(root, "doc.txt"))
	return map[string]map[string]any{
		"textDocument/didOpen": {"textDocument": map[string]any{"uri": uri, "languageId": "plaintext", "version": 1, "text": "hello\n"}},
		"textDocument/didChange": {
			"textDocument":   map[string]any{"uri": uri, "version": 2},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 1}}, "text": "J"}},
		},
		"textDocument/didSave":                {"textDocument": map[string]any{"uri": uri}, "text": "x"},
		"textDocument/didClose":               {"textDocument": map[string]any{"uri": uri}},
		"workspace/didChangeConfiguration":    {"settings": map[string]any{"agentls": map[string]any{"saveAfterEdit": true}}},
		"workspace/didChangeWatchedFiles":     {"changes": []any{map[string]any{"uri": uri, "type": 2}}},
		"workspace/didChangeWorkspaceFolders": {"event": map[string]any{"added": []any{}, "removed": []any{}}},
		"$/cancelRequest":                     {"id": 1},
		"$/setTrace":                          {"value": "off"},
		"workspace/executeCommand":            {"command": "agentls.callTool", "arguments": []any{map[string]any{"name": "read_file", "arguments": map[string]any{"path": "a.txt"}}}},
		"shutdown":                            nil,
	}
}

// mutations lists, for params p, p with one field (at any depth, arrays
// included) replaced by each wrong value, plus wrong values for p itself.
func mutations(p any) []string {
	var out []string
	out = append(out, wrongValues...)
	var walk func(path []any)
	walk = func(path []any) {
		v := get(p, path)
		switch x := v.(type) {
		case map[string]any:
			for k := range x {
				walk(append(append([]any{}, path...), k))
			}
		case []any:
			for i := range x {
				walk(append(append([]any{}, path...), i))
			}
		}
		if len(path) == 0 {
			return
		}
		for _, w := range wrongValues {
			var wv any
			json.Unmarshal([]byte(w), &wv)
			if w == `1e400` || w == `9223372036854775808` || w == `"\ud800"` {
				wv = json.RawMessage(w) // kept as written: not representable
			}
			b, err := json.Marshal(set(deepCopy(p), path, wv))
			if err == nil {
				out = append(out, string(b))
			}
		}
		// And the field left out.
		if b, err := json.Marshal(set(deepCopy(p), path, nil)); err == nil {
			out = append(out, string(b))
		}
	}
	walk(nil)
	return out
}

func get(v any, path []any) any {
	for _, k := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[k.(string)]
		case []any:
			v = x[k.(int)]
		}
	}
	return v
}

func set(root any, path []any, val any) any {
	parent := get(root, path[:len(path)-1])
	switch x := parent.(type) {
	case map[string]any:
		if val == nil {
			delete(x, path[len(path)-1].(string))
		} else {
			x[path[len(path)-1].(string)] = val
		}
	case []any:
		x[path[len(path)-1].(int)] = val
	}
	return root
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// TestProtocolHostileInput sends the server malformed JSON, messages of the
// wrong shape, wrong types in every field of every message it accepts,
// unknown methods and a 100 MB message. Each request gets a response with
// its id; after each batch of garbage a tool call still works, and at the
// end the session shuts down cleanly.
func TestProtocolHostileInput(t *testing.T) {
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{"a.txt": "alpha\n", "doc.txt": "hello\n"})
	var log syncBuffer
	c := startRaw(t, lsp.Options{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	defer func() {
		t.Logf("server log: %d bytes", len(log.String()))
		// A recovered panic keeps the server up, but it is a bug all the same.
		if l := log.String(); strings.Contains(l, "panic") {
			i := strings.Index(l, "panic")
			t.Errorf("the server panicked:\n%s", short(l[max(0, i-300):], 2000))
		}
	}()

	// Before initialize: requests are refused, notifications dropped.
	if m := c.request("workspace/executeCommand", map[string]any{"command": "agentls.listTools", "arguments": []any{map[string]any{}}}); m.Error == nil || m.Error.Code != -32002 {
		t.Errorf("request before initialize: %s", m.raw)
	}
	c.writeFrame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{}}`)
	// Broken initialize params, then a good initialize.
	for _, p := range []string{`{"processId":"x"}`, `{"capabilities":5}`, `[]`, `"s"`, `{"workspaceFolders":[{"uri":5}]}`, `{"rootUri":{}}`} {
		c.writeFrame(`{"jsonrpc":"2.0","id":"init-bad","method":"initialize","params":` + p + `}`)
		m := c.waitID(`"init-bad"`)
		if m.Error == nil {
			// Some shapes may be accepted (ignored fields); then the
			// session is initialized and the rest of the test goes on.
			t.Logf("initialize with %s accepted", p)
			break
		}
	}
	init := c.request("initialize", map[string]any{
		"processId":        os.Getpid(),
		"capabilities":     map[string]any{},
		"workspaceFolders": []any{map[string]any{"uri": lsptest.URI(root), "name": "root"}},
	})
	if init.Error != nil && !strings.Contains(init.Error.Message, "already") {
		t.Fatalf("initialize: %s", init.raw)
	}
	c.writeFrame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	c.ping("initialize")

	// Bodies that are not a JSON-RPC message at all.
	garbage := []string{
		`{`, `}`, `not json`, ``, ` `, `[]`, `[1,2]`, `[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]`, `null`, `123`, `"str"`, `true`,
		`{}`, `{"jsonrpc":"2.0"}`, `{"jsonrpc":"1.0","id":1}`, `{"jsonrpc":"2.0","id":77777}`, `{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","method":5,"id":7}`, `{"jsonrpc":"2.0","method":null,"id":8}`, `{"jsonrpc":"2.0","method":"","id":9}`,
		`{"jsonrpc":"2.0","id":{},"method":"x/y"}`, `{"jsonrpc":"2.0","id":[1],"method":"x/y"}`, `{"jsonrpc":"2.0","id":true,"method":"x/y"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"x/y"}`, `{"jsonrpc":"2.0","id":1e400,"method":"x/y"}`, `{"jsonrpc":"2.0","id":-1,"method":"x/y"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"x/y\"}", "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"\xff\",\"text\":\"\xc3\x28\"}}}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\x00\",\"method\":\"\x00\"}",
		`{"jsonrpc":"2.0","id":5,"method":"x/y","params":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`,
		`{"jsonrpc":"2.0","id":6,"method":"workspace/executeCommand","params":{"command":"agentls.listTools","arguments":[` + strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat(`}`, 5000) + `]}}`,
		`{"jsonrpc":"2.0","id":10,"method":"x/y","params":{"a":1,"a":2}}`,
		`{"jsonrpc":"2.0","id":11,"method":"workspace/executeCommand"}`,
		`{"jsonrpc":"2.0","id":12,"method":"workspace/executeCommand","params":{"command":"agentls.callTool"}}`,
		`{"jsonrpc":"2.0","id":13,"method":"workspace/executeCommand","params":{"command":"agentls.callTool","arguments":[]}}`,
		`{"jsonrpc":"2.0","id":14,"method":"workspace/executeCommand","params":{"command":"agentls.callTool","arguments":[5]}}`,
		`{"jsonrpc":"2.0","id":15,"method":"workspace/executeCommand","params":{"command":"agentls.callTool","arguments":[{"name":5}]}}`,
		`{"jsonrpc":"2.0","id":16,"method":"workspace/executeCommand","params":{"command":"agentls.callTool","arguments":[{"name":"read_file","arguments":"path"}]}}`,
		`{"jsonrpc":"2.0","id":17,"method":"workspace/executeCommand","params":{"command":"agentls.callTools","arguments":[{"calls":{}}]}}`,
		`{"jsonrpc":"2.0","id":18,"method":"workspace/executeCommand","params":{"command":"agentls.callTools","arguments":[{"calls":[5,null,{"name":[]}]}]}}`,
		`{"jsonrpc":"2.0","id":19,"method":"workspace/executeCommand","params":{"command":"no.such.command","arguments":[{}]}}`,
		`{"jsonrpc":"2.0","id":20,"method":"workspace/executeCommand","params":{"command":"agentls.listTools","arguments":[{"workspace":5}]}}`,
		`{"jsonrpc":"2.0","id":21,"method":"workspace/executeCommand","params":{"command":"agentls.callTool","arguments":[{"name":"read_file","arguments":{"path":"a.txt"},"workspace":"file:///nonexistent"}]}}`,
		`{"jsonrpc":"2.0","id":22,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":23,"method":"textDocument/definition","params":{}}`,
		`{"jsonrpc":"2.0","id":24,"method":"$/cancelRequest","params":{"id":{}}}`,
		`{"jsonrpc":"2.0","method":"$/unknownNotification","params":5}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":[[[]]]}}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest"}`,
		`{"jsonrpc":"2.0","id":25,"method":"workspace/executeCommand","params":{"command":"agentls.callTool","arguments":[{"name":"read_file","arguments":{"path":"a.txt"}}],"workDoneToken":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":26,"method":"workspace/executeCommand","params":{"command":"agentls.callTool","arguments":[{"name":"read_file","arguments":{"path":"a.txt"}}],"workDoneToken":[]}}`,
	}
	for i, g := range garbage {
		if err := c.writeFrame(g); err != nil {
			t.Fatalf("garbage %d: the server closed its input: %v", i, err)
		}
		// A request with a usable id must be answered with that id.
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method any             `json:"method"`
		}
		if json.Unmarshal([]byte(g), &probe) == nil && len(probe.ID) > 0 {
			if s, ok := probe.Method.(string); ok && s != "" && s != "$/cancelRequest" && (probe.ID[0] == '"' || probe.ID[0] >= '0' && probe.ID[0] <= '9' || probe.ID[0] == '-') && !strings.Contains(string(probe.ID), "e400") {
				m := c.waitID(string(probe.ID))
				if m.Error == nil && !strings.Contains(g, "listTools") && !strings.Contains(g, "callTool") {
					t.Errorf("garbage %d %s: answered without an error: %s", i, short(g, 80), short(string(m.raw), 200))
				}
			}
		}
		c.ping(fmt.Sprintf("garbage %d (%s)", i, short(g, 60)))
	}

	// Wrong types in every field of every message the server accepts.
	sent := 0
	for method, p := range validParams(root) {
		if method == "shutdown" {
			continue
		}
		for j, body := range mutations(p) {
			id := fmt.Sprintf(`"m%d"`, sent)
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, body)
			isNotification := method != "workspace/executeCommand"
			if isNotification {
				msg = fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, body)
			}
			if err := c.writeFrame(msg); err != nil {
				t.Fatalf("%s mutation %d: the server closed its input: %v", method, j, err)
			}
			sent++
			if !isNotification {
				c.waitID(id)
			}
		}
		c.ping(method + " with wrong types")
	}
	t.Logf("%d malformed messages, %d messages with wrong types", len(garbage), sent)

	// The document state survives: a full change resets the buffer, which
	// read_file then shows.
	doc := filepath.Join(root, "doc.txt")
	c.writeFrame(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"plaintext","version":100,"text":"reset\n"}}}`, lsptest.URI(doc)))
	c.writeFrame(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":101},"contentChanges":[{"text":"final text\n"}]}}`, lsptest.URI(doc)))
	m := c.request("workspace/executeCommand", map[string]any{"command": "agentls.callTool", "arguments": []any{map[string]any{"name": "read_file", "arguments": map[string]any{"path": "doc.txt"}}}})
	if !strings.Contains(string(m.Result), "final text") {
		t.Errorf("read_file after the storm: %s", m.raw)
	}

	// A 100 MB message is dropped with an error; the stream stays in step.
	big := `{"jsonrpc":"2.0","id":"big","method":"workspace/executeCommand","params":{"command":"agentls.callTool","arguments":[{"name":"write_file","arguments":{"path":"big.txt","content":"` + strings.Repeat("x", 100<<20) + `"}}]}}`
	if err := c.writeFrame(big); err != nil {
		t.Fatalf("100 MB message: %v", err)
	}
	big = ""
	if m, ok := c.waitFor(func(m rawMsg) bool { return m.Error != nil && strings.Contains(m.Error.Message, "exceeds") }); !ok {
		t.Error("no error for the 100 MB message")
	} else {
		t.Logf("100 MB message: %s", short(m.Error.Message, 120))
	}
	c.ping("a 100 MB message")
	if _, err := os.Stat(filepath.Join(root, "big.txt")); err == nil {
		t.Error("the dropped message was executed")
	}

	// After shutdown: requests refused, the tool is not run; exit is 0.
	if m := c.request("shutdown", nil); m.Error != nil {
		t.Fatalf("shutdown: %s", m.raw)
	}
	for _, method := range []string{"workspace/executeCommand", "initialize", "shutdown", "x/unknown"} {
		m := c.request(method, map[string]any{"command": "agentls.callTool", "arguments": []any{map[string]any{"name": "write_file", "arguments": map[string]any{"path": "after.txt", "content": "x"}}}})
		if m.Error == nil && method != "shutdown" {
			t.Errorf("%s after shutdown answered: %s", method, m.raw)
		}
	}
	c.writeFrame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x","text":"x","version":1}}}`)
	if _, err := os.Stat(filepath.Join(root, "after.txt")); err == nil {
		t.Error("a tool ran after shutdown")
	}
	c.writeFrame(`{"jsonrpc":"2.0","method":"exit"}`)
	code, ok := c.waitExit()
	if !ok || code != 0 {
		t.Errorf("exit: code %d, returned %v", code, ok)
	}
}

// TestProtocolBrokenFraming: framing the server cannot resynchronise
// after (a header line without a colon, a bad Content-Length, a body cut
// short) ends the connection without a panic, in bounded time, with exit
// status 1 (no shutdown was received).
func TestProtocolBrokenFraming(t *testing.T) {
	for _, in := range []string{
		"hello\r\n\r\n",
		"Content-Length: abc\r\n\r\n{}",
		"Content-Length: -5\r\n\r\n{}",
		"Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Type: application/json\r\n\r\n{}",
		"Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\"}",
		"Content-Length: 2\r\n",
		"\x00\x01\x02",
		"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}}",
	} {
		c := startRaw(t, lsp.Options{})
		c.writeBytes([]byte(in))
		c.w.Close()
		code, ok := c.waitExit()
		if !ok {
			t.Fatalf("%q: the server did not return", in)
		}
		if code != 1 {
			t.Errorf("%q: exit status %d, want 1", in, code)
		}
	}
}
