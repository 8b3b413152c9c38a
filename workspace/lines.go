package workspace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// A Line is one line of a LineWindow.
type Line struct {
	Text  string // the line without its ending, cut to the first Keep characters
	Chars int    // the line's length in characters (UTF-8 sequences), uncut
}

// LineWindow is a window of a file's lines read by ReadLines.
type LineWindow struct {
	Rel   string
	Lines []Line
	// Total is the file's number of lines when the read reached its end,
	// else -1: more lines follow the window.
	Total int
	Size  int64 // the file's size when opened
}

// ReadLines reads lines [offset, offset+limit) of the file at path from
// disk, streaming: it holds one read buffer and the window, never the file,
// so a window of a file of any size costs what the window holds. Lines
// longer than keep characters are cut to keep; the window ends early once
// its text passes maxBytes. The file must be UTF-8 (a BOM is skipped, "\r\n"
// endings are taken off); a NUL byte in its first 8 KiB gives ErrBinary and
// UTF-16 an error. The path is resolved and confined like ReadFile's and the
// deny list applies; an open buffer is not consulted (its text is in memory:
// use ReadFile for it).
func (w *Workspace) ReadLines(path string, offset, limit, keep, maxBytes int) (*LineWindow, error) {
	abs, rel, err := w.Resolve(path)
	if err != nil {
		return nil, err
	}
	if w.Denied(abs) {
		return nil, errDenied{rel: rel}
	}
	f, err := Disk{Root: w.root, w: w}.openBeneath(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist: %w", rel, ErrNotExist)
		}
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	switch {
	case st.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a file; list it with ls", rel)
	case !st.Mode().IsRegular():
		return nil, NotRegularError{Path: rel, Mode: st.Mode()}
	case w.deniedLink(st):
		return nil, errDenied{rel: rel}
	}
	r := bufio.NewReaderSize(f, 64<<10)
	head, _ := r.Peek(binarySniff)
	switch {
	case hasUTF16BOM(head):
		return nil, fmt.Errorf("%s is UTF-16 text over the %s limit; a window of it cannot be read, search it with grep", rel, humanSize(MaxTextFile))
	case IsBinary(head):
		return nil, fmt.Errorf("%s is a binary file (it has a NUL byte in its first 8 KiB); text tools cannot read or edit it: %w", rel, ErrBinary)
	case len(head) >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF:
		r.Discard(3)
	}
	win := &LineWindow{Rel: rel, Total: -1, Size: st.Size()}
	n, bytes := 0, 0
	for {
		if n >= offset+limit || bytes > maxBytes {
			if _, err := r.Peek(1); err == io.EOF {
				win.Total = n
			}
			return win, nil
		}
		var (
			text   []byte
			chars  int
			ended  bool
			before byte // the byte before the line's last byte
			last   byte // the last byte read of the line
		)
		for {
			frag, err := r.ReadSlice('\n')
			if n >= offset {
				if room := 4*keep - len(text); room > 0 {
					text = append(text, frag[:min(len(frag), room)]...)
				}
				chars += countChars(frag)
				if len(frag) >= 2 {
					before = frag[len(frag)-2]
				} else if len(frag) == 1 {
					before, last = last, frag[0]
				}
				if len(frag) > 0 {
					last = frag[len(frag)-1]
				}
			}
			if err == nil {
				ended = true
				break
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != io.EOF {
				return nil, fmt.Errorf("read %s: %w", rel, err)
			}
			if len(frag) == 0 && text == nil && chars == 0 {
				// The end, after a final newline (or of an empty file).
				win.Total = n
				return win, nil
			}
			break
		}
		if n >= offset {
			if ended {
				text, chars = trimEnding(text, chars, before == '\r')
			}
			win.Lines = append(win.Lines, Line{Text: firstChars(text, keep), Chars: chars})
			bytes += min(len(text), 4*keep)
		}
		n++
		if !ended {
			win.Total = n
			return win, nil
		}
	}
}

// countChars counts the UTF-8 sequences of b, a piece of a longer text:
// every byte that does not continue a sequence starts one (an invalid
// byte counts as one character, as utf8.RuneCount has it).
func countChars(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// trimEnding takes the ending ("\n", or "\r\n" when crlf) off a line
// that ended with one: off its count of characters, and off text as far as
// text holds it (a cut line lost its end already).
func trimEnding(text []byte, chars int, crlf bool) ([]byte, int) {
	chars--
	if crlf {
		chars--
	}
	if len(text) > 0 && text[len(text)-1] == '\n' {
		text = text[:len(text)-1]
		if crlf && len(text) > 0 && text[len(text)-1] == '\r' {
			text = text[:len(text)-1]
		}
	}
	return text, chars
}

// firstChars is the first n characters of b.
func firstChars(b []byte, n int) string {
	i := 0
	for i < len(b) && n > 0 {
		i++
		for i < len(b) && b[i]&0xC0 == 0x80 {
			i++
		}
		n--
	}
	return string(b[:i])
}
