package reliability

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/workspace"
)

func frame(body string) string {
	return "Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// FuzzFraming feeds arbitrary bytes to the server as its input stream, then
// closes it. The server must return (in bounded time), never panic (its log
// is checked), and write only well-framed JSON.
func FuzzFraming(f *testing.F) {
	init := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`) +
		frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	for _, s := range []string{
		init,
		init + frame(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"agentls.listTools","arguments":[{}]}}`),
		init + frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`),
		init + frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:1","version":1,"text":"a\nb"}}}`) +
			frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"untitled:1","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":1},"end":{"line":1,"character":0}},"text":"é"}]}}`),
		"Content-Length: 5\r\n\r\n{\"a\":",
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: 70000000\r\n\r\nxyz",
		"content-length:2\r\n\r\n{}",
		"Content-Length: 2\r\nContent-Type: x\r\n\r\n{}",
		"Content-Length: 2\n\n{}",
		"\r\n\r\n",
		"Content-Length: 4\r\n\r\n\xff\xfe\xfd\xfc",
		frame("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"\xc3\x28\"}"),
		frame(`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`),
		"Content-Length: 3",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// Never let an input open a folder: the server would act on it.
		low := strings.ToLower(string(in))
		if strings.Contains(low, "root") || strings.Contains(low, "folder") || strings.Contains(low, "file:") {
			return
		}
		var log syncBuffer
		srv := lsp.New(lsp.Options{Logger: slog.New(slog.NewTextHandler(&log, nil)), ShutdownWait: time.Second})
		outR, outW := io.Pipe()
		frames := make(chan error, 1)
		go func() {
			br := bufio.NewReader(outR)
			for {
				body, err := readFrame(br)
				if err == io.EOF {
					frames <- nil
					return
				}
				if err != nil {
					frames <- err
					io.Copy(io.Discard, outR)
					return
				}
				if !json.Valid(body) {
					frames <- errorString("not JSON: " + short(string(body), 100))
					io.Copy(io.Discard, outR)
					return
				}
			}
		}()
		done := make(chan int, 1)
		go func() {
			done <- srv.Run(context.Background(), bytes.NewReader(in), outW, outW)
			outW.Close()
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("the server did not return after its input ended")
		}
		if err := <-frames; err != nil {
			t.Errorf("bad output frame: %v", err)
		}
		if l := log.String(); strings.Contains(l, "panic") {
			t.Errorf("panic: %s", short(l[strings.Index(l, "panic"):], 1000))
		}
	})
}

type errorString string

func (e errorString) Error() string { return string(e) }

// FuzzEditMatch runs edit_file and multi_edit on a file with arbitrary
// content. Whatever happens, a failed edit leaves the file's bytes as they
// were and a successful one leaves valid text; when old_string occurs
// exactly (in a plain UTF-8 file), the result is exactly the replacement,
// and an ambiguous match without replace_all is refused.
func FuzzEditMatch(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B", false, "c", "C")
	f.Add("x x x\n", "x", "y", true, "y y", "z")
	f.Add("x x x\n", "x", "y", false, "", "")
	f.Add("func f() {\n\treturn 1\n}\n", "    return 1", "    return 2", false, "func f", "func g")
	f.Add("  1→a\nb\n", "1→a", "A", false, "b", "b")
	f.Add("line\r\nother\r\n", "line\nother", "x\ny", false, "y", "z")
	f.Add("\ufeffbom\n", "bom", "BOM", false, "BOM", "")
	f.Add("aaa", "aa", "b", false, "ab", "c")
	f.Add("", "", "new", false, "new", "old")
	f.Add("é日本🙂\n", "日本", "", false, "é", "e")
	f.Add("a\n\nb\n", "     2→", "x", true, "1→", "y") // only prefixes: once an endless loop
	// Every exec writes (and fsyncs) the file up to three times: on a
	// loaded disk that stalls the fuzzer, so use memory when there is some.
	root := tempRoot(f)
	if d, err := os.MkdirTemp("/dev/shm", "agentls-fuzz-*"); err == nil {
		f.Cleanup(func() { os.RemoveAll(d) })
		root = d
	}
	ws, err := workspace.New(root)
	if err != nil {
		f.Fatal(err)
	}
	sess, err := workspace.NewSession(ws, nil, nil) // the command line's rule: no read-before-write
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { sess.Close() })
	reg, err := registry.NewBuiltin()
	if err != nil {
		f.Fatal(err)
	}
	ctx := workspace.WithSession(context.Background(), sess)
	path := filepath.Join(root, "f.txt")
	f.Fuzz(func(t *testing.T, content, old1, new1 string, all bool, old2, new2 string) {
		if len(content) > 1<<14 { // keep each exec well under the fuzzer's 1s worker timeout on a loaded machine
			return
		}
		// The fuzzer kills a worker that does not answer within a second
		// and shows nothing of it; an exec that takes this long writes every
		// stack to a file first (that is how the empty old_string loop in
		// exactHits was found).
		watchdog := time.AfterFunc(800*time.Millisecond, func() {
			buf := make([]byte, 1<<20)
			msg := fmt.Sprintf("edit stuck on %q %q %q:\n%s", short(content, 100), old1, new1, buf[:runtime.Stack(buf, true)])
			os.WriteFile(filepath.Join(os.TempDir(), fmt.Sprintf("agentls-fuzz-stuck-%d.txt", os.Getpid())), []byte(msg), 0o644)
			panic(msg)
		})
		defer watchdog.Stop()
		for i, call := range []struct {
			tool string
			args map[string]any
		}{
			{"edit_file", map[string]any{"path": "f.txt", "old_string": old1, "new_string": new1, "replace_all": all}},
			{"multi_edit", map[string]any{"path": "f.txt", "edits": []any{
				map[string]any{"old_string": old1, "new_string": new1, "replace_all": all},
				map[string]any{"old_string": old2, "new_string": new2},
			}}},
		} {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			args, _ := json.Marshal(call.args)
			r := reg.Call(ctx, call.tool, args)
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%s: the file is gone: %v (%s)", call.tool, err, r.Content)
			}
			if r.IsError {
				if string(got) != content {
					t.Fatalf("%s failed (%s) but changed the file: %q => %q", call.tool, short(r.Content, 200), content, got)
				}
				continue
			}
			// (A NUL the edit itself brought in makes the file binary, as asked.)
			if _, _, err := workspace.Decode(got); err != nil && !strings.Contains(new1+new2, "\x00") {
				t.Fatalf("%s left a file that does not decode: %v", call.tool, err)
			}
			if i == 1 || !plain(content, old1, new1) {
				continue
			}
			// The exact-match model, for plain text.
			n := strings.Count(content, old1)
			switch {
			case n == 1 || n > 1 && all:
				if want := strings.ReplaceAll(content, old1, new1); string(got) != want {
					t.Fatalf("edit_file %q→%q (all=%v) in %q gave %q, want %q", old1, new1, all, content, got, want)
				}
			case n > 1:
				t.Fatalf("edit_file %q matches %d places without replace_all, yet succeeded: %q", old1, n, got)
			}
		}
		// An ambiguous exact match is refused by both tools.
		if plain(content, old1, new1) && old1 != "" && old1 != new1 && !all && strings.Count(content, old1) > 1 {
			if b, _ := os.ReadFile(path); string(b) != content {
				t.Fatalf("an ambiguous edit changed the file")
			}
		}
	})
}

// plain reports whether the exact-match model applies: UTF-8 without BOM,
// CR or NUL, and a non-empty old_string that differs from new_string.
func plain(content, old, new string) bool {
	for _, s := range []string{content, old, new} {
		if !utf8.ValidString(s) || strings.ContainsAny(s, "\r\x00\ufeff") {
			return false
		}
	}
	return old != "" && old != new
}
