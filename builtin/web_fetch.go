package builtin

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentls/agentls/registry"
	"github.com/agentls/agentls/webfetch"
	"github.com/agentls/agentls/workspace"
)

const webFetchDescription = "Fetch an http(s) URL as text: HTML as Markdown (default), text or raw; JSON pretty-printed. Private and local addresses are refused."

const webFetchSchema = `{
	"type": "object",
	"properties": {
		"url": {"type": "string", "description": "http or https URL"},
		"format": {"type": "string", "enum": ["markdown", "text", "raw"], "description": "default markdown"},
		"max_bytes": {"type": "integer", "minimum": 1, "maximum": 10485760, "description": "body bytes read, default 2097152"},
		"timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 60, "description": "default 15"}
	},
	"required": ["url"],
	"additionalProperties": false
}`

// settingAllowPrivate lets web_fetch reach loopback, private and link-local
// addresses (local development servers; the tests' httptest servers).
const settingAllowPrivate = "webFetch.allowPrivate"

type webFetch struct{}

func init() { registry.RegisterBuiltin(webFetch{}) }

func (webFetch) Name() string            { return "web_fetch" }
func (webFetch) Description() string     { return webFetchDescription }
func (webFetch) Schema() json.RawMessage { return json.RawMessage(webFetchSchema) }
func (webFetch) ReadOnly() bool          { return true }
func (webFetch) Annotations() registry.Annotations {
	return registry.Annotations{OpenWorld: true}
}

func (webFetch) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct {
		URL            string `json:"url"`
		Format         string `json:"format"`
		MaxBytes       int64  `json:"max_bytes"`
		TimeoutSeconds int    `json:"timeout_seconds"`
	}
	if err := unmarshalArgs(args, &a); err != nil {
		return "", err
	}
	opts := webfetch.Options{
		Format:   a.Format,
		MaxBytes: a.MaxBytes,
		Timeout:  time.Duration(a.TimeoutSeconds) * time.Second,
	}
	// web_fetch needs no workspace; a session only brings settings.
	if s, err := workspace.From(ctx); err == nil {
		s.Setting(settingAllowPrivate, &opts.AllowPrivate)
	}
	page, err := webfetch.Fetch(ctx, a.URL, opts)
	if err != nil {
		return "", err
	}
	return page.String(), nil
}
