package mcp

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTransport makes a connection answer every request it has read
// before it reports the end of its input: a client that writes initialize
// and a few tools/call and then closes its side of the pipe
// (`… | agentls mcp`) still gets every answer. The go-sdk ends a session
// as soon as a read fails, dropping the calls in flight.
type drainTransport struct{ sdk.Transport }

func (t drainTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	d := &drainConn{Connection: c, pending: map[jsonrpc.ID]int{}, changed: make(chan struct{})}
	return d, nil
}

// drainConn counts the requests read and not yet answered. When the
// input ends, Read holds the error back until that count is zero — or
// until the server sends a request of its own (an elicitation), which a
// client that has closed its input can never answer.
type drainConn struct {
	sdk.Connection

	mu       sync.Mutex
	pending  map[jsonrpc.ID]int // requests read, not yet answered
	ended    bool               // the input has ended
	outgoing bool               // a request to the client was written after the end
	closed   bool               // Close was called
	changed  chan struct{}      // closed and replaced on every change of the above
}

func (c *drainConn) signalLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			c.pending[req.ID]++
			c.mu.Unlock()
		}
		return msg, nil
	}
	if ctx.Err() != nil || !errors.Is(err, io.EOF) {
		return nil, err // only a clean end of input waits
	}
	c.mu.Lock()
	c.ended = true
	for len(c.pending) > 0 && !c.outgoing && !c.closed {
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, err
		}
		c.mu.Lock()
	}
	c.mu.Unlock()
	return nil, err
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if n := c.pending[m.ID]; n > 1 {
			c.pending[m.ID] = n - 1
		} else if n == 1 {
			delete(c.pending, m.ID)
			c.signalLocked()
		}
	case *jsonrpc.Request:
		if m.IsCall() && c.ended && !c.outgoing {
			c.outgoing = true
			c.signalLocked()
		}
	}
	return err
}

// Close unblocks a Read that waits for answers.
func (c *drainConn) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		c.signalLocked()
	}
	c.mu.Unlock()
	return c.Connection.Close()
}
