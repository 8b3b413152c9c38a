package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// The package doc says which pieces of go.lsp.dev/jsonrpc2 this package
// does not use and why. TestJSONRPC2Gaps holds those reasons against the
// version in go.mod (v0.10.0): when an upgrade fixes one, this test fails
// and the piece is worth another look. Each case also checks that this
// package gets the same input right.

type rwc struct {
	io.Reader
	io.Writer
}

func (rwc) Close() error { return nil }

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// theirWrite is what jsonrpc2's Stream.Write puts on the wire for m.
func theirWrite(m jsonrpc2.Message) ([]byte, error) {
	var out bytes.Buffer
	_, err := jsonrpc2.NewStream(rwc{strings.NewReader(""), &out}).Write(context.Background(), m)
	return out.Bytes(), err
}

func theirRead(in string) (jsonrpc2.Message, error) {
	m, _, err := jsonrpc2.NewStream(rwc{strings.NewReader(in), io.Discard}).Read(context.Background())
	return m, err
}

func ourRead(t *testing.T, in string) *Message {
	t.Helper()
	body, err := ReadFrame(bufio.NewReader(strings.NewReader(in)))
	if err != nil {
		t.Fatalf("ReadFrame(%q): %v", in, err)
	}
	var m Message
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("decoding %q: %v", body, err)
	}
	return &m
}

func TestJSONRPC2Gaps(t *testing.T) {
	t.Run("header names are case-sensitive", func(t *testing.T) {
		// HTTP header names, which LSP's base protocol follows, are not.
		in := "content-length: 15\r\n\r\n{\"method\":\"ok\"}"
		if _, err := theirRead(in); err == nil || !strings.Contains(err.Error(), "missing Content-Length") {
			t.Errorf("jsonrpc2 Stream.Read of a lower-case header: %v (fixed? see the package doc)", err)
		}
		if m := ourRead(t, in); m.Method != "ok" {
			t.Errorf("ours: %+v", m)
		}
	})

	t.Run("no bound on the body", func(t *testing.T) {
		// The stream allocates what the header says before a byte of the
		// body arrives; ours skips a body over MaxMessageBytes in pieces.
		n := MaxMessageBytes + 1
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := theirRead(fmt.Sprintf("Content-Length: %d\r\n\r\n{}", n))
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; err == nil || grew < uint64(n) {
			t.Errorf("jsonrpc2 Stream.Read of a %d-byte header: err %v, allocated %d bytes (fixed? see the package doc)", n, err, grew)
		}
	})

	t.Run("ids are int32 or string, the version 2.0", func(t *testing.T) {
		// A request whose id jsonrpc2.ID cannot hold fails to decode as a
		// whole, so it cannot be answered with its id; JSON-RPC allows any
		// number. Ours keeps the id's raw JSON.
		for _, id := range []string{`2147483648`, `1.5`, `-1e3`} {
			body := `{"jsonrpc":"2.0","id":` + id + `,"method":"x"}`
			if m, err := jsonrpc2.DecodeMessage([]byte(body)); err == nil {
				t.Errorf("jsonrpc2.DecodeMessage(%s) = %#v (fixed? see the package doc)", body, m)
			}
			if m := ourRead(t, frame(body)); !m.IsRequest() || string(m.ID) != id {
				t.Errorf("ours, id %s: %+v", id, m)
			}
		}
		body := `{"jsonrpc":"1.0","id":4,"method":"x"}`
		if m, err := jsonrpc2.DecodeMessage([]byte(body)); err == nil {
			t.Errorf("jsonrpc2.DecodeMessage(%s) = %#v (fixed? see the package doc)", body, m)
		}
	})

	t.Run("no null id", func(t *testing.T) {
		// The answer to a message whose id is unknown (a parse error) must
		// carry "id":null. jsonrpc2.ID's zero value, and a string id "",
		// encode as 0: vscode-jsonrpc numbers its requests from 0 (its
		// connection.ts at vscode-languageserver-node 04a5c71), so the
		// answer would go to its first request.
		for _, id := range []jsonrpc2.ID{{}, jsonrpc2.NewStringID("")} {
			r, _ := jsonrpc2.NewResponse(id, nil, jsonrpc2.NewError(jsonrpc2.ParseError, "x"))
			b, err := theirWrite(r)
			if err != nil || !bytes.Contains(b, []byte(`"id":0`)) {
				t.Errorf("jsonrpc2 response with id %#v: %s %v (fixed? see the package doc)", id, b, err)
			}
		}
		var out bytes.Buffer
		c := NewConn(strings.NewReader(frame(`{oops`)), &out, nil)
		c.Run(func(*Message) {})
		c.Close()
		if !strings.Contains(out.String(), `"id":null`) {
			t.Errorf("ours: %q", out.String())
		}
	})

	t.Run("an error without a code gets code 0", func(t *testing.T) {
		r, _ := jsonrpc2.NewResponse(jsonrpc2.NewNumberID(3), nil, io.ErrUnexpectedEOF)
		if b, _ := theirWrite(r); !bytes.Contains(b, []byte(`"code":0`)) {
			t.Errorf("jsonrpc2 response with a plain error: %s (fixed? see the package doc)", b)
		}
	})
}

// Encoding and decoding costs, ours against jsonrpc2's message types, on a
// small request and on messages of about 1 MiB (the package doc quotes
// them): go test -run X -bench JSONRPC2 ./lsp/internal/wire/
func BenchmarkJSONRPC2(b *testing.B) {
	small := []byte(`{"jsonrpc":"2.0","id":12,"method":"workspace/executeCommand","params":{"command":"agentls.callTool","arguments":[{"name":"read_file","arguments":{"path":"a.txt"}}]}}`)
	big := []byte(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.go","languageId":"go","version":1,"text":"` +
		strings.Repeat(`func x() { return \"y\" }\n`, 40000) + `"}}}`)
	for _, in := range []struct {
		name string
		body []byte
	}{{"small", small}, {"1MiB", big}} {
		b.Run("decode/"+in.name+"/ours", func(b *testing.B) {
			b.SetBytes(int64(len(in.body)))
			for b.Loop() {
				var m Message
				if err := json.Unmarshal(in.body, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("decode/"+in.name+"/jsonrpc2", func(b *testing.B) {
			b.SetBytes(int64(len(in.body)))
			for b.Loop() {
				if _, err := jsonrpc2.DecodeMessage(in.body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	type result struct {
		Content string `json:"content"`
	}
	res := result{Content: strings.Repeat("a line of output with \"quotes\" and <tags>\n", 25000)}
	discard := &Conn{done: make(chan struct{}), wake: make(chan struct{}, 1)}
	b.Run("reply/1MiB/ours", func(b *testing.B) {
		for b.Loop() {
			discard.Reply(json.RawMessage("12"), res, nil)
			discard.queue = nil
		}
	})
	b.Run("reply/1MiB/jsonrpc2", func(b *testing.B) {
		for b.Loop() {
			r, _ := jsonrpc2.NewResponse(jsonrpc2.NewNumberID(12), res, nil)
			if _, err := theirWrite(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("notify/1MiB/ours", func(b *testing.B) {
		for b.Loop() {
			discard.Notify("x", res)
			discard.queue = nil
		}
	})
	b.Run("notify/1MiB/jsonrpc2", func(b *testing.B) {
		for b.Loop() {
			n, _ := jsonrpc2.NewNotification("x", res)
			if _, err := theirWrite(n); err != nil {
				b.Fatal(err)
			}
		}
	})
}
