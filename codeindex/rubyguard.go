package codeindex

import "bytes"

// tree-sitter-ruby's scanner keeps the word of each heredoc it has opened
// in its state, its length in one byte (scanner.c, serialize): a word of
// 256 characters or more (`<<'...` with the closing quote far away, in
// text being typed; or 256 letters after <<) comes back shorter than it
// went, and deserialize's assert aborts the process. No valid Ruby has
// such a word. rubySafe gives the parser a copy of such a text with the
// second '<' of each such `<<` made a space (a comparison: no heredoc);
// every byte stays where it was.

// heredocWordMax is the longest heredoc word (bytes) rubySafe lets
// through: well under the 256 characters that break the scanner.
const heredocWordMax = 200

// rubySafe returns src, or a copy without the heredocs whose words are
// too long for tree-sitter-ruby's scanner (changed is true then), when l
// is Ruby.
func rubySafe(l *Language, src []byte) (out []byte, changed bool) {
	if l == nil || l.Name != "ruby" {
		return src, false
	}
	out = src
	for i := 0; ; {
		k := bytes.Index(src[i:], []byte("<<"))
		if k < 0 {
			return out, changed
		}
		at := i + k
		i = at + 2
		j := i
		if j < len(src) && (src[j] == '-' || src[j] == '~') {
			j++
		}
		long := false
		if j < len(src) && (src[j] == '\'' || src[j] == '"' || src[j] == '`') {
			e := bytes.IndexByte(src[j+1:], src[j])
			long = e < 0 || e >= heredocWordMax
		} else {
			n := 0
			for j+n < len(src) && isIdentByte(src[j+n]) {
				n++
			}
			long = n >= heredocWordMax
		}
		if long {
			if !changed {
				out, changed = bytes.Clone(src), true
			}
			out[at+1] = ' '
		}
	}
}
