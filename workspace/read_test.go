package workspace

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncodingRoundTrip(t *testing.T) {
	utf16le := func(s string, bom bool) []byte {
		var b []byte
		if bom {
			b = append(b, 0xFF, 0xFE)
		}
		return append(b, Encode(s, Format{Encoding: UTF16LE})[2:]...)
	}
	cases := []struct {
		name   string
		raw    []byte
		text   string
		format Format
	}{
		{"empty", nil, "", Format{}},
		{"utf8", []byte("héllo\nwörld\n"), "héllo\nwörld\n", Format{}},
		{"utf8 no final newline", []byte("a\nb"), "a\nb", Format{}},
		{"crlf", []byte("a\r\nb\r\n"), "a\nb\n", Format{CRLF: true}},
		{"bom", []byte("\xEF\xBB\xBFa\nb\n"), "a\nb\n", Format{BOM: true}},
		{"bom crlf", []byte("\xEF\xBB\xBFa\r\nb\r\n"), "a\nb\n", Format{BOM: true, CRLF: true}},
		{"bom only", []byte("\xEF\xBB\xBF"), "", Format{BOM: true}},
		{"utf16le", []byte{0xFF, 0xFE, 'h', 0, 'i', 0, '\n', 0}, "hi\n", Format{Encoding: UTF16LE, BOM: true}},
		{"utf16be", []byte{0xFE, 0xFF, 0, 'h', 0, 'i', 0, '\n'}, "hi\n", Format{Encoding: UTF16BE, BOM: true}},
		{"utf16le crlf emoji", utf16le("x 😀 ü\r\ny\r\n", true), "x 😀 ü\ny\n", Format{Encoding: UTF16LE, BOM: true, CRLF: true}},
		{"utf16be bom only", []byte{0xFE, 0xFF}, "", Format{Encoding: UTF16BE, BOM: true}},
		{"invalid utf8 kept", []byte("a\xffb\n"), "a\xffb\n", Format{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, f, err := Decode(c.raw)
			if err != nil {
				t.Fatal(err)
			}
			if text != c.text || f != c.format {
				t.Fatalf("Decode = %q, %+v; want %q, %+v", text, f, c.text, c.format)
			}
			if back := Encode(text, f); !bytes.Equal(back, c.raw) && !(len(back) == 0 && len(c.raw) == 0) {
				t.Fatalf("Encode(Decode(raw)) = %q, want %q", back, c.raw)
			}
		})
	}
}

func TestEncodeCRLFFromLFEdit(t *testing.T) {
	// An edit computed on the normalised text is written back with CRLF,
	// and stray "\r\n" in the new text is not doubled.
	got := Encode("a\nb\r\nc", Format{CRLF: true})
	if string(got) != "a\r\nb\r\nc" {
		t.Errorf("Encode = %q", got)
	}
}

func TestDecodeBinary(t *testing.T) {
	for name, raw := range map[string][]byte{
		"nul":           []byte("ab\x00cd"),
		"nul at 8191":   append(bytes.Repeat([]byte("a"), 8191), 0),
		"utf16 nul":     {0xFF, 0xFE, 'a', 0, 0, 0},
		"utf16 odd len": {0xFF, 0xFE, 'a'},
	} {
		if _, _, err := Decode(raw); !errors.Is(err, ErrBinary) {
			t.Errorf("%s: Decode error = %v, want ErrBinary", name, err)
		}
	}
	// A NUL after the first 8 KiB does not make a file binary.
	late := append(bytes.Repeat([]byte("a"), 8192), 0)
	if _, _, err := Decode(late); err != nil {
		t.Errorf("NUL after 8 KiB: %v", err)
	}
	if !IsBinary([]byte("x\x00")) || IsBinary([]byte{0xFF, 0xFE, 'a', 0}) {
		t.Error("IsBinary")
	}
}

