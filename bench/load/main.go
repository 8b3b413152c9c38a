// Command load drives `agentls serve --stdio` the way a busy editor and
// agent do, over the process's real pipes: it opens a buffer, starts N
// concurrent read-only tool calls (read_file, grep, glob, ls, code_index)
// while streaming M incremental didChange notifications into the buffer,
// then runs edit_file calls one after another. It prints calls/s and
// latency percentiles, checks that the server's buffer equals the editor's,
// and that the server exits 0 after shutdown.
//
//	go build -o /tmp/agentls ./cmd/agentls
//	go run ./bench/load -bin /tmp/agentls [-calls 1000] [-changes 10000] [-files 2000]
//
// bench/load/run.sh does both.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
)

func main() {
	bin := flag.String("bin", "agentls", "the agentls binary")
	calls := flag.Int("calls", 1000, "concurrent read-only tool calls")
	changes := flag.Int("changes", 10000, "didChange notifications streamed meanwhile")
	edits := flag.Int("edits", 200, "edit_file calls afterwards")
	nfiles := flag.Int("files", 2000, "Go files in the generated workspace")
	flag.Parse()

	root, err := os.MkdirTemp("", "agentls-load-*")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	root, _ = filepath.EvalSymlinks(root)
	for i := range *nfiles {
		p := filepath.Join(root, fmt.Sprintf("pkg%02d", i%50), fmt.Sprintf("file%04d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		src := fmt.Sprintf("package pkg%02d\n\n// Func%d does thing %d.\nfunc Func%d(x int) int {\n\treturn x + %d\n}\n", i%50, i, i, i, i)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	doc := filepath.Join(root, "doc.txt")
	os.WriteFile(doc, []byte("first line\n"), 0o644)

	cmd := exec.Command(*bin, "serve", "--stdio")
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(root, ".cache"))
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	c := &client{w: in, pending: map[string]chan json.RawMessage{}}
	go c.read(out)

	must(c.call("initialize", map[string]any{
		"processId":        os.Getpid(),
		"capabilities":     map[string]any{"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true}}},
		"workspaceFolders": []any{map[string]any{"uri": fileURI(root), "name": "load"}},
	}))
	c.notify("initialized", map[string]any{})
	text, version := "first line\n", 1
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": fileURI(doc), "languageId": "plaintext", "version": version, "text": text}})
	// Warm up: the first grep builds the session's file table, the first
	// code_index call the index.
	for _, w := range []string{"grep", "code_index"} {
		c.tool(w, map[string]any{"pattern": "Func1", "action": "search", "query": "Func1"})
	}

	readOnly := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "pkg03/file0003.go"}},
		{"read_file", map[string]any{"path": "doc.txt", "limit": 50}},
		{"grep", map[string]any{"pattern": "Func1[0-9]+\\(", "output_mode": "count"}},
		{"glob", map[string]any{"pattern": "pkg1*/*.go"}},
		{"ls", map[string]any{"path": "pkg07"}},
		{"code_index", map[string]any{"action": "search", "query": "Func42"}},
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		lat      = map[string][]time.Duration{}
		all      []time.Duration
		failures int
	)
	start := time.Now()
	for i := range *calls {
		rc := readOnly[i%len(readOnly)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			isErr, err := c.tool(rc.tool, rc.args)
			d := time.Since(t0)
			mu.Lock()
			lat[rc.tool] = append(lat[rc.tool], d)
			all = append(all, d)
			if err != nil || isErr {
				if failures == 0 {
					log.Printf("%s failed: isError %v, %v", rc.tool, isErr, err)
				}
				failures++
			}
			mu.Unlock()
		}()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	chStart := time.Now()
	for range *changes {
		e, next := randomEdit(rng, text)
		text = next
		version++
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": fileURI(doc), "version": version},
			"contentChanges": []any{e},
		})
	}
	chDur := time.Since(chStart)
	wg.Wait()
	elapsed := time.Since(start)

	fmt.Printf("workspace: %d Go files; %d concurrent read-only calls while streaming %d didChange\n", *nfiles, *calls, *changes)
	fmt.Printf("read-only calls: %.0f calls/s, p50 %v, p99 %v, max %v, %d failed\n",
		float64(*calls)/elapsed.Seconds(), pct(all, 50), pct(all, 99), pct(all, 100), failures)
	tools := make([]string, 0, len(lat))
	for k := range lat {
		tools = append(tools, k)
	}
	slices.Sort(tools)
	for _, k := range tools {
		fmt.Printf("  %-10s n=%-4d p50 %-12v p99 %v\n", k, len(lat[k]), pct(lat[k], 50), pct(lat[k], 99))
	}
	fmt.Printf("didChange: %d sent in %v (%.0f/s)\n", *changes, chDur.Round(time.Millisecond), float64(*changes)/chDur.Seconds())

	// The server's buffer must be the editor's, every change in order.
	res := c.toolResult("read_file", map[string]any{"path": "doc.txt", "limit": 10000000})
	var lines []string
	for _, l := range strings.Split(res, "\n") {
		_, t, ok := strings.Cut(l, "→")
		if !ok {
			break
		}
		lines = append(lines, t)
	}
	if got := strings.Join(lines, "\n"); got != strings.TrimSuffix(text, "\n") {
		log.Fatalf("the server's buffer differs from the editor's after %d changes", *changes)
	}
	fmt.Println("buffer after the stream: equal to the editor's")

	// Sequential edits of files on disk (each read first).
	var ed []time.Duration
	for i := range *edits {
		rel := fmt.Sprintf("pkg%02d/file%04d.go", i%50, i%*nfiles)
		c.tool("read_file", map[string]any{"path": rel})
		t0 := time.Now()
		isErr, err := c.tool("edit_file", map[string]any{"path": rel, "old_string": fmt.Sprintf("return x + %d", i%*nfiles), "new_string": fmt.Sprintf("return x - %d", i%*nfiles)})
		ed = append(ed, time.Since(t0))
		if err != nil || isErr {
			failures++
		}
	}
	fmt.Printf("edit_file on disk: %d calls, p50 %v, p99 %v\n", *edits, pct(ed, 50), pct(ed, 99))

	must(c.call("shutdown", nil))
	c.notify("exit", nil)
	if err := cmd.Wait(); err != nil {
		log.Fatalf("server exit: %v", err)
	}
	if failures > 0 {
		log.Fatalf("%d calls failed", failures)
	}
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := min(len(s)-1, len(s)*p/100)
	return s[i].Round(10 * time.Microsecond)
}

