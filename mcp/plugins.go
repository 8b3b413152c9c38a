package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/registry"
)

// ServerConfig is one configured MCP server, in the format editors use for
// their own "mcpServers" settings.
type ServerConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// Prefix is the namespace of a plugin server's tools in a registry.
func Prefix(server string) string { return "mcp__" + server + "__" }

var serverName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,48}$`) }) // compiled at first use

// Plugins keeps the configured MCP servers of one registry connected: each
// server's tools are added as mcp__<server>__<tool>; when a server exits or
// stops answering its tools are suspended (calls say the server is
// disconnected), and it is restarted with a backoff; on success its tools
// are resumed and refreshed.
type Plugins struct {
	reg    *registry.Registry
	log    *slog.Logger
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	status map[string]string // server → "connected" | "disconnected: why"
}

// Backoff bounds of reconnection; variables so tests can shorten them.
var (
	minBackoff = 200 * time.Millisecond
	maxBackoff = 30 * time.Second
)

// StartPlugins connects to every configured server in the background. A
// config with a bad name or no command is reported in Status and skipped.
func StartPlugins(reg *registry.Registry, servers map[string]ServerConfig, log *slog.Logger) *Plugins {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Plugins{reg: reg, log: log, cancel: cancel, status: map[string]string{}}
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		cfg := servers[name]
		switch {
		case !serverName().MatchString(name):
			p.setStatus(name, "refused: a server name may hold only letters, digits, _ and - (at most 48)")
			continue
		case cfg.Command == "":
			p.setStatus(name, "refused: no command")
			continue
		}
		p.setStatus(name, "connecting")
		p.wg.Add(1)
		go p.keep(ctx, name, cfg)
	}
	return p
}

// Close disconnects every server, stops them, and removes their tools.
func (p *Plugins) Close() {
	p.cancel()
	p.wg.Wait()
}

// Status reports each configured server's state, sorted by name.
func (p *Plugins) Status() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]string, len(p.status))
	for k, v := range p.status {
		out[k] = v
	}
	return out
}

func (p *Plugins) setStatus(name, s string) {
	p.mu.Lock()
	p.status[name] = s
	p.mu.Unlock()
}

// keep runs one server for the life of ctx, reconnecting with backoff.
func (p *Plugins) keep(ctx context.Context, name string, cfg ServerConfig) {
	defer p.wg.Done()
	prefix := Prefix(name)
	defer p.reg.RemovePrefix(prefix)
	backoff := minBackoff
	everConnected := false
	for {
		started := time.Now()
		err := p.session(ctx, name, cfg, &everConnected)
		if ctx.Err() != nil {
			return
		}
		if everConnected {
			p.reg.SuspendPrefix(prefix)
		}
		p.setStatus(name, "disconnected: "+err.Error())
		p.log.Warn("mcp server disconnected", "server", name, "err", err)
		if time.Since(started) > time.Minute {
			backoff = minBackoff
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// session starts the server once, mirrors its tools into the registry and
// returns when the connection ends.
func (p *Plugins) session(ctx context.Context, name string, cfg ServerConfig, everConnected *bool) error {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = os.Environ()
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "agentls", Version: "plugin-host"}, nil)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	cs, err := client.Connect(cctx, &sdk.CommandTransport{Command: cmd}, nil)
	cancel()
	if err != nil {
		return fmt.Errorf("starting %s: %w", cfg.Command, err)
	}
	defer cs.Close()
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	var tools []*sdk.Tool
	for t, err := range cs.Tools(lctx, nil) {
		if err != nil {
			cancel()
			return fmt.Errorf("listing tools: %w", err)
		}
		tools = append(tools, t)
	}
	cancel()

	// The server's tools replace what its prefix held, in one change: a
	// client listing tools meanwhile never sees part of them.
	var proxies []registry.Tool
	for _, t := range tools {
		pt, err := newProxy(name, t, cs)
		if err != nil {
			p.log.Warn("mcp tool skipped", "server", name, "tool", t.Name, "err", err)
			continue
		}
		proxies = append(proxies, pt)
	}
	admitted, errs := p.reg.SetPrefix(Prefix(name), proxies)
	for _, err := range errs {
		p.log.Warn("mcp tool refused", "server", name, "err", err)
	}
	*everConnected = true
	p.setStatus(name, fmt.Sprintf("connected: %d tools", len(admitted)))
	p.log.Info("mcp server connected", "server", name, "tools", len(admitted))

	waitErr := make(chan error, 1)
	go func() { waitErr <- cs.Wait() }()
	select {
	case <-ctx.Done():
		cs.Close()
		<-waitErr
		return ctx.Err()
	case err := <-waitErr:
		if err == nil {
			err = errors.New("the server closed the connection")
		}
		return err
	}
}

// proxy is a plugin tool: calls go to the MCP server that offered it.
type proxy struct {
	name, server, tool, desc string
	schema                   json.RawMessage
	cs                       *sdk.ClientSession
}

func newProxy(server string, t *sdk.Tool, cs *sdk.ClientSession) (*proxy, error) {
	var schema json.RawMessage
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, err
		}
		schema = b
	}
	return &proxy{
		name: Prefix(server) + t.Name, server: server, tool: t.Name,
		desc: t.Description, schema: schema, cs: cs,
	}, nil
}

func (t *proxy) Name() string            { return t.name }
func (t *proxy) Description() string     { return t.desc }
func (t *proxy) Schema() json.RawMessage { return t.schema }

// ReadOnly is false: a plugin's side effects cannot be known, so batches
// holding plugin tools run in order.
func (t *proxy) ReadOnly() bool { return false }

func (t *proxy) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	res, err := t.cs.CallTool(ctx, &sdk.CallToolParams{Name: t.tool, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("MCP server %q: %w", t.server, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			b.WriteString(c.Text)
		default:
			data, _ := json.Marshal(c)
			b.Write(data)
		}
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
	if res.IsError {
		return "", fmt.Errorf("%s: %s", t.name, strings.TrimSpace(b.String()))
	}
	return b.String(), nil
}
