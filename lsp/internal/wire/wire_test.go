package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadFrame(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("Content-Length: 2\r\nContent-Type: x\r\n\r\n{}content-length: 4\r\n\r\nnull"))
	for _, want := range []string{"{}", "null"} {
		b, err := ReadFrame(r)
		if err != nil || string(b) != want {
			t.Fatalf("ReadFrame = %q, %v; want %q", b, err, want)
		}
	}
	if _, err := ReadFrame(r); !errors.Is(err, io.EOF) {
		t.Errorf("at the end: %v, want EOF", err)
	}
	for _, bad := range []string{"Content-Length: x\r\n\r\n", "\r\n{}", "no colon\r\n\r\n", "Content-Length: 10\r\n\r\n{}"} {
		if _, err := ReadFrame(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("ReadFrame(%q) succeeded", bad)
		}
	}
}

func TestIDKey(t *testing.T) {
	same := [][2]string{{`5`, `5.0`}, {`5`, ` 5 `}, {`"a"`, `"\u0061"`}}
	for _, p := range same {
		if IDKey(json.RawMessage(p[0])) != IDKey(json.RawMessage(p[1])) {
			t.Errorf("IDKey(%s) != IDKey(%s)", p[0], p[1])
		}
	}
	if IDKey(json.RawMessage(`5`)) == IDKey(json.RawMessage(`"5"`)) {
		t.Errorf("a number and a string id must differ")
	}
}

// pipePair connects two Conns.
func pipePair() (a, b *Conn) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	a = NewConn(ar, aw, closeAll{ar, aw})
	b = NewConn(br, bw, closeAll{br, bw})
	return a, b
}

type closeAll []io.Closer

func (c closeAll) Close() error {
	for _, x := range c {
		x.Close()
	}
	return nil
}

func TestCallReplyAndParseError(t *testing.T) {
	a, b := pipePair()
	defer a.Close()
	defer b.Close()
	got := make(chan *Message, 4)
	go a.Run(func(m *Message) { got <- m })
	go b.Run(func(m *Message) {
		switch m.Method {
		case "echo":
			b.Reply(m.ID, m.Params, nil)
		case "fail":
			b.Reply(m.ID, nil, Errorf(CodeInvalidParams, "bad"))
		case "note":
			b.Notify("noted", m.Params)
		}
	})
	ctx := context.Background()
	var out map[string]int
	if err := a.Call(ctx, "echo", map[string]int{"x": 1}, &out); err != nil || out["x"] != 1 {
		t.Fatalf("echo: %v %v", out, err)
	}
	var we *Error
	if err := a.Call(ctx, "fail", nil, nil); !errors.As(err, &we) || we.Code != CodeInvalidParams {
		t.Fatalf("fail: %v", err)
	}
	if err := a.CallID(ctx, json.RawMessage(`"str-id"`), "echo", 7, &out); err == nil {
		t.Fatalf("decoding 7 into a map should fail")
	}
	// A body that is not JSON gets a parse error; the connection goes on.
	a.WriteRaw([]byte("{oops"))
	a.Notify("note", "hi")
	m := <-got
	if m.Method != "noted" || string(m.Params) != `"hi"` {
		t.Fatalf("after a malformed body: %+v", m)
	}
	a.Close()
	if err := a.Call(ctx, "echo", 1, nil); !errors.Is(err, ErrClosed) && err == nil {
		t.Errorf("call on a closed conn: %v", err)
	}
}

// FuzzConnRun feeds arbitrary bytes to a connection's read loop: it must
// neither panic nor hang, whatever the headers and bodies hold.
func FuzzConnRun(f *testing.F) {
	for _, seed := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 52\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}}",
		"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}",
		"Content-Length: 5\r\n\r\n{oops",
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 3\r\n\r\n\xff\xfe\"",
		"Content-Length: 10\r\n\r\n{}",
		"garbage without headers",
		"Content-Length: 27\r\n\r\n{\"method\":\"m\",\"id\":[1,2]} ",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := NewConn(bytes.NewReader(data), io.Discard, nil)
		n := 0
		c.Run(func(m *Message) {
			n++
			if m.IsRequest() {
				c.Reply(m.ID, nil, Errorf(CodeMethodNotFound, "no"))
			}
		})
		c.Close()
	})
}

func TestTooLargeMessageIsSkipped(t *testing.T) {
	defer func(n int) { MaxMessageBytes = n }(MaxMessageBytes)
	MaxMessageBytes = 20
	var out bytes.Buffer
	in := "Content-Length: 30\r\n\r\n" + strings.Repeat("x", 30) +
		"Content-Length: 15\r\n\r\n{\"method\":\"ok\"}"
	c := NewConn(strings.NewReader(in), &out, nil)
	var got []string
	c.Run(func(m *Message) { got = append(got, m.Method) })
	if len(got) != 1 || got[0] != "ok" {
		t.Errorf("messages after a too large one: %v", got)
	}
	if !strings.Contains(out.String(), "exceeds the limit") {
		t.Errorf("no error answer for the dropped message: %q", out.String())
	}
}
