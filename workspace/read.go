package workspace

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Encoding is the character encoding of a text file.
type Encoding int

const (
	UTF8    Encoding = iota // the default; also for files without a BOM
	UTF16LE                 // recognised only with a BOM (FF FE)
	UTF16BE                 // recognised only with a BOM (FE FF)
)

func (e Encoding) String() string {
	switch e {
	case UTF16LE:
		return "UTF-16LE"
	case UTF16BE:
		return "UTF-16BE"
	}
	return "UTF-8"
}

// Format is how a file's text is stored on disk; Encode(text, f) writes it
// back the way it was.
type Format struct {
	Encoding Encoding
	BOM      bool // always true for UTF-16
	CRLF     bool // lines end in "\r\n" on disk; File.Text has "\n"
}

// A File is a text file as the tools see it: from the editor's buffer when
// the file is open there, else from disk.
type File struct {
	Abs, Rel   string
	Text       string // decoded UTF-8, line endings normalised to "\n"
	Format     Format // how to write it back
	FromBuffer bool
	Version    int32 // buffer version when FromBuffer
	Mode       fs.FileMode
	ModTime    time.Time
	Size       int64    // bytes on disk (or of the buffer text)
	Hash       [32]byte // sha256 of the raw bytes (or of the buffer text): the read-before-write identity
}

// explainedError is a sentinel error with a message that already says what
// the sentinel does, so that the message says it once.
type explainedError struct {
	msg string
	err error
}

func (e *explainedError) Error() string { return e.msg }
func (e *explainedError) Unwrap() error { return e.err }

// explained is sentinel (for errors.Is) with the message format, args.
func explained(sentinel error, format string, args ...any) error {
	return &explainedError{msg: fmt.Sprintf(format, args...), err: sentinel}
}

// MaxTextFile is the largest file ReadFile decodes; larger ones get
// ErrTooLarge (ReadFileWith can lift the limit for a windowed read).
const MaxTextFile = 10 << 20

// binarySniff is how much of a file is searched for a NUL byte.
const binarySniff = 8 << 10

var (
	// ErrBinary: a NUL byte in the first 8 KiB; text tools refuse the file.
	ErrBinary = errors.New("binary file")
	// ErrTooLarge: the file is over the size limit.
	ErrTooLarge = errors.New("file too large")
	// ErrNotExist is fs.ErrNotExist, so that either name matches.
	ErrNotExist = fs.ErrNotExist
)

// ReadOptions adjust ReadFileWith.
type ReadOptions struct {
	// MaxSize is the largest file accepted: 0 means MaxTextFile, a negative
	// value means no limit (for read_file with offset/limit on a big file).
	MaxSize int64
}

// ReadFile resolves path (see Resolve) and returns the file's text: the
// editor's buffer when it is open, else the disk. It refuses directories,
// binary files (ErrBinary) and files over MaxTextFile (ErrTooLarge), with
// messages that name the file.
func (w *Workspace) ReadFile(path string) (*File, error) {
	return w.ReadFileWith(path, ReadOptions{})
}

// ReadFileWith is ReadFile with options.
func (w *Workspace) ReadFileWith(path string, opts ReadOptions) (*File, error) {
	abs, rel, err := w.Resolve(path)
	if err != nil {
		return nil, err
	}
	maxSize := opts.MaxSize
	if maxSize == 0 {
		maxSize = MaxTextFile
	}
	c, err := w.src.Read(abs, maxSize)
	if err == nil && w.contentDenied(abs, c) {
		// A hard link to a denied file, under another name.
		err = errDenied{rel: rel}
	}
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		return nil, explained(ErrNotExist, "%s does not exist", rel)
	case errors.Is(err, errIsDir):
		return nil, fmt.Errorf("%s is a directory, not a file; list it with ls", rel)
	case errors.As(err, new(NotRegularError)):
		var nr NotRegularError
		errors.As(err, &nr)
		return nil, NotRegularError{Path: rel, Mode: nr.Mode}
	case errors.Is(err, ErrTooLarge):
		size := "too large"
		if st, err := os.Stat(abs); err == nil {
			size = humanSize(st.Size())
		}
		return nil, explained(ErrTooLarge, "%s is %s, over the %s limit; read a window of it with offset and limit, or search it with grep",
			rel, size, humanSize(maxSize))
	default:
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if c.FromBuffer {
		f := &File{
			Abs: abs, Rel: rel,
			Text:       c.text,
			Format:     c.Format,
			FromBuffer: true,
			Version:    c.Version,
			Size:       c.Size,
			Hash:       sha256.Sum256(c.Data),
			Mode:       0o644,
		}
		if st, err := os.Stat(abs); err == nil {
			f.Mode, f.ModTime = st.Mode(), st.ModTime()
		}
		return f, nil
	}
	text, format, err := Decode(c.Data)
	if err != nil {
		if errors.Is(err, ErrBinary) {
			return nil, explained(ErrBinary, "%s is a binary file (it has a NUL byte in its first 8 KiB); text tools cannot read or edit it", rel)
		}
		return nil, fmt.Errorf("decode %s: %w", rel, err)
	}
	return &File{
		Abs: abs, Rel: rel,
		Text:    text,
		Format:  format,
		Mode:    c.Mode,
		ModTime: c.ModTime,
		Size:    c.Size,
		Hash:    sha256.Sum256(c.Data),
	}, nil
}

