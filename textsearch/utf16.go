package textsearch

import (
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// appendUTF16 appends to dst the UTF-8 of the UTF-16 text src (big or
// little endian) and returns how many bytes of src it decoded. Unless
// final, it stops before a last odd byte and before a last high surrogate,
// which may pair with what follows; with final they are decoded (an odd
// byte is dropped, a surrogate without its pair becomes U+FFFD).
func appendUTF16(dst, src []byte, big, final bool) ([]byte, int) {
	unit := func(i int) rune {
		if big {
			return rune(src[i])<<8 | rune(src[i+1])
		}
		return rune(src[i+1])<<8 | rune(src[i])
	}
	i := 0
	for ; i+1 < len(src); i += 2 {
		r := unit(i)
		if utf16.IsSurrogate(r) {
			if i+3 >= len(src) && !final {
				break // its pair may come with the next bytes
			}
			if i+3 < len(src) {
				if d := utf16.DecodeRune(r, unit(i+2)); d != utf8.RuneError {
					r = d
					i += 2
				}
			}
		}
		dst = utf8.AppendRune(dst, r) // a lone surrogate: U+FFFD
	}
	if final {
		i = len(src)
	}
	return dst, i
}

// utf16Reader reads UTF-16 text (after its byte order mark) from r as
// UTF-8, a bounded chunk at a time.
type utf16Reader struct {
	r   io.Reader
	big bool
	raw []byte // undecoded bytes (an odd byte, a high surrogate) at its start
	n   int    // bytes in raw
	out []byte // decoded, not yet read
	buf []byte // out's storage
	err error  // from r: the end
}

const utf16Chunk = 64 << 10

func newUTF16Reader(r io.Reader, big bool) *utf16Reader {
	return &utf16Reader{r: r, big: big, raw: make([]byte, utf16Chunk), buf: make([]byte, 0, utf16Chunk*3/2+4)}
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		m, err := u.r.Read(u.raw[u.n:])
		u.n += m
		if err != nil {
			u.err = err
		}
		var used int
		u.out, used = appendUTF16(u.buf[:0], u.raw[:u.n], u.big, u.err != nil)
		u.n = copy(u.raw, u.raw[used:u.n])
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}
