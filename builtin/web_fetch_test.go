package builtin

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestWebFetchTool(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<h1>Hi</h1><p>there</p>"))
	}))
	defer srv.Close()
	ctx, s := newTestSession(t, "")
	// Private addresses are refused unless the setting allows them.
	wantErr(t, ctx, "web_fetch", map[string]any{"url": srv.URL}, "loopback", "webFetch.allowPrivate")
	s.Settings = json.RawMessage(`{"webFetch":{"allowPrivate":true}}`)
	out := mustExec(t, ctx, "web_fetch", map[string]any{"url": srv.URL})
	wantOut(t, out, srv.URL+" (200, text/html", "# Hi\n\nthere")
	out = mustExec(t, ctx, "web_fetch", map[string]any{"url": srv.URL, "format": "text"})
	wantOut(t, out, "Hi\nthere")
	wantErr(t, ctx, "web_fetch", map[string]any{"url": "file:///etc/passwd"}, "only http and https")
}
