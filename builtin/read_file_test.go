package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16Bytes encodes s as UTF-16 with a BOM.
func utf16Bytes(s string, bigEndian bool) []byte {
	units := utf16.Encode([]rune(s))
	b := make([]byte, 0, 2+2*len(units))
	if bigEndian {
		b = append(b, 0xFE, 0xFF)
	} else {
		b = append(b, 0xFF, 0xFE)
	}
	for _, u := range units {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return b
}

func TestReadFile(t *testing.T) {
	ctx, _ := newTestSession(t, testdataArchive(t, "files.txtar"))
	out := mustExec(t, ctx, "read_file", `{"path":"main.go"}`)
	want := "1→package main\n2→\n3→import \"fmt\"\n4→\n5→func main() {\n6→\tfmt.Println(\"hello\")\n7→}"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}

	out = mustExec(t, ctx, "read_file", `{"path":"util/strings.go","offset":3,"limit":3}`)
	want = "3→// Reverse returns s reversed.\n4→func Reverse(s string) string {\n5→\tr := []rune(s)\n(lines 3-5 of 10; call read_file with offset 6 to read on)"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// The last window has no trailer; numbers are right-aligned to the widest.
	out = mustExec(t, ctx, "read_file", `{"path":"util/strings.go","offset":9}`)
	if out != " 9→\treturn string(r)\n10→}" {
		t.Errorf("got %q", out)
	}
	wantErr(t, ctx, "read_file", `{"path":"util/strings.go","offset":11}`, "offset 11 is past the end of util/strings.go, which has 10 lines")
	// offset 0 reads from the first line, as 1 does.
	if out := mustExec(t, ctx, "read_file", `{"path":"util/strings.go","offset":0,"limit":1}`); !strings.HasPrefix(out, "1→") {
		t.Errorf("offset 0: %q", out)
	}
	wantErr(t, ctx, "read_file", `{"path":"nope.go"}`, "nope.go does not exist")
	wantErr(t, ctx, "read_file", `{"path":"util"}`, "util is a directory", "ls")
	// An absolute path inside the workspace is fine.
	ctx2, s2 := newTestSession(t, "-- a.txt --\nx\n")
	wantOut(t, mustExec(t, ctx2, "read_file", map[string]any{"path": filepath.Join(s2.WS.Root(), "a.txt")}), "1→x")
}

func TestReadFileEncodings(t *testing.T) {
	ctx, s := newTestSession(t, "")
	writeWS(t, s, "crlf.txt", "one\r\ntwo\r\n")
	writeWS(t, s, "bom.txt", "\uFEFFbom line\n")
	writeWS(t, s, "empty.txt", "")
	writeWS(t, s, "utf16le.txt", string(utf16Bytes("héllo\r\nwörld\r\n", false)))
	writeWS(t, s, "utf16be.txt", string(utf16Bytes("日本\n", true)))
	writeWS(t, s, "bin.dat", "PK\x03\x04\x00\x00binary")
	tests := map[string]string{
		"crlf.txt":    "1→one\n2→two",
		"bom.txt":     "1→bom line",
		"empty.txt":   "(empty.txt is empty)",
		"utf16le.txt": "1→héllo\n2→wörld",
		"utf16be.txt": "1→日本",
	}
	for name, want := range tests {
		if got := mustExec(t, ctx, "read_file", map[string]any{"path": name}); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	wantErr(t, ctx, "read_file", `{"path":"bin.dat"}`, "bin.dat is a binary file")
}

func TestReadFileLongLines(t *testing.T) {
	ctx, s := newTestSession(t, "")
	long := strings.Repeat("é", 2500)
	writeWS(t, s, "long.txt", "short\n"+long+"\nend\n")
	out := mustExec(t, ctx, "read_file", `{"path":"long.txt"}`)
	lines := strings.Split(out, "\n")
	if len(lines) != 4 {
		t.Fatalf("got %d lines:\n%s", len(lines), out)
	}
	if lines[1] != "2→"+strings.Repeat("é", 2000)+"… [line cut: 2500 characters in all]" {
		t.Errorf("line 2 = %.80q…", lines[1])
	}
	if lines[3] != "(1 long line cut at 2000 characters)" {
		t.Errorf("trailer = %q", lines[3])
	}
}

func TestReadFileBudget(t *testing.T) {
	// 2000 lines of 100 bytes are over the result limit: the read stops
	// early and says where to go on.
	ctx, s := newTestSession(t, "")
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "%099d\n", i)
	}
	writeWS(t, s, "big.txt", b.String())
	out := mustExec(t, ctx, "read_file", `{"path":"big.txt"}`)
	if len(out) > maxReadBytes+200 {
		t.Errorf("result is %d bytes", len(out))
	}
	last := out[strings.LastIndexByte(out, '\n')+1:]
	var from, to, total, next int
	if _, err := fmt.Sscanf(last, "(lines %d-%d of %d; call read_file with offset %d to read on)", &from, &to, &total, &next); err != nil {
		t.Fatalf("trailer %q: %v", last, err)
	}
	if from != 1 || total != 3000 || next != to+1 || to < 500 || to >= 2000 {
		t.Errorf("trailer %q", last)
	}
	out = mustExec(t, ctx, "read_file", map[string]any{"path": "big.txt", "offset": next, "limit": 1})
	if want := fmt.Sprintf("%d→%099d\n", next, next-1); !strings.HasPrefix(out, want) {
		t.Errorf("next window starts %q, want %q", out[:20], want[:20])
	}
}

func TestReadFileHuge(t *testing.T) {
	ctx, s := newTestSession(t, "")
	line := strings.Repeat("x", 1023) + "\n"
	f, err := os.Create(filepath.Join(s.WS.Root(), "huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	for range 11 << 10 { // 11 MiB
		f.WriteString(line)
	}
	f.WriteString("the end\n")
	f.Close()
	wantErr(t, ctx, "read_file", `{"path":"huge.log"}`, "huge.log is 11", "offset and limit")
	out := mustExec(t, ctx, "read_file", `{"path":"huge.log","offset":11265,"limit":5}`)
	if out != "11265→the end" {
		t.Errorf("got %q", out)
	}
	// Neither edit tool takes a file this size.
	wantErr(t, ctx, "edit_file", `{"path":"huge.log","old_string":"the end","new_string":"fin"}`, "too large")
}

func TestReadFileBuffer(t *testing.T) {
	ctx, s := newTestSession(t, "-- a.go --\npackage a\n")
	abs := filepath.Join(s.WS.Root(), "a.go")
	s.WS.Open(abs, 1, "package a\n\nfunc New() {}\n")
	out := mustExec(t, ctx, "read_file", `{"path":"a.go"}`)
	want := "1→package a\n2→\n3→func New() {}\n(this is the editor's buffer, with changes not yet saved to disk)"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
