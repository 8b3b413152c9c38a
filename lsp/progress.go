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
//
// The $/progress messages are progressParams, not go.lsp.dev/protocol's
// ProgressParams and WorkDoneProgress types: the client's token must go
// back exactly as the client sent it (protocol.ProgressToken holds an int32
// or a string, and a ProgressParams passed by value encodes its token as
// {}), WorkDoneProgressBegin and Report drop a percentage of 0 and Report
// an empty message (omitempty; a client keeps the previous message when
// none is sent).
type progress struct {
	s     *Server
	title string

	mu      sync.Mutex
	token   json.RawMessage // nil until begun
	last    string          // latest message before the begin
	pct     int             // latest percentage, -1 for none
	ended   bool
	endMsg  string
	timer   *time.Timer
	cancel  context.CancelFunc // stops a token creation in flight
	creator sync.WaitGroup
}

func (s *Server) startProgress(ctx context.Context, title string, token json.RawMessage) *progress {
	p := &progress{s: s, title: title, pct: -1}
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
	// A request to the client is allowed once it has said initialized.
	select {
	case <-p.s.initDone:
	case <-ctx.Done():
		return
	}
	p.s.mu.Lock()
	p.s.progressSeq++
	tok := json.RawMessage(strconv.Quote("agentls-" + strconv.FormatUint(p.s.progressSeq, 10)))
	p.s.mu.Unlock()
	if err := p.s.conn.Call(ctx, "window/workDoneProgress/create", progressCreateParams{Token: tok}, nil); err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		// The call finished while the token was being created: close it.
		p.s.conn.Notify("$/progress", progressParams{Token: tok, Value: progressBegin{Kind: "begin", Title: p.title}})
		p.s.conn.Notify("$/progress", progressParams{Token: tok, Value: progressEnd{Kind: "end", Message: p.endMsg}})
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
	p.s.conn.Notify("$/progress", progressParams{Token: p.token, Value: progressBegin{Kind: "begin", Title: p.title, Message: p.last, Percentage: percentage(p.pct)}})
}

// report sends one progress message (a tool reports through the context).
func (p *progress) report(msg string) { p.reportPercent(msg, -1) }

// reportPercent sends a message with a percentage (0–100; -1 for none).
// Percentages never go back: a smaller one is sent as the last one.
func (p *progress) reportPercent(msg string, pct int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	if pct >= 0 {
		pct = max(min(pct, 100), p.pct)
		p.pct = pct
	}
	if p.token == nil {
		p.last = msg
		return
	}
	p.s.conn.Notify("$/progress", progressParams{Token: p.token, Value: progressReport{Kind: "report", Message: msg, Percentage: percentage(pct)}})
}

// end finishes the progress; it waits for a token being created.
func (p *progress) end() { p.endWith("") }

// endWith finishes the progress with a last message.
func (p *progress) endWith(msg string) {
	if p.timer != nil && p.timer.Stop() {
		p.creator.Done()
	}
	p.mu.Lock()
	p.ended = true
	p.endMsg = msg
	tok := p.token
	p.mu.Unlock()
	if tok != nil {
		p.s.conn.Notify("$/progress", progressParams{Token: tok, Value: progressEnd{Kind: "end", Message: msg}})
	}
	if p.cancel != nil {
		p.cancel()
	}
	p.creator.Wait()
}

// progressParams is $/progress with a token as the client sent it (or as
// the server created it) and a work-done value.
type progressParams struct {
	Token json.RawMessage `json:"token"`
	Value any             `json:"value"` // progressBegin, progressReport or progressEnd
}

// progressCreateParams is window/workDoneProgress/create's.
type progressCreateParams struct {
	Token json.RawMessage `json:"token"`
}

type progressBegin struct {
	Kind       string `json:"kind"` // "begin"
	Title      string `json:"title"`
	Message    string `json:"message,omitempty"`
	Percentage *int   `json:"percentage,omitempty"`
}

// progressReport always carries its message: an absent one would leave the
// previous one showing.
type progressReport struct {
	Kind       string `json:"kind"` // "report"
	Message    string `json:"message"`
	Percentage *int   `json:"percentage,omitempty"`
}

type progressEnd struct {
	Kind    string `json:"kind"` // "end"
	Message string `json:"message,omitempty"`
}

// percentage is pct for a progress value, nil for none (-1).
func percentage(pct int) *int {
	if pct < 0 {
		return nil
	}
	return &pct
}

// Work is progress of a folder's background work (an index build), shown by
// the client once it has taken longer than Options.ProgressDelay.
type Work struct{ p *progress }

// StartWork begins background-work progress titled title. Report and End
// may be called from any goroutine; End must be called once.
func (f *Folder) StartWork(title string) *Work {
	return &Work{p: f.srv.startProgress(f.srv.ctx, title, nil)}
}

// Report sends a message and a percentage (0–100, or -1 for none).
func (w *Work) Report(msg string, percent int) { w.p.reportPercent(msg, percent) }

// End finishes the progress with an optional last message.
func (w *Work) End(msg string) { w.p.endWith(msg) }
