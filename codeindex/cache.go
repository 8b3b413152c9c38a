package codeindex

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"unsafe"
)

// The on-disk cache: one file per workspace root under
// <user cache dir>/agentls/codeindex/, holding every file's size, mtime,
// checksum and definitions. A cache of another version, or one whose
// trailing checksum does not match, is ignored (and rewritten after the
// build): it can make a start faster, never make it fail.
//
// Layout: magic, version, root, file count, then per file its path,
// language, size, mtime, crc and symbols (name, kind, container, ranges;
// strings as uvarint length + bytes, numbers as uvarints), and a CRC-32C
// of all that.
const (
	cacheMagic   = "agentls-codeindex\n"
	cacheVersion = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// CachePath returns the cache file of the index.
func (ix *Index) CachePath() (string, error) {
	dir := ix.opts.CacheDir
	if dir == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(d, "agentls")
	}
	sum := sha256.Sum256([]byte(ix.ws.Root()))
	return filepath.Join(dir, "codeindex", hex.EncodeToString(sum[:8])+".idx"), nil
}

func (ix *Index) saveCache() error {
	p, err := ix.CachePath()
	if err != nil {
		return err
	}
	ix.mu.RLock()
	rels := make([]string, 0, len(ix.files))
	for rel, f := range ix.files {
		if !f.open {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	b := make([]byte, 0, 64<<10)
	b = append(b, cacheMagic...)
	b = binary.AppendUvarint(b, cacheVersion)
	b = appendString(b, ix.ws.Root())
	b = binary.AppendUvarint(b, uint64(len(rels)))
	for _, rel := range rels {
		f := ix.files[rel]
		b = appendString(b, rel)
		b = appendString(b, f.lang.Name)
		b = binary.AppendUvarint(b, uint64(f.size))
		b = binary.AppendVarint(b, f.mtime)
		b = binary.LittleEndian.AppendUint32(b, f.crc)
		b = binary.AppendUvarint(b, uint64(len(f.syms)))
		for i := range f.syms {
			s := &f.syms[i]
			b = appendString(b, s.Name)
			b = append(b, byte(s.Kind))
			b = appendString(b, s.Container)
			for _, v := range [...]uint32{s.Range.Start.Line, s.Range.Start.Col, s.Range.End.Line, s.Range.End.Col,
				s.NameRange.Start.Line, s.NameRange.Start.Col, s.NameRange.End.Line, s.NameRange.End.Col} {
				b = binary.AppendUvarint(b, uint64(v))
			}
		}
	}
	ix.mu.RUnlock()
	b = binary.LittleEndian.AppendUint32(b, checksum(b))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errCorrupt = errors.New("corrupt index cache")

// loadCache reads the cache of the index: entries by path. Strings of the
// entries share the memory of the file's contents.
func (ix *Index) loadCache() (map[string]*fileEntry, error) {
	p, err := ix.CachePath()
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return decodeCache(raw, ix.ws.Root())
}

func decodeCache(raw []byte, root string) (files map[string]*fileEntry, err error) {
	if len(raw) < len(cacheMagic)+4 || string(raw[:len(cacheMagic)]) != cacheMagic {
		return nil, errCorrupt
	}
	body := raw[:len(raw)-4]
	if checksum(body) != binary.LittleEndian.Uint32(raw[len(raw)-4:]) {
		return nil, errCorrupt
	}
	data := unsafe.String(unsafe.SliceData(body), len(body)) // raw is never written again
	d := decoder{s: data, off: len(cacheMagic)}
	defer func() {
		if recover() != nil { // a bounds error: a cache that passed the checksum but is malformed
			files, err = nil, errCorrupt
		}
	}()
	if v := d.uvarint(); v != cacheVersion {
		return nil, fmt.Errorf("index cache version %d, want %d", v, cacheVersion)
	}
	if d.str() != root {
		return nil, errCorrupt
	}
	n := d.uvarint()
	files = make(map[string]*fileEntry, n)
	for range n {
		f := &fileEntry{rel: d.str()}
		f.lang = LanguageByName(d.str())
		f.size = int64(d.uvarint())
		f.mtime = d.varint()
		f.crc = binary.LittleEndian.Uint32([]byte(d.s[d.off : d.off+4]))
		d.off += 4
		ns := d.uvarint()
		if ns > uint64(len(data)) {
			return nil, errCorrupt
		}
		f.syms = make([]Symbol, ns)
		for i := range f.syms {
			s := &f.syms[i]
			s.Name = d.str()
			s.Kind = Kind(d.s[d.off])
			d.off++
			s.Container = d.str()
			s.Path = f.rel
			s.Range = Range{Pos{d.u32(), d.u32()}, Pos{d.u32(), d.u32()}}
			s.NameRange = Range{Pos{d.u32(), d.u32()}, Pos{d.u32(), d.u32()}}
		}
		if f.lang == nil {
			continue // a language this binary no longer has
		}
		files[f.rel] = f
	}
	if d.off != len(data) {
		return nil, errCorrupt
	}
	return files, nil
}

type decoder struct {
	s   string
	off int
}

func (d *decoder) uvarint() uint64 {
	var x uint64
	for shift := 0; ; shift += 7 {
		c := d.s[d.off]
		d.off++
		if c < 0x80 {
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
		if shift > 63 {
			panic(errCorrupt)
		}
	}
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (d *decoder) u32() uint32 { return uint32(d.uvarint()) }

func (d *decoder) str() string {
	n := int(d.uvarint())
	s := d.s[d.off : d.off+n]
	d.off += n
	return s
}
