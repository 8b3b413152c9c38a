package lsp_test

import (
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/lsp"
)

type progressMsg struct {
	Token json.RawMessage `json:"token"`
	Value struct {
		Kind    string `json:"kind"`
		Title   string `json:"title"`
		Message string `json:"message"`
	} `json:"value"`
}

func progressOf(s *session) []progressMsg {
	var out []progressMsg
	for _, m := range s.Received("$/progress") {
		var p progressMsg
		json.Unmarshal(m.Params, &p)
		out = append(out, p)
	}
	return out
}

func TestProgressWithToken(t *testing.T) {
	s := start(t, lsp.Options{}, nil)
	s.Initialize(nil, nil, s.root)
	var r struct{ Content string }
	err := s.Call("workspace/executeCommand", map[string]any{
		"command": "agentls.callTool", "arguments": []any{map[string]any{"name": "zz_progress"}}, "workDoneToken": "tok-1",
	}, &r)
	if err != nil || r.Content != "done" {
		t.Fatalf("call: %+v %v", r, err)
	}
	s.Sync()
	var kinds []string
	for _, p := range progressOf(s) {
		if string(p.Token) != `"tok-1"` {
			t.Errorf("token = %s", p.Token)
		}
		kinds = append(kinds, p.Value.Kind+":"+p.Value.Message)
	}
	want := []string{"begin:", "report:line 1", "report:line 2", "end:"}
	if len(kinds) != len(want) {
		t.Fatalf("progress = %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Errorf("progress = %v, want %v", kinds, want)
			break
		}
	}
}

func TestProgressCreatedForLongCall(t *testing.T) {
	s := start(t, lsp.Options{ProgressDelay: 1}, nil)
	s.Initialize(nil, nil, s.root)
	_, release := block.reset()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.CallTool("zz_block", map[string]any{})
	}()
	s.WaitFor("window/workDoneProgress/create", func() bool { return len(s.Received("window/workDoneProgress/create")) == 1 })
	s.WaitFor("begin", func() bool { return len(progressOf(s)) == 1 })
	close(release)
	<-done
	s.Sync()
	ps := progressOf(s)
	if len(ps) != 2 || ps[0].Value.Kind != "begin" || ps[1].Value.Kind != "end" || string(ps[0].Token) != string(ps[1].Token) {
		t.Errorf("progress = %+v", ps)
	}
}
