package textsearch

import (
	"bytes"
	"io"

	"github.com/agentls/agentls/workspace"
)

// partSize is the most of a file a search holds at once: a larger file is
// searched in parts of whole lines, so that a search's memory does not grow
// with the size of the files it meets (a log of gigabytes, a file a writer
// keeps growing). In multiline mode consecutive parts overlap by at least
// partSize/16 (512 KiB): a match up to that long is found across a seam.
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
// matches it passes over; in multiline mode it also starts with the last
// lines (partSize/16 to partSize/8 bytes) of the one before, whose matches
// that part left to it, so that a match that straddles the seam is found
// whole (unless longer than that). r is nil when nothing matches or the file
// is binary. A UTF-8 BOM is skipped; UTF-16 with a BOM is decoded, a chunk
// at a time.
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
	in := textReader(io.LimitReader(file, st.Size()+partSlack))
	fs := s.newFileScan(f.Rel)
	maxKeep := partSize / 8 // context lines carried over, at most
	overlap := 0            // bytes of lines carried over for a straddling match
	if s.q.Pattern.opts.Multiline {
		overlap = partSize / 16
	}
	buf := make([]byte, 0, partSize+maxKeep)
	keep := 0      // bytes at the start of buf already searched (context lines)
	firstLine := 1 // line number of buf[0]
	base := 0      // offset of buf[0] in the (decoded) text
	for s.ctx.Err() == nil {
		if cap(buf)-len(buf) < partSize/2 {
			// What was carried over (context and overlap lines, the start
			// of a line) is at most 2*maxKeep+partSize: the buffer stays
			// bounded.
			nb := make([]byte, len(buf), len(buf)+partSize)
			copy(nb, buf)
			buf = nb
		}
		n, err := io.ReadFull(in, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		eof := err != nil // io.EOF, io.ErrUnexpectedEOF or a read error: the last part
		end := len(buf)
		if !eof {
			if i := bytes.LastIndexByte(buf[keep:], '\n'); i >= 0 {
				end = keep + i + 1
			}
		}
		part := buf[:end]
		// Matches from stop on are left to the next part, which starts
		// with these lines: a match that would straddle the seam is found
		// there whole.
		stop := -1
		if overlap > 0 && !eof && end-overlap > keep {
			if ls := bytes.LastIndexByte(part[:end-overlap], '\n') + 1; ls > keep && end-ls <= maxKeep {
				stop = ls
			}
		}
		if bytes.IndexByte(part[keep:], 0) >= 0 || s.scanPart(sc, fs, part, keep, stop, base, firstLine) {
			return nil, true
		}
		if eof {
			return fs.r, false
		}
		// The next part: the last Context lines of this one before what it
		// left (unless they are too long to carry), then the rest.
		next := end
		if stop >= 0 {
			next = stop
		}
		from := next
		for k := 0; k < s.q.Context && from > 0; k++ {
			from = bytes.LastIndexByte(part[:from-1], '\n') + 1
		}
		if next-from > maxKeep {
			from = next
		}
		firstLine += bytes.Count(part[:from], []byte{'\n'})
		base += from
		keep = next - from
		buf = buf[:copy(buf, buf[from:])]
	}
	return fs.r, false
}

// textReader reads the text of a file from r: past a UTF-8 byte order
// mark, and UTF-16 with a byte order mark decoded to UTF-8, as rg reads
// them; other bytes as they are.
func textReader(r io.Reader) io.Reader {
	var head [3]byte
	n, _ := io.ReadFull(r, head[:])
	switch {
	case n == 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF:
		return r
	case n >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF):
		return newUTF16Reader(io.MultiReader(bytes.NewReader(head[2:n]), r), head[0] == 0xFE)
	}
	return io.MultiReader(bytes.NewReader(head[:n]), r)
}
