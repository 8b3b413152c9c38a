// Package jsonspan scans JSON text for the byte offsets of values, object
// members and array elements, without decoding them, so that a caller can
// rewrite one value and keep every other byte of the document (its layout,
// key order and number spelling) as it was. Offsets are into the string
// given. The scan checks the structure (brackets, strings, colons and
// commas) and reports ErrSyntax where it breaks; it does not check the
// spelling of numbers and literals, so a caller that needs a valid
// document checks it with encoding/json first. Keys are decoded with
// encoding/json.
package jsonspan

import (
	"encoding/json"
	"errors"
	"strings"
)

// Member is one "key": value pair of a JSON object, as byte offsets into
// the document.
type Member struct {
	Key              string
	KeyStart, KeyEnd int // the quoted key
	ValStart, ValEnd int
}

// Span is the byte range of one JSON value.
type Span struct{ Start, End int }

// ErrSyntax is the error of every function here on text that is not JSON.
var ErrSyntax = errors.New("malformed JSON")

// SkipSpace returns the offset of the first byte at or after i that is not
// JSON white space.
func SkipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// ValueEnd returns the offset just after the JSON value starting at i.
func ValueEnd(s string, i int) (int, error) {
	if i >= len(s) {
		return 0, ErrSyntax
	}
	switch s[i] {
	case '{':
		_, end, err := Object(s, i)
		return end, err
	case '[':
		_, end, err := Array(s, i)
		return end, err
	case '"':
		return StringEnd(s, i)
	}
	j := i
	for j < len(s) && !strings.ContainsRune(",}] \t\n\r", rune(s[j])) {
		j++
	}
	if j == i {
		return 0, ErrSyntax
	}
	return j, nil
}

// StringEnd returns the offset just after the JSON string starting at i.
func StringEnd(s string, i int) (int, error) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, ErrSyntax
}

// Object lists the members of the object starting at i (s[i] == '{')
// and returns the offset just after it.
func Object(s string, i int) ([]Member, int, error) {
	if i >= len(s) || s[i] != '{' {
		return nil, 0, ErrSyntax
	}
	var ms []Member
	j := SkipSpace(s, i+1)
	if j < len(s) && s[j] == '}' {
		return nil, j + 1, nil
	}
	for j < len(s) {
		if s[j] != '"' {
			return nil, 0, ErrSyntax
		}
		m := Member{KeyStart: j}
		end, err := StringEnd(s, j)
		if err != nil {
			return nil, 0, err
		}
		m.KeyEnd = end
		if err := json.Unmarshal([]byte(s[m.KeyStart:m.KeyEnd]), &m.Key); err != nil {
			return nil, 0, ErrSyntax
		}
		j = SkipSpace(s, end)
		if j >= len(s) || s[j] != ':' {
			return nil, 0, ErrSyntax
		}
		m.ValStart = SkipSpace(s, j+1)
		if m.ValEnd, err = ValueEnd(s, m.ValStart); err != nil {
			return nil, 0, err
		}
		ms = append(ms, m)
		j = SkipSpace(s, m.ValEnd)
		if j < len(s) && s[j] == ',' {
			j = SkipSpace(s, j+1)
			continue
		}
		if j < len(s) && s[j] == '}' {
			return ms, j + 1, nil
		}
		break
	}
	return nil, 0, ErrSyntax
}

// Array lists the elements of the array starting at i (s[i] == '[')
// and returns the offset just after it.
func Array(s string, i int) ([]Span, int, error) {
	if i >= len(s) || s[i] != '[' {
		return nil, 0, ErrSyntax
	}
	var es []Span
	j := SkipSpace(s, i+1)
	if j < len(s) && s[j] == ']' {
		return nil, j + 1, nil
	}
	for j < len(s) {
		end, err := ValueEnd(s, j)
		if err != nil {
			return nil, 0, err
		}
		es = append(es, Span{Start: j, End: end})
		j = SkipSpace(s, end)
		if j < len(s) && s[j] == ',' {
			j = SkipSpace(s, j+1)
			continue
		}
		if j < len(s) && s[j] == ']' {
			return es, j + 1, nil
		}
		break
	}
	return nil, 0, ErrSyntax
}

// Find returns the first member named key.
func Find(ms []Member, key string) (Member, bool) {
	for _, m := range ms {
		if m.Key == key {
			return m, true
		}
	}
	return Member{}, false
}
