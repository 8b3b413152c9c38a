package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/registry"
)

// TestMain lets the test binary act as the agentls binary: with
// AGENTLS_TEST_MAIN=1 it runs main() instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv("AGENTLS_TEST_MAIN") == "1" {
		main()
		return
	}
	// No test reads the user's own settings file.
	cfg, err := os.MkdirTemp("", "agentls-test-config-*")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", cfg)
	code := m.Run()
	os.RemoveAll(cfg)
	os.Exit(code)
}

// runCLI runs agentls in process and returns its stdout, stderr and exit
// status.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(&env{ctx: t.Context(), stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut}, args)
	return out.String(), errOut.String(), code
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string // on stderr
	}{
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"call"}, "missing the tool NAME"},
		{[]string{"call", "-C", dir, "read_file", "{}", "extra"}, "too many arguments"},
		{[]string{"call", "-C", dir, "read_file", `{"path":`}, "the arguments are not valid JSON"},
		{[]string{"call", "-C", dir, "read_file", `{"path":"a"} x`}, "the arguments are not valid JSON"},
		{[]string{"call", "-C", filepath.Join(dir, "nope"), "read_file", `{}`}, "agentls call: -C "},
		{[]string{"call", "--nope", "read_file"}, "flag provided but not defined: -nope"},
		{[]string{"call", "-C"}, "flag needs an argument"},
		{[]string{"tools", "extra"}, `unexpected argument "extra"`},
		{[]string{"contract", "x"}, `unexpected argument "x"`},
		{[]string{"version", "x"}, `unexpected argument "x"`},
	} {
		out, errOut, code := runCLI(t, "", tc.args...)
		if code != exitUsage {
			t.Errorf("agentls %q: exit %d, want %d", tc.args, code, exitUsage)
		}
		if !strings.Contains(errOut, tc.want) {
			t.Errorf("agentls %q: stderr %q, want %q", tc.args, errOut, tc.want)
		}
		if out != "" {
			t.Errorf("agentls %q: wrote %q to stdout on a usage error", tc.args, out)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"},
		{"tools", "--help"}, {"call", "--help"}, {"call", "-h"}, {"contract", "--help"}, {"version", "--help"},
		{"help", "call"},
	} {
		out, errOut, code := runCLI(t, "", args...)
		if code != exitOK || !strings.Contains(out, "Usage") || errOut != "" {
			t.Errorf("agentls %q: exit %d, stdout %q, stderr %q; want usage on stdout and exit 0", args, code, out, errOut)
		}
	}
	out, _, _ := runCLI(t, "", "--help")
	for _, c := range commands {
		if !strings.Contains(out, "agentls "+c.name) {
			t.Errorf("top-level help does not mention %s", c.name)
		}
	}
	out, _, _ = runCLI(t, "", "call", "--help")
	for _, want := range []string{"agentls call [-C DIR] NAME [JSON|-]", "-C folder", "read-before-write", "Exit status"} {
		if !strings.Contains(out, want) {
			t.Errorf("call --help lacks %q", want)
		}
	}
}

