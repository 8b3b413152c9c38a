//go:build unix

package textsearch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestSearchInParts: a file searched in parts (here of a few hundred
// bytes) gives the output of the same text searched whole — line numbers,
// before- and after-context across the seams, counts — and a NUL byte in a
// later part still makes it binary.
func TestSearchInParts(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 400; i++ {
		switch {
		case i%7 == 0:
			fmt.Fprintf(&b, "line %d has the needle\n", i)
		case i == 200:
			b.WriteString(strings.Repeat("long ", 30) + "needle\n")
		default:
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	text := b.String()
	write := func(name, s string) File {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return File{Abs: filepath.Join(dir, name), Rel: name}
	}
	f := write("big.txt", text)
	bin := write("bin.txt", text+"\x00\n")
	p, err := Compile("needle", PatternOptions{})
	if err != nil {
		t.Fatal(err)
	}
	saved := partSize
	t.Cleanup(func() { partSize = saved })
	for _, q := range []Query{
		{Pattern: p, MaxResults: 1000},
		{Pattern: p, Context: 2, MaxResults: 1000},
		{Pattern: p, Context: 4, MaxResults: 1000},
		{Pattern: p, Mode: Count},
		{Pattern: p, Mode: FilesWithMatches},
	} {
		partSize = saved
		whole, err := Search(context.Background(), q, sliceSource(File{Rel: "big.txt", Text: []byte(text)}))
		if err != nil {
			t.Fatal(err)
		}
		partSize = 300
		parts, err := Search(context.Background(), q, sliceSource(f))
		if err != nil {
			t.Fatal(err)
		}
		if parts != whole {
			t.Errorf("context %d mode %d: in parts\n%s\nwhole\n%s", q.Context, q.Mode, parts, whole)
		}
		if out, _ := Search(context.Background(), q, sliceSource(bin)); !strings.HasPrefix(out, "No matches") && out != "" {
			t.Errorf("binary file in parts: %q", out)
		}
	}
}

// TestMultilineAcrossParts: multiline matches that straddle the seam
// between two parts (here with parts of about a kilobyte, the seam moved
// through the text) are found, with the output of the text searched whole:
// line numbers, matches spanning lines, context, counts.
func TestMultilineAcrossParts(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 600; i++ {
		switch {
		case i%11 == 0:
			fmt.Fprintf(&b, "begin %d\nmiddle\nend of it\n", i)
		case i%17 == 0:
			fmt.Fprintf(&b, "begin %d alone\n", i)
		default:
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	text := b.String()
	abs := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := partSize
	t.Cleanup(func() { partSize = saved })
	for _, pat := range []string{`begin \d+\nmiddle\nend`, `middle.end`, `\d+\n(middle|line)`} {
		p, err := Compile(pat, PatternOptions{Multiline: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []Query{
			{Pattern: p, MaxResults: 1000},
			{Pattern: p, Context: 2, MaxResults: 1000},
			{Pattern: p, Mode: Count},
		} {
			partSize = saved
			whole, err := Search(context.Background(), q, sliceSource(File{Rel: "big.txt", Text: []byte(text)}))
			if err != nil {
				t.Fatal(err)
			}
			for size := 1000; size < 1400; size += 23 {
				partSize = size
				parts, err := Search(context.Background(), q, sliceSource(File{Abs: abs, Rel: "big.txt", Size: int64(len(text))}))
				if err != nil {
					t.Fatal(err)
				}
				if parts != whole {
					t.Errorf("%q context %d mode %d, parts of %d bytes: %s", pat, q.Context, q.Mode, size, firstDiff(parts, whole))
					break
				}
			}
		}
	}
}

// TestUTF16InParts: a UTF-16 file (little and big endian, with a BOM)
// larger than a part is decoded and searched in parts, with the output of
// its text searched whole, characters outside the BMP included; before, it
// read as binary.
func TestUTF16InParts(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 500; i++ {
		switch {
		case i%9 == 0:
			fmt.Fprintf(&b, "ligne %d: l'aiguille \U0001F9F5 é\n", i)
		default:
			fmt.Fprintf(&b, "ligne %d — 日本\n", i)
		}
	}
	text := b.String()
	saved := partSize
	t.Cleanup(func() { partSize = saved })
	for _, big := range []bool{false, true} {
		abs := filepath.Join(dir, fmt.Sprintf("utf16-%v.txt", big))
		if err := os.WriteFile(abs, encodeUTF16(text, big), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Compile(`aiguille \x{1F9F5}`, PatternOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []Query{
			{Pattern: p, MaxResults: 1000},
			{Pattern: p, Context: 1, MaxResults: 1000},
			{Pattern: p, Mode: Count},
		} {
			partSize = saved
			whole, err := Search(context.Background(), q, sliceSource(File{Rel: "u.txt", Text: []byte(text)}))
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{301, 1000, 4099} {
				partSize = size
				parts, err := Search(context.Background(), q, sliceSource(File{Abs: abs, Rel: filepath.Base(abs)}))
				if err != nil {
					t.Fatal(err)
				}
				if want := strings.ReplaceAll(whole, "u.txt", filepath.Base(abs)); parts != want {
					t.Errorf("big endian %v, context %d mode %d, parts of %d bytes: %s", big, q.Context, q.Mode, size, firstDiff(parts, want))
				}
			}
		}
	}
}

// encodeUTF16 is s in UTF-16 with a byte order mark.
func encodeUTF16(s string, big bool) []byte {
	units := utf16.Encode([]rune(s))
	out := make([]byte, 0, 2+2*len(units))
	for _, u := range append([]uint16{0xFEFF}, units...) {
		if big {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

// firstDiff shows where got and want first differ, line by line.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: got %q, want %q (%d lines, want %d)", i+1, gl, wl, len(g), len(w))
		}
	}
	return "same"
}
