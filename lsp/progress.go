package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"
)

// progress reports one call's work-done progress. With the client's token
// it begins at once; without one, when the client supports it, the server
// creates a token after ProgressDelay and begins then. Reports before the
// begin keep only the latest message, which the begin carries.
type progress struct {
	s     *Server
	title string

	mu      sync.Mutex
	token   json.RawMessage // nil until begun
	last    string          // latest message before the begin
	ended   bool
	timer   *time.Timer
	cancel  context.CancelFunc // stops a token creation in flight
	creator sync.WaitGroup
}

func (s *Server) startProgress(ctx context.Context, title string, token json.RawMessage) *progress {
	p := &progress{s: s, title: title}
	token = bytes.TrimSpace(token)
	if len(token) > 0 && string(token) != "null" {
		p.token = token
		p.begin()
		return p
	}
	s.mu.Lock()
	supported := s.client.workDoneProgress
	s.mu.Unlock()
	if !supported {
		return p
	}
	cctx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	p.creator.Add(1)
	p.timer = time.AfterFunc(s.opts.ProgressDelay, func() {
		defer p.creator.Done()
		p.create(cctx)
	})
	return p
}

// create asks the client for a token (off the read loop: this runs on the
// timer's goroutine) and begins.
func (p *progress) create(ctx context.Context) {
	p.s.mu.Lock()
	p.s.progressSeq++
	tok := json.RawMessage(strconv.Quote("agentls-" + strconv.FormatUint(p.s.progressSeq, 10)))
	p.s.mu.Unlock()
	if err := p.s.conn.Call(ctx, "window/workDoneProgress/create", map[string]any{"token": tok}, nil); err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		// The call finished while the token was being created: close it.
		p.s.conn.Notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "begin", "title": p.title}})
		p.s.conn.Notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "end"}})
		return
	}
	p.token = tok
	p.beginLocked()
}

func (p *progress) begin() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.beginLocked()
}

func (p *progress) beginLocked() {
	v := map[string]any{"kind": "begin", "title": p.title}
	if p.last != "" {
		v["message"] = p.last
	}
	p.s.conn.Notify("$/progress", map[string]any{"token": p.token, "value": v})
}

// report sends one progress message (a tool reports through the context).
func (p *progress) report(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	if p.token == nil {
		p.last = msg
		return
	}
	p.s.conn.Notify("$/progress", map[string]any{"token": p.token, "value": map[string]any{"kind": "report", "message": msg}})
}

// end finishes the progress; it waits for a token being created.
func (p *progress) end() {
	if p.timer != nil && p.timer.Stop() {
		p.creator.Done()
	}
	p.mu.Lock()
	p.ended = true
	tok := p.token
	p.mu.Unlock()
	if tok != nil {
		p.s.conn.Notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "end"}})
	}
	if p.cancel != nil {
		p.cancel()
	}
	p.creator.Wait()
}
