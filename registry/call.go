package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxResultBytes bounds the content of one result; longer content is cut
// with a note saying how to get the rest.
const MaxResultBytes = 64 << 10

// Call runs the named tool. Missing or null arguments mean {}. Every failure
// (unknown tool, arguments that are not JSON or break the schema, an error
// from the tool, a panic inside it, a cancelled context) is a Result with
// IsError set, never a Go error or a crash.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) Result {
	e, ok := r.lookup(name)
	if !ok {
		return errorResult(r.unknownTool(name))
	}
	return e.call(ctx, args)
}

func (e *entry) call(ctx context.Context, args json.RawMessage) Result {
	name := e.schema.Name
	if err := ctx.Err(); err != nil {
		return errorResult(fmt.Sprintf("%s was not run: %v", name, context.Cause(ctx)))
	}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	v, err := decodeJSON(trimmed)
	if err != nil {
		return errorResult(fmt.Sprintf("invalid arguments for %s: not valid JSON (%v); send one JSON object", name, err))
	}
	if msg := e.validate(v); msg != "" {
		return errorResult(msg)
	}
	return cut(e.execute(ctx, trimmed))
}

// execute runs the tool, turning an error or a panic into an error result.
func (e *entry) execute(ctx context.Context, args json.RawMessage) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = errorResult(fmt.Sprintf("tool %s crashed (panic: %s); this is a bug in agentls, not in your arguments — try another way", e.schema.Name, clip(fmt.Sprint(p), 500)))
		}
	}()
	out, err := e.tool.Execute(ctx, args)
	if err != nil {
		msg := err.Error()
		if msg == "" {
			msg = e.schema.Name + " failed"
		}
		if out != "" {
			msg = out + "\n\n" + msg
		}
		return errorResult(msg)
	}
	return Result{Content: out}
}

func errorResult(msg string) Result { return cut(Result{Content: msg, IsError: true}) }

// cut shortens content over MaxResultBytes at a line boundary (or a rune
// boundary when a single line is too long) and appends a note.
func cut(r Result) Result {
	if len(r.Content) <= MaxResultBytes {
		return r
	}
	total := len(r.Content)
	lines := strings.Count(r.Content, "\n") + 1
	note := func(keptBytes, keptLines int) string {
		return fmt.Sprintf("\n\n[output cut: showing the first %d of %d lines (%d of %d bytes). "+
			"To get the rest, narrow the call: an offset/limit window, a narrower path, pattern or glob, "+
			"or a smaller max_results.]", keptLines, lines, keptBytes, total)
	}
	budget := MaxResultBytes - len(note(total, lines)) // the longest the note can be
	keep := budget
	for keep > 0 && !utf8.RuneStart(r.Content[keep]) {
		keep--
	}
	if nl := strings.LastIndexByte(r.Content[:keep], '\n'); nl > budget/2 {
		keep = nl
	}
	kept := r.Content[:keep]
	r.Content = kept + note(len(kept), strings.Count(kept, "\n")+1)
	return r
}
