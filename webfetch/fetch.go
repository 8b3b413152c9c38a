// Package webfetch fetches a URL for the web_fetch tool, safely: only http
// and https, every connection's resolved address checked (loopback,
// private, link-local, multicast and cloud metadata addresses are refused
// unless allowed), redirects re-checked and bounded, the body capped, the
// charset decoded, and HTML turned into Markdown or text.
package webfetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
)

// Limits and defaults of one fetch.
const (
	DefaultTimeout  = 15 * time.Second
	MaxTimeout      = 60 * time.Second
	DefaultMaxBytes = 2 << 20
	MaxMaxBytes     = 10 << 20
	DefaultMaxChars = 30000 // characters of text returned
	MaxRedirects    = 5
	userAgent       = "agentls-web_fetch/1 (+https://github.com/agentls/agentls)"
)

// Options tune one fetch. The zero value is the tool's defaults.
type Options struct {
	Format       string        // "markdown" (default), "text" or "raw"
	MaxBytes     int64         // body bytes read at most (0: DefaultMaxBytes)
	Timeout      time.Duration // for the whole fetch (0: DefaultTimeout)
	MaxChars     int           // characters of Text at most (0: DefaultMaxChars)
	AllowPrivate bool          // allow loopback, private and link-local addresses (config webFetch.allowPrivate)

	// public are addresses treated as public (tests stand in a loopback
	// server for a public one).
	public []netip.Addr
}

// Page is a fetched document.
type Page struct {
	URL         string // the final URL, after redirects
	Status      int
	ContentType string // the media type, without parameters
	Charset     string // the charset the body was decoded from
	Bytes       int    // body bytes read
	Truncated   bool   // the body was longer than MaxBytes
	Text        string // the document in the requested format, capped at MaxChars
}

// String renders the page for the model: a header line, then the text.
func (p *Page) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s (%d, %s, %d bytes", p.URL, p.Status, p.ContentType, p.Bytes)
	if p.Truncated {
		sb.WriteString(", body cut at max_bytes")
	}
	sb.WriteString(")\n\n")
	sb.WriteString(p.Text)
	return sb.String()
}

// Fetch gets rawURL and returns it as text in opts.Format.
func Fetch(ctx context.Context, rawURL string, opts Options) (*Page, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q: %w", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("invalid URL %q: only http and https URLs can be fetched", rawURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("invalid URL %q: no host", rawURL)
	}
	switch opts.Format {
	case "":
		opts.Format = "markdown"
	case "markdown", "text", "raw":
	default:
		return nil, fmt.Errorf("unknown format %q: use markdown, text or raw", opts.Format)
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	opts.MaxBytes = min(opts.MaxBytes, MaxMaxBytes)
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	opts.Timeout = min(opts.Timeout, MaxTimeout)
	if opts.MaxChars <= 0 {
		opts.MaxChars = DefaultMaxChars
	}

	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	client := newClient(opts.AllowPrivate, opts.public)
	defer client.CloseIdleConnections()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q: %w", rawURL, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fetchError(u.String(), opts.Timeout, err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("GET %s: %s", final, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, opts.MaxBytes+1))
	if err != nil {
		return nil, fetchError(final, opts.Timeout, err)
	}
	page := &Page{URL: final, Status: resp.StatusCode}
	if int64(len(body)) > opts.MaxBytes {
		body = body[:opts.MaxBytes]
		page.Truncated = true
	}
	page.Bytes = len(body)

	header := resp.Header.Get("Content-Type")
	mediaType, _, err := mime.ParseMediaType(header)
	if err != nil || mediaType == "" {
		header = http.DetectContentType(body)
		mediaType, _, _ = mime.ParseMediaType(header)
	}
	page.ContentType = mediaType
	kind := classify(mediaType)
	if kind == kindBinary {
		return nil, fmt.Errorf("GET %s: the content is %s, not text; web_fetch returns only text, HTML and JSON", final, mediaType)
	}

	text, cs := decode(body, header, kind)
	page.Charset = cs
	switch {
	case kind == kindJSON && opts.Format != "raw":
		var buf bytes.Buffer
		if json.Indent(&buf, []byte(text), "", "  ") == nil {
			text = buf.String()
		}
	case kind == kindHTML && opts.Format == "markdown":
		md, err := htmltomarkdown.ConvertString(text, converter.WithDomain(final), converter.WithContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("GET %s: convert HTML to Markdown: %w", final, err)
		}
		text = md
	case kind == kindHTML && opts.Format == "text":
		text = htmlText(text)
	}
	page.Text = capText(text, opts.MaxChars)
	return page, nil
}

// newClient returns a client whose every connection goes through the
// address check, that follows at most MaxRedirects http(s) redirects, and
// that ignores proxy settings (a proxy would hide the real address).
func newClient(allowPrivate bool, public []netip.Addr) *http.Client {
	dialer := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			return checkAddress(address, allowPrivate, public)
		},
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  30 * time.Second,
		MaxResponseHeaderBytes: 256 << 10,
	}
	return &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return fmt.Errorf("stopped after %d redirects", MaxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to %s: only http and https can be fetched", req.URL)
			}
			return nil
		},
	}
}

// fetchError turns a client error into a message naming the URL.
func fetchError(u string, timeout time.Duration, err error) error {
	var blocked *BlockedError
	switch {
	case errors.As(err, &blocked):
		return fmt.Errorf("GET %s: %w", u, blocked)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("GET %s: timed out after %s", u, timeout)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("GET %s: cancelled", u)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("GET %s: %w", u, err)
}

type contentKind int

const (
	kindBinary contentKind = iota
	kindText
	kindHTML
	kindJSON
)

// classify sorts a media type into what web_fetch can show.
func classify(mediaType string) contentKind {
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		return kindHTML
	case mediaType == "application/json" || strings.HasSuffix(mediaType, "+json"):
		return kindJSON
	case strings.HasPrefix(mediaType, "text/"),
		mediaType == "application/xml", strings.HasSuffix(mediaType, "+xml"),
		mediaType == "application/javascript", mediaType == "application/ecmascript",
		mediaType == "application/x-javascript", mediaType == "application/yaml",
		mediaType == "application/x-yaml", mediaType == "application/toml",
		mediaType == "application/x-sh", mediaType == "application/sql",
		mediaType == "application/graphql", mediaType == "application/x-ndjson",
		mediaType == "application/jsonl":
		return kindText
	}
	return kindBinary
}

// decode converts body to UTF-8: the charset from the Content-Type header,
// a byte order mark, or (HTML) a <meta> tag; JSON without one is UTF-8.
func decode(body []byte, contentType string, kind contentKind) (string, string) {
	if kind == kindJSON {
		if _, params, err := mime.ParseMediaType(contentType); err != nil || params["charset"] == "" {
			return strings.ToValidUTF8(string(body), "\uFFFD"), "utf-8"
		}
	}
	enc, name := determineEncoding(body, contentType)
	if name == "utf-8" || enc == nil {
		return strings.ToValidUTF8(string(trimPartialRune(body)), "\uFFFD"), "utf-8"
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD"), name
	}
	return string(out), name
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b (the
// body cut at max_bytes).
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// capText keeps the first limit characters of s with a note of the rest.
func capText(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	i, n := 0, 0
	for i < len(s) && n < limit {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	rest := utf8.RuneCountInString(s[i:])
	return fmt.Sprintf("%s\n\n[… %d more characters cut: the document is longer than the %d shown]", s[:i], rest, limit)
}
