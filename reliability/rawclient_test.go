package reliability

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/lsp"
)

// rawClient talks to an in-process server byte by byte, so that a test can
// send anything at all. It reads every frame the server writes; requests
// from the server get a null result, so the server never waits on us.
type rawClient struct {
	t    testing.TB
	w    io.WriteCloser
	mu   sync.Mutex
	msgs []rawMsg
	news chan struct{} // closed and replaced on every message
	exit chan int
	// readErr is the error that ended the reader (nil while it runs).
	readErr error
	done    chan struct{}
	nextID  int
}

type rawMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw []byte
}

func startRaw(t testing.TB, opts lsp.Options) *rawClient {
	t.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	c := newRawClient(t, c2sW)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		code := lsp.New(opts).Run(ctx, c2sR, s2cW, pipeClosers{c2sR, s2cW})
		s2cW.Close()
		c.exit <- code
	}()
	go c.read(s2cR)
	t.Cleanup(func() {
		cancel()
		c2sW.Close()
		s2cR.Close()
		<-c.done
	})
	return c
}

// newRawClient is a client writing to w; start its reader with go c.read(r).
func newRawClient(t testing.TB, w io.WriteCloser) *rawClient {
	return &rawClient{t: t, w: w, news: make(chan struct{}), exit: make(chan int, 1), done: make(chan struct{}), nextID: 1000}
}

type pipeClosers []io.Closer

func (p pipeClosers) Close() error {
	for _, c := range p {
		c.Close()
	}
	return nil
}

func (c *rawClient) read(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReader(r)
	for {
		body, err := readFrame(br)
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			close(c.news)
			c.news = make(chan struct{})
			c.mu.Unlock()
			return
		}
		var m rawMsg
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("server wrote a frame that is not JSON: %v: %q", err, short(string(body), 200))
			continue
		}
		m.raw = body
		if m.Method != "" && len(m.ID) > 0 {
			c.writeFrame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID))
		}
		c.mu.Lock()
		c.msgs = append(c.msgs, m)
		close(c.news)
		c.news = make(chan struct{})
		c.mu.Unlock()
	}
}

// readFrame reads one Content-Length framed body (our own reader: the
// test checks the server's framing, so it does not share the server's).
func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		if !strings.HasSuffix(line, "\r\n") {
			return nil, fmt.Errorf("header line %q does not end in CRLF", line)
		}
		line = strings.TrimSuffix(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, fmt.Errorf("bad header %q", line)
		}
		if name == "Content-Length" {
			if n, err = strconv.Atoi(value); err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	if n < 0 {
		return nil, errors.New("no Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

// writeFrame frames body and writes it; an error means the server closed
// its input.
func (c *rawClient) writeFrame(body string) error {
	return c.writeBytes([]byte("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
}

func (c *rawClient) writeBytes(b []byte) error {
	_, err := c.w.Write(b)
	return err
}

// request sends a request with a fresh numeric id and waits for its answer.
func (c *rawClient) request(method string, params any) rawMsg {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	p, err := json.Marshal(params)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.writeFrame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, p)); err != nil {
		c.t.Fatalf("%s: the server closed its input: %v", method, err)
	}
	return c.waitID(strconv.Itoa(id))
}

// waitID waits for the response with the raw id.
func (c *rawClient) waitID(id string) rawMsg {
	c.t.Helper()
	m, ok := c.waitFor(func(m rawMsg) bool { return m.Method == "" && string(m.ID) == id })
	if !ok {
		c.t.Fatalf("no response with id %s (reader: %v)", id, c.readErr)
	}
	return m
}

// waitFor returns the first message (oldest first, consumed) that matches.
func (c *rawClient) waitFor(match func(rawMsg) bool) (rawMsg, bool) {
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		for i, m := range c.msgs {
			if match(m) {
				c.msgs = append(c.msgs[:i:i], c.msgs[i+1:]...)
				c.mu.Unlock()
				return m, true
			}
		}
		ch, done := c.news, c.readErr != nil
		c.mu.Unlock()
		if done {
			return rawMsg{}, false
		}
		select {
		case <-ch:
		case <-deadline.C:
			return rawMsg{}, false
		}
	}
}

// ping checks that the server still answers: a tool call round trip.
func (c *rawClient) ping(what string) {
	c.t.Helper()
	m := c.request("workspace/executeCommand", map[string]any{"command": "agentls.listTools", "arguments": []any{map[string]any{}}})
	if m.Error != nil || !strings.Contains(string(m.Result), `"read_file"`) {
		c.t.Fatalf("after %s the server does not serve: %s", what, short(string(m.raw), 300))
	}
}

// waitExit waits for Run to return.
func (c *rawClient) waitExit() (int, bool) {
	select {
	case code := <-c.exit:
		return code, true
	case <-time.After(30 * time.Second):
		return 0, false
	}
}
