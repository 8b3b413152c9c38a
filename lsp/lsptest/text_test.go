package lsptest

import "testing"

func TestApplyEdit(t *testing.T) {
	rg := func(l1, c1, l2, c2 uint32) Range {
		return Range{Start: Position{Line: l1, Character: c1}, End: Position{Line: l2, Character: c2}}
	}
	tests := []struct {
		text string
		r    Range
		new  string
		utf8 bool
		want string
	}{
		{"a😀b", rg(0, 3, 0, 3), "X", false, "a😀Xb"},    // after the surrogate pair
		{"a😀b", rg(0, 2, 0, 2), "X", false, "aX😀b"},    // inside it: its start
		{"a😀b", rg(0, 5, 0, 5), "X", true, "a😀Xb"},     // utf-8 bytes
		{"a😀b", rg(0, 3, 0, 3), "X", true, "aX😀b"},     // inside the UTF-8 sequence
		{"ab\r\ncd", rg(0, 9, 1, 1), "", false, "abd"}, // past the end of line 0, across CRLF
		{"ab\rcd", rg(1, 0, 1, 1), "X", false, "ab\rXd"},
		{"ab", rg(5, 0, 6, 0), "!", false, "ab!"}, // past the last line
		{"e\u0301", rg(0, 1, 0, 2), "", false, "e"},
	}
	for _, tt := range tests {
		got := ApplyEdit(tt.text, TextEdit{Range: tt.r, NewText: tt.new}, tt.utf8)
		if got != tt.want {
			t.Errorf("ApplyEdit(%q, %v, %q, utf8=%v) = %q, want %q", tt.text, tt.r, tt.new, tt.utf8, got, tt.want)
		}
	}
}
