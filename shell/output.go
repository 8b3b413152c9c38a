package shell

import (
	"bytes"
	"fmt"
	"sync"
	"unicode/utf8"
)

// MaxOutputChars is how much of a command's output a result shows: the
// head and the tail, half each, with a note of what was cut between them.
const MaxOutputChars = 30000

// capture keeps the head and the tail of a stream whose size is unknown, in
// bounded memory. It is safe for concurrent use.
type capture struct {
	mu       sync.Mutex
	limit    int // characters shown at most
	head     []byte
	tail     []byte // ring buffer, len == cap once full
	tailNext int    // next write position in tail once full
	total    int64
	lines    int64
}

func newCapture(limit int) *capture {
	// Bytes kept: four per character covers any UTF-8 text.
	return &capture{limit: limit, head: make([]byte, 0, 1024)}
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	keep := 2 * c.limit // bytes in each of head and tail
	if room := keep - len(c.head); room > 0 {
		if room > len(p) {
			room = len(p)
		}
		c.head = append(c.head, p[:room]...)
		p = p[room:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if len(p) >= keep {
		c.tail = append(c.tail[:0], p[len(p)-keep:]...)
		c.tailNext = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(c.tail) < keep {
			room := min(keep-len(c.tail), len(p))
			c.tail = append(c.tail, p[:room]...)
			p = p[room:]
			continue
		}
		k := copy(c.tail[c.tailNext:], p)
		c.tailNext = (c.tailNext + k) % keep
		p = p[k:]
	}
	return n, nil
}

// String returns the captured output: everything when it fits in limit
// characters, else the first and last limit/2 characters and a note of the
// bytes and lines cut.
func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := c.tail
	if len(tail) > 0 && c.tailNext > 0 {
		tail = append(append([]byte{}, tail[c.tailNext:]...), tail[:c.tailNext]...)
	}
	whole := int64(len(c.head)+len(tail)) == c.total
	if whole {
		return capText(string(c.head)+string(tail), c.limit)
	}
	half := c.limit / 2
	head := firstChars(c.head, half)
	end := lastChars(tail, c.limit-half)
	cutBytes := c.total - int64(len(head)) - int64(len(end))
	cutLines := c.lines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(end, []byte{'\n'}))
	return joinCut(string(head), string(end), cutBytes, cutLines)
}

// capText caps s at limit characters, keeping the head and the tail.
func capText(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	half := limit / 2
	head := firstChars([]byte(s), half)
	end := lastChars([]byte(s), limit-half)
	cut := s[len(head) : len(s)-len(end)]
	return joinCut(string(head), string(end), int64(len(cut)), int64(bytes.Count([]byte(cut), []byte{'\n'})))
}

func joinCut(head, tail string, bytesCut, linesCut int64) string {
	return fmt.Sprintf("%s\n[… %d bytes (%d lines) of output cut …]\n%s", head, bytesCut, linesCut, tail)
}

// firstChars returns the first n characters of b, not splitting a UTF-8
// sequence.
func firstChars(b []byte, n int) []byte {
	i := 0
	for k := 0; k < n && i < len(b); k++ {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return b[:i]
}

// lastChars returns the last n characters of b, not starting inside a UTF-8
// sequence.
func lastChars(b []byte, n int) []byte {
	i := len(b)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRune(b[:i])
		i -= size
	}
	for i < len(b) && !utf8.RuneStart(b[i]) {
		i++
	}
	return b[i:]
}
