package textsearch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func sliceSource(files ...File) Source {
	return func(ctx context.Context, fn func(File)) error {
		for _, f := range files {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fn(f)
		}
		return nil
	}
}

func TestSearchBudgetAndCancel(t *testing.T) {
	p, _ := Compile("x", PatternOptions{})
	src := sliceSource(File{Rel: "a", Text: []byte("x\n")}, File{Rel: "b", Text: []byte("x\n")})
	out, err := Search(context.Background(), Query{Pattern: p, Budget: time.Nanosecond}, src)
	if err != nil || !strings.Contains(out, "[search stopped after the 1ns time budget") {
		t.Errorf("budget: %q %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Search(ctx, Query{Pattern: p}, src); !errors.Is(err, ErrCancelled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestSearchSortedAndLimited(t *testing.T) {
	p, _ := Compile("hit", PatternOptions{})
	var files []File
	for i := 99; i >= 0; i-- { // out of order
		files = append(files, File{Rel: fmt.Sprintf("f%02d", i), Text: bytes.Repeat([]byte("hit\nmiss\n"), 5)})
	}
	out, err := Search(context.Background(), Query{Pattern: p, MaxResults: 7}, sliceSource(files...))
	if err != nil {
		t.Fatal(err)
	}
	want := "f00:1:hit\nf00:3:hit\nf00:5:hit\nf00:7:hit\nf00:9:hit\nf01:1:hit\nf01:3:hit\n[7 of 500 matches in 100 files shown (max_results 7); next: the same call with offset: 7, or narrow with path/glob/type]"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	out, _ = Search(context.Background(), Query{Pattern: p, Mode: Count, MaxResults: 2}, sliceSource(files...))
	if want := "f00:5\nf01:5\n[2 of 100 files shown (max_results 2); next: the same call with offset: 2, or narrow with path/glob/type]"; out != want {
		t.Errorf("count: got\n%s\nwant\n%s", out, want)
	}
	out, _ = Search(context.Background(), Query{Pattern: p, MaxBytes: 30}, sliceSource(files...))
	if !strings.HasPrefix(out, "f00:1:hit\nf00:3:hit\nf00:5:hit\n[3 of 500 matches in 100 files shown (the result size limit); next: the same call with offset: 3,") {
		t.Errorf("bytes: got\n%s", out)
	}
}

func TestAppendCut(t *testing.T) {
	line := []byte(strings.Repeat("é", 300) + "MATCH" + strings.Repeat("ü", 300))
	col := bytes.Index(line, []byte("MATCH"))
	got := appendCut(nil, line, col, 100)
	if !utf8.Valid(got) || !bytes.Contains(got, []byte("MATCH")) || utf8.RuneCount(got) != 102 {
		t.Errorf("cut: %q (%d runes)", got, utf8.RuneCount(got))
	}
	got = appendCut(nil, line, -1, 100)
	if !bytes.HasPrefix(got, []byte("éé")) || !bytes.HasSuffix(got, []byte("…")) {
		t.Errorf("cut at start: %q", got)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("%d: %q", n, got)
		}
	}
}

// TestSearchPaging walks every page of a result by the offset each note
// names, under a count limit and under a byte limit, and checks that the
// pages together are the whole result, in order, each match once.
func TestSearchPaging(t *testing.T) {
	p, _ := Compile("hit", PatternOptions{})
	var files []File
	for i := range 30 {
		files = append(files, File{Rel: fmt.Sprintf("d%d/f", i%7) + strings.Repeat("x", i), Text: []byte(strings.Repeat("hit\nmiss\nmiss\n", 1+i%4))})
	}
	for _, mode := range []Mode{Content, FilesWithMatches, Count} {
		for _, q := range []Query{{MaxResults: 7}, {MaxResults: 1000, MaxBytes: 200}, {MaxResults: 5, Context: 1}} {
			q.Pattern, q.Mode = p, mode
			all := q
			all.MaxResults, all.MaxBytes = 100000, 0
			want, _ := Search(context.Background(), all, sliceSource(files...))
			if q.Context > 0 && mode == Content {
				want = strings.ReplaceAll(want, "--\n", "")
			}
			var got []string
			for page := 0; ; page++ {
				if page > 200 {
					t.Fatalf("mode %d %+v: no end after 200 pages", mode, q)
				}
				out, err := Search(context.Background(), q, sliceSource(files...))
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(out, "\n")
				note := lines[len(lines)-1]
				if !strings.HasPrefix(note, "[") {
					got = append(got, lines...)
					break
				}
				for _, l := range lines[:len(lines)-1] {
					if l != "--" {
						got = append(got, l)
					}
				}
				if strings.HasSuffix(note, "the last ones]") {
					break
				}
				var next int
				i := strings.Index(note, "offset: ")
				if i < 0 {
					t.Fatalf("mode %d %+v: note %q names no offset", mode, q, note)
				}
				fmt.Sscanf(note[i:], "offset: %d", &next)
				if next <= q.Offset {
					t.Fatalf("mode %d %+v: note %q does not move on", mode, q, note)
				}
				q.Offset = next
			}
			if strings.Join(got, "\n") != want {
				t.Errorf("mode %d %+v: pages\n%s\nwant\n%s", mode, q, strings.Join(got, "\n"), want)
			}
		}
	}
	out, _ := Search(context.Background(), Query{Pattern: p, Offset: 1000}, sliceSource(files...))
	if !strings.HasSuffix(out, "[offset 1,000 is past the last of the 73 matches: pass a smaller offset]") {
		t.Errorf("past the end: %q", out)
	}
}

func TestComparePaths(t *testing.T) {
	// rg --sort path (13.0) orders these so: by component, not by bytes.
	want := []string{"a/b", "a/b/c", "a/bc", "a-b/a", "a.b", "pip/_vendor/x", "pip-23.2.1.dist-info/AUTHORS.txt"}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortFunc(got, ComparePaths)
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
