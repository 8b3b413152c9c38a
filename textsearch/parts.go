package textsearch

import (
	"bytes"
	"io"

	"github.com/agentls/agentls/workspace"
)

// partSize is the most of a file a search holds at once: a larger file is
// searched in parts of whole lines, so that a search's memory does not grow
// with the size of the files it meets (a log of gigabytes, a file a writer
// keeps growing). A match that spans two parts (multiline) is not found.
var partSize = 8 << 20 // a variable for the tests

// partSlack is how far past the size it had when opened a file is read:
// one that grows meanwhile is searched as that prefix.
const partSlack = 64 << 10

// readHead reads f, or its first partSize bytes when it is larger (more).
func readHead(d *workspace.FileReader, f File, buf []byte) (data []byte, more bool, err error) {
	root, ok := rootOf(f.Abs, f.Rel)
	if !ok {
		return buf, false, errBadPath
	}
	return d.ReadHead(root, f.Rel, f.Size, partSize, buf)
}

// scanParts searches the file f in parts of at most partSize bytes of
// whole lines (a longer line is split). Each part after the first starts
// with the last Context lines of the one before, for before-context, whose
// matches it passes over. r is nil when nothing matches or the file is
// binary. A UTF-8 BOM is skipped; UTF-16 is not decoded (it reads as
// binary).
func (s *search) scanParts(sc *scanner, d *workspace.FileReader, f File) (r *fileResult, binary bool) {
	root, ok := rootOf(f.Abs, f.Rel)
	if !ok {
		return nil, false
	}
	file, err := d.Open(root, f.Rel)
	if err != nil {
		return nil, false
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, false
	}
	in := io.LimitReader(file, st.Size()+partSlack)
	fs := s.newFileScan(f.Rel)
	maxKeep := partSize / 8 // context lines carried over, at most
	buf := make([]byte, 0, partSize+maxKeep)
	keep := 0      // bytes at the start of buf already searched (context lines)
	firstLine := 1 // line number of buf[0]
	atStart := true
	for s.ctx.Err() == nil {
		if cap(buf)-len(buf) < partSize/2 {
			// What was carried over (context lines and the start of a line)
			// is at most maxKeep+partSize: the buffer stays bounded.
			nb := make([]byte, len(buf), len(buf)+partSize)
			copy(nb, buf)
			buf = nb
		}
		n, err := io.ReadFull(in, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if atStart && bytes.HasPrefix(buf, []byte{0xEF, 0xBB, 0xBF}) {
			buf = buf[:copy(buf, buf[3:])]
		}
		atStart = false
		eof := err != nil // io.EOF, io.ErrUnexpectedEOF or a read error: the last part
		end := len(buf)
		if !eof {
			if i := bytes.LastIndexByte(buf[keep:], '\n'); i >= 0 {
				end = keep + i + 1
			}
		}
		part := buf[:end]
		if bytes.IndexByte(part[keep:], 0) >= 0 || s.scanPart(sc, fs, part, keep, firstLine) {
			return nil, true
		}
		if eof {
			return fs.r, false
		}
		// The next part: the last Context lines of this one (unless they
		// are too long to carry), then the rest of the buffer.
		from := end
		for k := 0; k < s.q.Context && from > 0; k++ {
			from = bytes.LastIndexByte(part[:from-1], '\n') + 1
		}
		if end-from > maxKeep {
			from = end
		}
		firstLine += bytes.Count(part[:from], []byte{'\n'})
		keep = end - from
		buf = buf[:copy(buf, buf[from:])]
	}
	return fs.r, false
}