// ReadRaw returns the content of abs as a search sees it: the buffer's text
// (UTF-8, as the editor holds it) when the file is open, else the bytes on
// disk, undecoded and without a size limit. abs must already be confined
// (from Resolve or Walk); ReadRaw does not follow a symlink in the last
// component, so a link found by a walk cannot lead a search out of the root.
// A path on the deny list reads as missing. The returned bytes belong to the
// caller.
func (w *Workspace) ReadRaw(abs string) ([]byte, bool, error) {
	if w.Denied(abs) {
		return nil, false, errDenied{rel: w.Rel(abs)}
	}
	c, err := w.rawSrc.Read(abs, 0)
	if err == nil && w.contentDenied(abs, c) {
		return nil, false, errDenied{rel: w.Rel(abs)}
	}
	return c.Data, c.FromBuffer, err
}

// IsBinary reports whether data looks binary: a NUL byte in its first
// 8 KiB. UTF-16 text with a BOM is not binary.
func IsBinary(data []byte) bool {
	if hasUTF16BOM(data) {
		return false
	}
	return bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0
}

func hasUTF16BOM(b []byte) bool {
	return len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF)
}

// Decode turns a file's bytes into text with "\n" line endings and the
// Format to write it back with. A UTF-8 BOM is stripped; UTF-16 needs a BOM.
// Files whose line endings are mostly "\r\n" get Format.CRLF and every
// "\r\n" becomes "\n" (so a mixed file is written back with "\r\n"
// throughout); other files keep their bytes, stray "\r\n" included. Invalid UTF-8 is kept
// as it is. A NUL in the first 8 KiB gives ErrBinary.
func Decode(raw []byte) (text string, f Format, err error) {
	switch {
	case len(raw) >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF:
		f.BOM = true
		raw = raw[3:]
	case len(raw) >= 2 && raw[0] == 0xFF && raw[1] == 0xFE:
		f.Encoding, f.BOM = UTF16LE, true
		text, err = decodeUTF16(raw[2:], false)
	case len(raw) >= 2 && raw[0] == 0xFE && raw[1] == 0xFF:
		f.Encoding, f.BOM = UTF16BE, true
		text, err = decodeUTF16(raw[2:], true)
	}
	if err != nil {
		return "", f, err
	}
	if f.Encoding == UTF8 {
		if bytes.IndexByte(raw[:min(len(raw), binarySniff)], 0) >= 0 {
			return "", f, ErrBinary
		}
		text = string(raw)
	}
	crlf := strings.Count(text, "\r\n")
	if crlf > 0 && crlf >= strings.Count(text, "\n")-crlf {
		f.CRLF = true
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	return text, f, nil
}

func decodeUTF16(b []byte, bigEndian bool) (string, error) {
	if len(b)%2 != 0 {
		return "", fmt.Errorf("odd number of bytes in UTF-16 text: %w", ErrBinary)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	for _, c := range u[:min(len(u), binarySniff/2)] {
		if c == 0 {
			return "", ErrBinary
		}
	}
	return string(utf16.Decode(u)), nil
}

// Encode turns text (with "\n" line endings) into bytes in format f: "\n"
// becomes "\r\n" when f.CRLF, a BOM is written when f.BOM (always for
// UTF-16), UTF-16 is little- or big-endian as f says.
func Encode(text string, f Format) []byte {
	if f.CRLF {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	switch f.Encoding {
	case UTF16LE, UTF16BE:
		out := make([]byte, 0, 2+2*len(text))
		be := f.Encoding == UTF16BE
		if be {
			out = append(out, 0xFE, 0xFF)
		} else {
			out = append(out, 0xFF, 0xFE)
		}
		for _, r := range text {
			if r == utf8.RuneError {
				r = '\uFFFD'
			}
			var units [2]uint16
			n := 1
			if r1, r2 := utf16.EncodeRune(r); r1 != '\uFFFD' {
				units[0], units[1], n = uint16(r1), uint16(r2), 2
			} else {
				units[0] = uint16(r)
			}
			for _, c := range units[:n] {
				if be {
					out = append(out, byte(c>>8), byte(c))
				} else {
					out = append(out, byte(c), byte(c>>8))
				}
			}
		}
		return out
	}
	if f.BOM {
		out := make([]byte, 0, 3+len(text))
		out = append(out, 0xEF, 0xBB, 0xBF)
		return append(out, text...)
	}
	return []byte(text)
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