func TestCall(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := runCLI(t, "", "call", "-C", dir, "read_file", `{"path":"notes.txt"}`)
	if code != exitOK || !strings.Contains(out, "alpha") || !strings.Contains(out, "beta") || errOut != "" {
		t.Errorf("read_file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// Arguments from stdin, and flags after the positional arguments.
	out, _, code = runCLI(t, `  {"path": "notes.txt", "offset": 2}`+"\n", "call", "read_file", "-", "-C", dir)
	if code != exitOK || strings.Contains(out, "alpha") || !strings.Contains(out, "beta") {
		t.Errorf("read_file from stdin: exit %d, stdout %q", code, out)
	}

	// "--" ends the flags.
	if _, errOut, code := runCLI(t, "", "call", "-C", dir, "--", "read_file", `{"path":"notes.txt"}`); code != exitOK {
		t.Errorf("call with --: exit %d: %s", code, errOut)
	}

	// Each call is its own session: writing a file never read is allowed,
	// and it lands on disk.
	out, errOut, code = runCLI(t, "", "call", "-C", dir, "write_file", `{"path":"notes.txt","content":"gamma\n"}`)
	if code != exitOK {
		t.Errorf("write_file without a read: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(got) != "gamma\n" {
		t.Errorf("notes.txt = %q after write_file", got)
	}

	// Error results: exit 1, message on stderr, nothing on stdout.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"call", "-C", dir, "raed_file", "{}"}, "did you mean read_file?"},
		{[]string{"call", "-C", dir, "read_file"}, `missing required property "path"`},
		{[]string{"call", "-C", dir, "read_file", `{"path":"../outside"}`}, ""},
		{[]string{"call", "-C", dir, "read_file", `{"path":"missing.txt"}`}, "missing.txt"},
	} {
		out, errOut, code := runCLI(t, "", tc.args...)
		if code != exitError || out != "" || !strings.Contains(errOut, tc.want) || errOut == "" {
			t.Errorf("agentls %q: exit %d, stdout %q, stderr %q; want exit 1 and %q on stderr", tc.args, code, out, errOut, tc.want)
		}
	}
}

func TestTools(t *testing.T) {
	reg, err := registry.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, _, code := runCLI(t, "", "tools", "--json", "-C", dir)
	if code != exitOK {
		t.Fatalf("tools --json: exit %d", code)
	}
	if want := string(reg.ListToolsJSON(fileURI(dir))) + "\n"; out != want {
		t.Errorf("tools --json is not the listTools result:\n got %s\nwant %s", out, want)
	}
	var v struct {
		Workspace string            `json:"workspace"`
		Revision  *uint64           `json:"revision"`
		Digest    string            `json:"digest"`
		Tools     []registry.Schema `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.Workspace != "file://"+filepath.ToSlash(dir) || v.Revision == nil || len(v.Digest) != 64 {
		t.Errorf("header: workspace %q revision %v digest %q", v.Workspace, v.Revision, v.Digest)
	}
	if !slices.IsSortedFunc(v.Tools, func(a, b registry.Schema) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("tools not sorted by name")
	}

	plain, _, code := runCLI(t, "", "tools")
	if code != exitOK {
		t.Fatalf("tools: exit %d", code)
	}
	for _, tool := range v.Tools {
		if !strings.Contains(plain, "\n"+tool.Name) && !strings.HasPrefix(plain, tool.Name) {
			t.Errorf("plain list lacks %s", tool.Name)
		}
	}
}

func TestContractCommand(t *testing.T) {
	out, _, code := runCLI(t, "", "contract")
	if code != exitOK || !strings.HasPrefix(out, "# Tool contract") {
		t.Fatalf("contract: exit %d, %.80q", code, out)
	}
	reg, _ := registry.NewBuiltinFor(registry.Features)
	if out != contractMarkdown(reg.Schemas()) {
		t.Error("agentls contract differs from contractMarkdown")
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _, code := runCLI(t, "", args...)
		if code != exitOK || !strings.HasPrefix(out, "agentls ") {
			t.Errorf("agentls %q: exit %d, %q", args, code, out)
		}
	}
}

// TestBinaryExitStatus runs the real main() in a child process: the exit
// status and stdin handling seen by a shell.
func TestBinaryExitStatus(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		out   string
	}{
		{`{"path":"a.txt"}`, []string{"call", "-C", dir, "read_file", "-"}, 0, "one"},
		{"", []string{"call", "-C", dir, "nope"}, 1, ""},
		{"", []string{"call"}, 2, ""},
		{"", []string{"tools", "--json"}, 0, `"tools":[`},
	} {
		cmd := exec.CommandContext(t.Context(), os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), "AGENTLS_TEST_MAIN=1")
		cmd.Stdin = strings.NewReader(tc.stdin)
		var out bytes.Buffer
		cmd.Stdout = &out
		err := cmd.Run()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.Contains(out.String(), tc.out) {
			t.Errorf("agentls %q: exit %d, stdout %q; want exit %d and %q", tc.args, code, out.String(), tc.code, tc.out)
		}
	}
}

func TestCallSettings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `{"bash":{"askFallback":"run"}}`},
		{`{"bash":{"sandbox":"bwrap"}}`, `{"bash":{"askFallback":"run","sandbox":"bwrap"}}`},
		{`{"bash":{"askFallback":"deny"}}`, `{"bash":{"askFallback":"deny"}}`},
		{`{"bash.askFallback":"deny"}`, `{"bash":{"askFallback":"deny"}}`},
		{`{"webFetch":{"allowPrivate":true}}`, `{"bash":{"askFallback":"run"},"webFetch":{"allowPrivate":true}}`},
	} {
		got, err := commandSettings(&env{stderr: io.Discard}, "call", t.TempDir(), tc.in, runWhenNobodyAsks)
		if err != nil || string(got) != tc.want {
			t.Errorf("settings of --settings %s = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	// No settings at all take a short cut: the same bytes as an empty object.
	if none, err := runWhenNobodyAsks(nil); err != nil || string(none) != onlyRunWhenNobodyAsks {
		t.Errorf("no settings: %s, %v", none, err)
	}
	if empty, err := runWhenNobodyAsks(json.RawMessage(`{}`)); err != nil || string(empty) != onlyRunWhenNobodyAsks {
		t.Errorf("{}: %s, %v; want %s", empty, err, onlyRunWhenNobodyAsks)
	}
	for _, bad := range []string{`[]`, `null`, `{`, `{"bash":1}`} {
		if got, err := commandSettings(&env{stderr: io.Discard}, "call", t.TempDir(), bad, runWhenNobodyAsks); err == nil {
			t.Errorf("--settings %s = %s, want an error", bad, got)
		}
	}
	cmd := agentlsCmd(t, "mcp", "--attach", "--settings", "{}")
	var mcpErr bytes.Buffer
	cmd.Stderr = &mcpErr
	if err := cmd.Run(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != exitUsage || !strings.Contains(mcpErr.String(), "--settings applies to standalone calls") {
		t.Errorf("mcp --attach --settings without --fallback: %v, %q", err, mcpErr.String())
	}
	if _, errOut, code := runCLI(t, "", "call", "--settings", "[]", "read_file"); code != exitUsage || !strings.Contains(errOut, "--settings: the settings must be a JSON object") {
		t.Errorf("bad --settings: exit %d, %q", code, errOut)
	}
}

// TestSettingsLayers: the user's file, then --settings, then the
// workspace's file, which only tightens; a malformed user file is an
// error naming the file and the position.
func TestSettingsLayers(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	os.MkdirAll(filepath.Join(cfg, "agentls"), 0o755)
	userFile := filepath.Join(cfg, "agentls", "settings.json")
	os.WriteFile(userFile, []byte(`{"bash": {"allow": ["go test"], "askFallback": "deny"}, "tools.disabled": ["web_fetch"]}`), 0o644)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(root, ".agentls", "settings.json"), []byte(`{"bash": {"allow": ["*"], "deny": ["git push"]}}`), 0o644)
	var errOut bytes.Buffer
	got, err := commandSettings(&env{stderr: &errOut}, "mcp", root, `{"bash":{"allow":["make"]}}`, nil)
	want := `{"bash":{"allow":["make"],"askFallback":"deny","deny":["git push"]},"tools":{"disabled":["web_fetch"]}}`
	if err != nil || string(got) != want {
		t.Errorf("layers: %s, %v; want %s", got, err, want)
	}
	if !strings.Contains(errOut.String(), "bash.allow (a workspace cannot allow commands)") {
		t.Errorf("the ignored workspace key is not reported: %q", errOut.String())
	}
	if d := disabledTools(got); !slices.Equal(d, []string{"web_fetch"}) {
		t.Errorf("disabledTools: %q", d)
	}

	os.WriteFile(userFile, []byte("{\n  \"bash\": {\"allow\": [\"go test\"}\n}\n"), 0o644)
	_, errOut2, code := runCLI(t, "", "call", "-C", root, "ls")
	if code != exitUsage || !strings.Contains(errOut2, userFile+":2:31: invalid character '}'") {
		t.Errorf("malformed user file: exit %d, %q", code, errOut2)
	}
}

// TestTerminalHint starts plain `agentls` with a terminal on stdin: it says
// on stderr what it is and still serves LSP on stdout (an initialize
// typed on the terminal is answered). On a pipe it says nothing.
func TestTerminalHint(t *testing.T) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal: %v", err)
	}
	defer pts.Close()
	// Raw input: the terminal passes the request through unaltered.
	if tio, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS); err == nil {
		tio.Iflag &^= unix.ICRNL | unix.INLCR | unix.IGNCR | unix.IXON | unix.ISTRIP
		tio.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
		unix.IoctlSetTermios(int(pts.Fd()), unix.TCSETS, tio)
	}

	cmd := agentlsCmd(t)
	cmd.Stdin = pts
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
	fmt.Fprintf(master, "Content-Length: %d\r\n\r\n%s", len(body), body)
	br := bufio.NewReader(stdout)
	var length int
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the answer: %v (stderr %q)", err, errOut.String())
		}
		if strings.TrimSpace(line) == "" {
			break
		}
		fmt.Sscanf(line, "Content-Length: %d", &length)
	}
	answer := make([]byte, length)
	if _, err := io.ReadFull(br, answer); err != nil || !strings.Contains(string(answer), `"capabilities"`) {
		t.Fatalf("initialize on the terminal: %v %q", err, answer)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if first, _, _ := strings.Cut(errOut.String(), "\n"); !strings.HasPrefix(first, "agentls: a language server") || !strings.Contains(first, "agentls --help") {
		t.Errorf("stderr with a terminal on stdin: %q", errOut.String())
	}

	// On a pipe: no hint.
	cmd = agentlsCmd(t)
	cmd.Stdin = strings.NewReader("")
	errOut.Reset()
	cmd.Stderr = &errOut
	cmd.Run()
	if strings.Contains(errOut.String(), "agentls --help") {
		t.Errorf("the hint was printed for a pipe: %q", errOut.String())
	}
}
