//go:build unix

package textsearch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
