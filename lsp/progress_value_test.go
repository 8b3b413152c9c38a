package lsp

import (
	"encoding/json"
	"testing"
)

// TestProgressValues pins what go.lsp.dev/protocol's progress types would
// get wrong (see progress): a percentage of 0 and a report's empty message
// are sent, and a token goes back byte for byte.
func TestProgressValues(t *testing.T) {
	for _, c := range []struct {
		v    progressParams
		want string
	}{
		{progressParams{Token: json.RawMessage(`4294967296`), Value: progressBegin{Kind: "begin", Title: "t", Percentage: percentage(0)}},
			`{"token":4294967296,"value":{"kind":"begin","title":"t","percentage":0}}`},
		{progressParams{Token: json.RawMessage(`"a"`), Value: progressBegin{Kind: "begin", Title: "t", Message: "m", Percentage: percentage(-1)}},
			`{"token":"a","value":{"kind":"begin","title":"t","message":"m"}}`},
		{progressParams{Token: json.RawMessage(`"a"`), Value: progressReport{Kind: "report", Message: "", Percentage: percentage(0)}},
			`{"token":"a","value":{"kind":"report","message":"","percentage":0}}`},
		{progressParams{Token: json.RawMessage(`"a"`), Value: progressEnd{Kind: "end"}},
			`{"token":"a","value":{"kind":"end"}}`},
	} {
		if b, _ := json.Marshal(c.v); string(b) != c.want {
			t.Errorf("got  %s\nwant %s", b, c.want)
		}
	}
}