func must(_ json.RawMessage, err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: p}).String() }

// randomEdit is a random incremental change of text in UTF-16 positions
// and the text after it.
func randomEdit(rng *rand.Rand, text string) (map[string]any, string) {
	lines := strings.Split(text, "\n")
	l := rng.IntN(len(lines))
	runes := []rune(lines[l])
	k := rng.IntN(len(runes) + 1)
	pos := map[string]any{"line": l, "character": len(utf16.Encode(runes[:k]))}
	inserts := []string{"x", "ab", "\n", "é", "日本", "🙂", "word "}
	if len(text) > 20000 && k < len(runes) { // delete one character
		end := map[string]any{"line": l, "character": len(utf16.Encode(runes[:k+1]))}
		lines[l] = string(runes[:k]) + string(runes[k+1:])
		return map[string]any{"range": map[string]any{"start": pos, "end": end}, "text": ""}, strings.Join(lines, "\n")
	}
	ins := inserts[rng.IntN(len(inserts))]
	lines[l] = string(runes[:k]) + ins + string(runes[k:])
	return map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": ins}, strings.Join(lines, "\n")
}

// client is a minimal LSP client: framed JSON-RPC over the server's stdio.
type client struct {
	wmu     sync.Mutex
	w       io.Writer
	mu      sync.Mutex
	next    int
	pending map[string]chan json.RawMessage
	failed  error // the reader ended
}

func (c *client) write(v any) {
	body, err := json.Marshal(v)
	if err != nil {
		log.Fatal(err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		log.Fatal(err)
	}
}

func (c *client) notify(method string, params any) {
	c.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// fail ends every waiting call with err and logs it.
func (c *client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) > 0 {
		log.Printf("client: %v; %d calls waiting", err, len(c.pending))
	}
	for id, ch := range c.pending {
		ch <- json.RawMessage(fmt.Sprintf(`{"error":{"message":%q}}`, err.Error()))
		delete(c.pending, id)
	}
	c.failed = err
}

func (c *client) call(method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	if c.failed != nil {
		c.mu.Unlock()
		return nil, c.failed
	}
	c.next++
	id := strconv.Itoa(c.next)
	ch := make(chan json.RawMessage, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	c.write(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	var raw json.RawMessage
	select {
	case raw = <-ch:
	case <-time.After(2 * time.Minute):
		return nil, fmt.Errorf("%s (id %s): no answer in 2 minutes", method, id)
	}
	json.Unmarshal(raw, &m)
	if m.Error != nil {
		return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
	}
	return m.Result, nil
}

func (c *client) tool(name string, args map[string]any) (isError bool, err error) {
	raw, err := c.call("workspace/executeCommand", map[string]any{"command": "agentls.callTool", "arguments": []any{map[string]any{"name": name, "arguments": args}}})
	var r struct {
		IsError bool `json:"isError"`
	}
	json.Unmarshal(raw, &r)
	return r.IsError, err
}

func (c *client) toolResult(name string, args map[string]any) string {
	raw, err := c.call("workspace/executeCommand", map[string]any{"command": "agentls.callTool", "arguments": []any{map[string]any{"name": name, "arguments": args}}})
	if err != nil {
		log.Fatal(err)
	}
	var r struct {
		Content string `json:"content"`
	}
	json.Unmarshal(raw, &r)
	return r.Content
}

// read dispatches responses; requests from the server get a null result.
// It ends when the server's output does; calls still waiting then fail.
func (c *client) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		n := -1
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				c.fail(fmt.Errorf("reading the server's output: %w", err))
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		if n < 0 {
			c.fail(errors.New("a message from the server without Content-Length"))
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			c.fail(fmt.Errorf("reading a %d-byte message: %w", n, err))
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &m)
		switch {
		case m.Method != "" && len(m.ID) > 0:
			c.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
		case m.Method == "" && len(m.ID) > 0:
			c.mu.Lock()
			ch := c.pending[string(m.ID)]
			delete(c.pending, string(m.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- body
			}
		}
	}
}
