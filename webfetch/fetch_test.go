package webfetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// serve starts an httptest server on 127.0.0.1 with the given routes.
func serve(t *testing.T, routes map[string]http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.HandleFunc(p, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func body(contentType, s string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.Write([]byte(s))
	}
}

var local = Options{AllowPrivate: true}

func TestRefusesLoopbackByDefault(t *testing.T) {
	srv := serve(t, map[string]http.HandlerFunc{"/": body("text/plain", "secret")})
	_, err := Fetch(context.Background(), srv.URL+"/", Options{})
	if err == nil || !strings.Contains(err.Error(), "loopback") || !strings.Contains(err.Error(), "webFetch.allowPrivate") ||
		!strings.Contains(err.Error(), srv.URL) {
		t.Fatalf("err = %v", err)
	}
	// localhost resolves to loopback: refused too.
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	_, err = Fetch(context.Background(), fmt.Sprintf("http://localhost:%d/", port), Options{})
	if err == nil || !strings.Contains(err.Error(), "refused to connect") {
		t.Fatalf("localhost: err = %v", err)
	}
}

func TestRedirectToPrivateRefused(t *testing.T) {
	// The second server listens on 127.0.0.2; the first stands in for a
	// public server, so only the redirect's address is checked.
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	var reached atomic.Bool
	inner := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Store(true) }))
	inner.Listener.Close()
	inner.Listener = l
	inner.Start()
	t.Cleanup(inner.Close)

	outer := serve(t, map[string]http.HandlerFunc{"/": func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/admin", http.StatusFound)
	}})
	opts := Options{public: []netip.Addr{netip.MustParseAddr("127.0.0.1")}}
	_, err = Fetch(context.Background(), outer.URL+"/", opts)
	if err == nil || !strings.Contains(err.Error(), "127.0.0.2") || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("err = %v", err)
	}
	if reached.Load() {
		t.Error("the private server was reached")
	}
}

func TestRedirectToMetadataRefusedEvenWhenPrivateAllowed(t *testing.T) {
	srv := serve(t, map[string]http.HandlerFunc{"/": func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	}})
	_, err := Fetch(context.Background(), srv.URL+"/", local)
	if err == nil || !strings.Contains(err.Error(), "cloud metadata") || !strings.Contains(err.Error(), "169.254.169.254") {
		t.Fatalf("err = %v", err)
	}
}

func TestRedirectLimit(t *testing.T) {
	srv := serve(t, map[string]http.HandlerFunc{"/r/": func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/r/%d", &n)
		if n == 0 {
			w.Write([]byte("arrived"))
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
	}})
	p, err := Fetch(context.Background(), srv.URL+"/r/5", local)
	if err != nil || p.Text != "arrived" || p.URL != srv.URL+"/r/0" {
		t.Fatalf("five redirects: %+v, %v", p, err)
	}
	_, err = Fetch(context.Background(), srv.URL+"/r/6", local)
	if err == nil || !strings.Contains(err.Error(), "stopped after 5 redirects") {
		t.Fatalf("six redirects: %v", err)
	}
}

func TestRedirectToOtherSchemeRefused(t *testing.T) {
	srv := serve(t, map[string]http.HandlerFunc{"/": func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	}})
	_, err := Fetch(context.Background(), srv.URL+"/", local)
	if err == nil || !strings.Contains(err.Error(), "only http and https") {
		t.Fatalf("err = %v", err)
	}
}

func TestBadURLs(t *testing.T) {
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/x", "example.com", "http://", "::"} {
		if _, err := Fetch(context.Background(), u, local); err == nil || !strings.Contains(err.Error(), "URL") {
			t.Errorf("Fetch(%q) = %v", u, err)
		}
	}
}

func TestSizeCap(t *testing.T) {
	big := strings.Repeat("abcdefghij", 10000) // 100,000 bytes
	srv := serve(t, map[string]http.HandlerFunc{"/": body("text/plain", big)})
	opts := local
	opts.MaxBytes = 1000
	p, err := Fetch(context.Background(), srv.URL+"/", opts)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Truncated || p.Bytes != 1000 || p.Text != big[:1000] || !strings.Contains(p.String(), "body cut at max_bytes") {
		t.Errorf("truncated=%v bytes=%d len(text)=%d", p.Truncated, p.Bytes, len(p.Text))
	}
	// The output cap applies on top of the body cap.
	opts = local
	opts.MaxChars = 500
	p, err = Fetch(context.Background(), srv.URL+"/", opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Text, big[:500]) || !strings.Contains(p.Text, "99500 more characters cut") {
		t.Errorf("text cap: %q", p.Text[len(p.Text)-100:])
	}
}

func TestCharsets(t *testing.T) {
	latin1 := []byte("caf\xe9 cr\xe8me")       // café crème in ISO-8859-1
	sjis := []byte("\x93\xfa\x96\x7b\x8c\xea") // 日本語 in Shift_JIS
	srv := serve(t, map[string]http.HandlerFunc{
		"/header": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=ISO-8859-1")
			w.Write(latin1)
		},
		"/meta": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write(append([]byte(`<html><head><meta charset="windows-1252"></head><body><p>`), append(latin1, []byte("</p></body></html>")...)...))
		},
		"/http-equiv": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write(append([]byte(`<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><body><p>`), append(sjis, []byte("</p></body></html>")...)...))
		},
		"/utf8": body("text/plain", "naïve ☃"),
	})
	for _, tt := range []struct{ path, format, want, charset string }{
		{"/header", "raw", "café crème", "windows-1252"},
		{"/meta", "text", "café crème", "windows-1252"},
		{"/http-equiv", "markdown", "日本語", "shift_jis"},
		{"/utf8", "", "naïve ☃", "utf-8"},
	} {
		opts := local
		opts.Format = tt.format
		p, err := Fetch(context.Background(), srv.URL+tt.path, opts)
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		if strings.TrimSpace(p.Text) != tt.want || p.Charset != tt.charset {
			t.Errorf("%s: text %q charset %q, want %q %q", tt.path, p.Text, p.Charset, tt.want, tt.charset)
		}
	}
}