func TestReadFile(t *testing.T) {
	w := newWS(t, t.TempDir())
	root := w.Root()
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), data, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	write("crlf.txt", []byte("one\r\ntwo\r\n"))
	write("bin.dat", []byte("PK\x03\x04\x00\x00"))
	write("empty.txt", nil)
	write("dir/x.txt", []byte("x"))
	huge := bytes.Repeat([]byte("0123456789abcde\n"), MaxTextFile/16+1)
	write("huge.txt", huge)

	f, err := w.ReadFile("crlf.txt")
	if err != nil {
		t.Fatal(err)
	}
	if f.Text != "one\ntwo\n" || !f.Format.CRLF || f.Rel != "crlf.txt" || f.Size != 10 || f.FromBuffer || f.Mode.Perm() != 0o640 {
		t.Errorf("ReadFile(crlf.txt) = %+v", f)
	}

	_, err = w.ReadFile("bin.dat")
	if !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), "bin.dat") || !strings.Contains(err.Error(), "binary") {
		t.Errorf("binary: %v", err)
	}

	f, err = w.ReadFile("empty.txt")
	if err != nil || f.Text != "" || f.Size != 0 {
		t.Errorf("empty: %+v, %v", f, err)
	}

	_, err = w.ReadFile("huge.txt")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "huge.txt") || !strings.Contains(err.Error(), "offset") {
		t.Errorf("huge: %v", err)
	}
	f, err = w.ReadFileWith("huge.txt", ReadOptions{MaxSize: -1})
	if err != nil || len(f.Text) != len(huge) {
		t.Errorf("huge with no limit: %v", err)
	}

	_, err = w.ReadFile("missing.txt")
	if !errors.Is(err, ErrNotExist) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("missing: %v", err)
	}
	if _, err := w.ReadFile("dir"); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: %v", err)
	}

	raw, fromBuf, err := w.ReadRaw(filepath.Join(root, "bin.dat"))
	if err != nil || fromBuf || string(raw) != "PK\x03\x04\x00\x00" {
		t.Errorf("ReadRaw = %q, %v, %v", raw, fromBuf, err)
	}
}

func TestReadRawRefusesFinalSymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	w := newWS(t, root)
	symlink(t, filepath.Join(dir, "secret"), filepath.Join(w.Root(), "link"))
	var found []string
	err := w.Walk(context.Background(), "", WalkOptions{}, func(e WalkEntry) error {
		found = append(found, e.Rel)
		if e.Mode&fs.ModeSymlink == 0 {
			t.Errorf("%s: symlink not reported as one (%v)", e.Rel, e.Mode)
		}
		if _, _, err := w.ReadRaw(e.Abs); err == nil {
			t.Errorf("ReadRaw followed the symlink %s out of the root", e.Rel)
		}
		return nil
	})
	if err != nil || len(found) != 1 {
		t.Errorf("walk = %v, %v", found, err)
	}
}

func TestSourceStack(t *testing.T) {
	w := newWS(t, t.TempDir())
	p := filepath.Join(w.Root(), "a.txt")
	writeFile(t, p, "disk")
	var src Source = w
	c, err := src.Read(p, 0)
	if err != nil || string(c.Data) != "disk" || c.FromBuffer || c.Size != 4 {
		t.Fatalf("disk read = %+v, %v", c, err)
	}
	if _, err := src.Read(p, 2); !errors.Is(err, ErrTooLarge) {
		t.Errorf("maxSize: %v", err)
	}
	w.Open(p, 7, "buffer\r\n")
	c, err = src.Read(p, 2) // buffers are in memory already: no limit
	if err != nil || string(c.Data) != "buffer\r\n" || !c.FromBuffer || c.Version != 7 || !c.Format.CRLF {
		t.Errorf("buffer read = %+v, %v", c, err)
	}
	if _, err := (Disk{}).Read(w.Root(), 0); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: %v", err)
	}
	symlink(t, "a.txt", filepath.Join(w.Root(), "link"))
	if _, err := (Disk{NoFollow: true}).Read(filepath.Join(w.Root(), "link"), 0); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("NoFollow: %v", err)
	}
	if c, err := (Disk{}).Read(filepath.Join(w.Root(), "link"), 0); err != nil || string(c.Data) != "disk" {
		t.Errorf("follow: %v", err)
	}
}

// FuzzEncodeDecode: any text without "\r" and NUL, written in any format,
// reads back as the same text and format.
func FuzzEncodeDecode(f *testing.F) {
	f.Add("", uint8(0))
	f.Add("a\nb\n", uint8(7))
	f.Add("héllo 😀\n\nx", uint8(5))
	f.Add("\uFEFFx", uint8(4))
	f.Fuzz(func(t *testing.T, text string, bits uint8) {
		if strings.ContainsAny(text, "\r\x00") || !utf8.ValidString(text) {
			return
		}
		format := Format{Encoding: Encoding(bits % 3), BOM: bits&4 != 0, CRLF: bits&8 != 0}
		if format.Encoding != UTF8 {
			format.BOM = true
		}
		if !strings.Contains(text, "\n") {
			format.CRLF = false // nothing to tell
		}
		if format.Encoding == UTF8 && !format.BOM && strings.HasPrefix(text, "\uFEFF") {
			return // reads as a BOM
		}
		got, gf, err := Decode(Encode(text, format))
		if err != nil {
			t.Fatalf("Decode(Encode(%q, %+v)): %v", text, format, err)
		}
		if got != text || gf != format {
			t.Fatalf("round trip of %q, %+v = %q, %+v", text, format, got, gf)
		}
	})
}