const page = `<!doctype html>
<html><head><title>Doc</title><style>p{color:red}</style><script>alert("x")</script></head>
<body>
<h1>Getting started</h1>
<p>Read the <a href="/guide">guide</a> and <em>enjoy</em>.</p>
<ul><li>one</li><li>two</li></ul>
<pre><code>go test ./...</code></pre>
</body></html>`

func TestHTMLToMarkdownAndText(t *testing.T) {
	srv := serve(t, map[string]http.HandlerFunc{"/doc": body("text/html; charset=utf-8", page)})
	p, err := Fetch(context.Background(), srv.URL+"/doc", local)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Getting started", "Read the [guide](" + srv.URL + "/guide) and *enjoy*.", "- one\n- two", "```\ngo test ./...\n```"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("markdown lacks %q:\n%s", want, p.Text)
		}
	}
	if strings.Contains(p.Text, "alert") || strings.Contains(p.Text, "color:red") {
		t.Errorf("markdown keeps script or style:\n%s", p.Text)
	}

	opts := local
	opts.Format = "text"
	p, err = Fetch(context.Background(), srv.URL+"/doc", opts)
	if err != nil {
		t.Fatal(err)
	}
	want := "Getting started\nRead the guide and enjoy.\none\ntwo\ngo test ./...\n"
	if p.Text != want {
		t.Errorf("text = %q, want %q", p.Text, want)
	}

	opts.Format = "raw"
	p, err = Fetch(context.Background(), srv.URL+"/doc", opts)
	if err != nil || p.Text != page {
		t.Errorf("raw = %q, %v", p.Text, err)
	}
}

func TestJSONAndBinary(t *testing.T) {
	srv := serve(t, map[string]http.HandlerFunc{
		"/json": body("application/json", `{"b":[1,2],"a":"x"}`),
		"/png":  body("image/png", "\x89PNG\r\n\x1a\n...."),
		"/sniff": func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil // no header: sniffed
			w.Write([]byte("%PDF-1.4 binary"))
		},
		"/missing": http.NotFound,
	})
	p, err := Fetch(context.Background(), srv.URL+"/json", local)
	if err != nil || p.Text != "{\n  \"b\": [\n    1,\n    2\n  ],\n  \"a\": \"x\"\n}" {
		t.Errorf("json = %q, %v", p.Text, err)
	}
	_, err = Fetch(context.Background(), srv.URL+"/png", local)
	if err == nil || !strings.Contains(err.Error(), "image/png") {
		t.Errorf("png: %v", err)
	}
	_, err = Fetch(context.Background(), srv.URL+"/sniff", local)
	if err == nil || !strings.Contains(err.Error(), "application/pdf") {
		t.Errorf("sniffed pdf: %v", err)
	}
	_, err = Fetch(context.Background(), srv.URL+"/missing", local)
	if err == nil || !strings.Contains(err.Error(), "404 Not Found") || !strings.Contains(err.Error(), srv.URL+"/missing") {
		t.Errorf("404: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	srv := serve(t, map[string]http.HandlerFunc{"/slow": func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // until the client gives up
	}})
	opts := local
	opts.Timeout = 200 * time.Millisecond
	_, err := Fetch(context.Background(), srv.URL+"/slow", opts)
	if err == nil || !strings.Contains(err.Error(), "timed out after 200ms") {
		t.Errorf("err = %v", err)
	}
}

func TestBlockedReason(t *testing.T) {
	for _, tt := range []struct{ addr, want string }{
		{"127.0.0.1", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"192.168.1.1", "private"},
		{"fd12::1", "private"},
		{"169.254.1.1", "link-local"},
		{"fe80::1", "link-local"},
		{"224.0.0.1", "multicast"},
		{"ff02::1", "multicast"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"169.254.169.254", "cloud metadata"},
		{"fd00:ec2::254", "cloud metadata"},
		{"100.100.100.200", "cloud metadata"},
		{"100.64.0.1", "shared (carrier-grade NAT)"},
		{"64:ff9b::a00:1", "private"}, // NAT64 of 10.0.0.1
		{"64:ff9b::808:808", "NAT64"}, // NAT64 of a public address
		{"64:ff9b:1::808:808", "NAT64 (local use)"},
		{"::808:808", "IPv4-compatible IPv6"}, // ::8.8.8.8
		{"::a00:1", "IPv4-compatible IPv6"},   // ::10.0.0.1
		{"2002:7f00:1::1", "loopback"},        // 6to4 of 127.0.0.1
		{"255.255.255.255", "broadcast"},
		{"8.8.8.8", ""},
		{"2606:4700:4700::1111", ""},
		{"93.184.216.34", ""},
	} {
		if got := blockedReason(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("blockedReason(%s) = %q, want %q", tt.addr, got, tt.want)
		}
	}
	if err := checkAddress("127.0.0.1:80", true, nil); err != nil {
		t.Errorf("allowPrivate: %v", err)
	}
	if err := checkAddress("169.254.169.254:80", true, nil); err == nil {
		t.Error("metadata allowed with allowPrivate")
	}
}
