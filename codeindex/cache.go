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
	"slices"
	"sort"
	"sync"
	"time"
	"unsafe"
)

// The on-disk cache: one file per workspace root under
// <user cache dir>/agentls/codeindex/, holding every file's size, mtime,
// checksum and definitions. A cache of another version, or one whose
// trailing checksum does not match, is ignored (and rewritten after the
// build): it can make a start faster, never make it fail.
//
// Layout (strings as uvarint length + bytes, numbers as uvarints): magic,
// version, root; the string table: its length, then each string with the
// number of definitions of that name and, for a name, its lower case (0
// when the same, else its length plus one and the bytes) (the definition
// names in the order of the name table, then containers that name
// nothing); the files skipped as binary or minified (path, size, mtime);
// the file count,
// then per file its path, language, size, mtime (varint), crc (4 bytes),
// its number of definitions, their names as indexes in the string table,
// and the rest of them after its length in bytes: per definition its
// container (its index plus one, 0 for none), kind, and positions
// relative to the previous definition's name (lines as deltas); and a
// CRC-32C of all that. A start reads it in one piece and builds the name
// table from the string table at once (see install); the rest of a file's
// definitions stays packed until they are first read (see packedDefs).
const (
	cacheMagic   = "agentls-codeindex\n"
	cacheVersion = 4
)

// castagnoli is made at first use: its tables cost every process start
// ~0.2 ms otherwise, and most never read an index cache.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli()) }

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
	b := ix.encodeCache()
	ix.mu.RUnlock()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	removeStaleTemps(filepath.Dir(p))
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

// staleTemp is the age after which a cache's temporary file is taken for
// one a process left when it was killed while writing (a call of a
// read-only tool ends at once on an interrupt in its first 100 ms, and
// any process can be killed): writing one takes milliseconds.
const staleTemp = 10 * time.Minute

// removeStaleTemps removes the temporary files in the cache directory dir
// older than staleTemp, so that killed writers leave no litter that grows.
func removeStaleTemps(dir string) {
	tmps, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	for _, t := range tmps {
		if fi, err := os.Lstat(t); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleTemp {
			os.Remove(t)
		}
	}
}

// encodeCache returns the cache of the disk files. The caller holds mu.
func (ix *Index) encodeCache() []byte {
	rels := make([]string, 0, len(ix.files))
	for rel, f := range ix.files {
		if !f.open {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	// The string table: names with their counts over the disk files, in
	// the order of the name table, then containers.
	index := make(map[string]uint32, len(ix.entries))
	var strs []string
	var counts []uint32
	for _, ne := range ix.entries {
		n := 0
		for _, r := range ne.syms {
			if !r.f.open {
				n++
			}
		}
		if n > 0 {
			index[ne.name] = uint32(len(strs))
			strs = append(strs, ne.name)
			counts = append(counts, uint32(n))
		}
	}
	// The definitions of the files in rels (those still packed decoded
	// again here, not kept: the entry may be read concurrently).
	nsyms := 0
	for _, rel := range rels {
		nsyms += ix.files[rel].ndefs()
	}
	all := make([]def, 0, nsyms)
	for _, rel := range rels {
		if f := ix.files[rel]; f.packed != nil {
			all = f.packed.decode(all)
		} else {
			all = append(all, f.syms...)
		}
	}
	for i := range all {
		if c := all[i].Container; c != "" {
			if _, ok := index[c]; !ok {
				index[c] = uint32(len(strs))
				strs = append(strs, c)
				counts = append(counts, 0)
			}
		}
	}
	b := make([]byte, 0, 64<<10+nsyms*16)
	b = append(b, cacheMagic...)
	b = binary.AppendUvarint(b, cacheVersion)
	b = appendString(b, ix.ws.Root())
	b = binary.AppendUvarint(b, uint64(len(strs)))
	for i, s := range strs {
		b = appendString(b, s)
		b = binary.AppendUvarint(b, uint64(counts[i]))
		if counts[i] > 0 { // its lower case: 0 when the same
			if lower := ix.names[s].lower; lower == s {
				b = append(b, 0)
			} else {
				b = binary.AppendUvarint(b, uint64(len(lower))+1)
				b = append(b, lower...)
			}
		}
	}
	// Skipped files, so that a start need not read them again.
	skipped := make([]string, 0, len(ix.skipped))
	for rel := range ix.skipStats {
		if ix.skipped[rel] {
			skipped = append(skipped, rel)
		}
	}
	sort.Strings(skipped)
	b = binary.AppendUvarint(b, uint64(len(skipped)))
	for _, rel := range skipped {
		b = appendString(b, rel)
		b = binary.AppendUvarint(b, uint64(ix.skipStats[rel].size))
		b = binary.AppendVarint(b, ix.skipStats[rel].mtime)
	}
	b = binary.AppendUvarint(b, uint64(len(rels)))
	var rest []byte
	for _, rel := range rels {
		f := ix.files[rel]
		defs := all[:f.ndefs()]
		all = all[len(defs):]
		b = appendString(b, rel)
		b = appendString(b, f.lang.Name)
		b = binary.AppendUvarint(b, uint64(f.size))
		b = binary.AppendVarint(b, f.mtime)
		b = binary.LittleEndian.AppendUint32(b, f.crc)
		b = binary.AppendUvarint(b, uint64(len(defs)))
		for i := range defs {
			b = binary.AppendUvarint(b, uint64(index[defs[i].Name]))
		}
		rest = rest[:0]
		var line uint32 // of the previous name
		for i := range defs {
			s := &defs[i]
			c := uint64(0)
			if s.Container != "" {
				c = uint64(index[s.Container]) + 1
			}
			n := s.NameRange.Start.Line
			r := binary.AppendUvarint(rest, c)
			r = append(r, byte(s.Kind))
			r = binary.AppendVarint(r, int64(n)-int64(line))
			r = binary.AppendUvarint(r, uint64(s.NameRange.Start.Col))
			r = binary.AppendVarint(r, int64(s.NameRange.End.Line)-int64(n))
			r = binary.AppendUvarint(r, uint64(s.NameRange.End.Col))
			r = binary.AppendVarint(r, int64(n)-int64(s.Range.Start.Line))
			r = binary.AppendUvarint(r, uint64(s.Range.Start.Col))
			r = binary.AppendVarint(r, int64(s.Range.End.Line)-int64(n))
			rest = binary.AppendUvarint(r, uint64(s.Range.End.Col))
			line = n
		}
		b = binary.AppendUvarint(b, uint64(len(rest)))
		b = append(b, rest...)
	}
	return binary.LittleEndian.AppendUint32(b, checksum(b))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errCorrupt = errors.New("corrupt index cache")

// skipStat is the size and mtime of a file skipped as binary or minified.
type skipStat struct{ size, mtime int64 }

// cacheData is a decoded cache.
type cacheData struct {
	files   []*fileEntry // in path order
	byRel   map[string]*fileEntry
	strs    []string // the string table
	lower   []string // the lower case of the names
	counts  []uint32 // definitions per string
	skipped map[string]skipStat
	names   []uint32 // the name of every definition, file after file (indexes in strs)
}

// loadCache reads the cache of the index. Strings share the memory of the
// file's contents.
func (ix *Index) loadCache() (*cacheData, error) {
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

func decodeCache(raw []byte, root string) (cd *cacheData, err error) {
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
			cd, err = nil, errCorrupt
		}
	}()
	if v := d.uvarint(); v != cacheVersion {
		return nil, fmt.Errorf("index cache version %d, want %d", v, cacheVersion)
	}
	if d.str() != root {
		return nil, errCorrupt
	}
	ns := d.uvarint()
	if ns > uint64(len(data)) {
		return nil, errCorrupt
	}
	cd = &cacheData{strs: make([]string, ns), lower: make([]string, ns), counts: make([]uint32, ns)}
	total := uint64(0)
	for i := range cd.strs {
		cd.strs[i] = d.str()
		cd.counts[i] = d.u32()
		total += uint64(cd.counts[i])
		if cd.counts[i] > 0 {
			cd.lower[i] = cd.strs[i]
			if n := d.uvarint(); n > 0 {
				cd.lower[i] = d.s[d.off : d.off+int(n-1)]
				d.off += int(n - 1)
			}
		}
	}
	nk := d.uvarint()
	if nk > uint64(len(data)) {
		return nil, errCorrupt
	}
	cd.skipped = make(map[string]skipStat, nk)
	for range nk {
		rel := d.str()
		cd.skipped[rel] = skipStat{int64(d.uvarint()), d.varint()}
	}
	if total > uint64(len(data)) {
		return nil, errCorrupt
	}
	cd.names = make([]uint32, 0, total)
	nf := d.uvarint()
	if nf > uint64(len(data)) {
		return nil, errCorrupt
	}
	cd.files = make([]*fileEntry, 0, nf)
	cd.byRel = make(map[string]*fileEntry, nf)
	entries := make([]fileEntry, nf)
	packs := make([]packedDefs, nf)
	for k := range entries {
		f := &entries[k]
		f.rel = d.str()
		f.lang = LanguageByName(d.str())
		f.size = int64(d.uvarint())
		f.mtime = d.varint()
		f.crc = binary.LittleEndian.Uint32([]byte(d.s[d.off : d.off+4]))
		d.off += 4
		n := d.uvarint()
		if n > uint64(len(data)) {
			return nil, errCorrupt
		}
		start := len(cd.names)
		for range n {
			ni := d.u32()
			if ni >= uint32(ns) || cd.counts[ni] == 0 {
				return nil, errCorrupt
			}
			cd.names = append(cd.names, ni)
		}
		rest := d.str()
		if f.lang == nil {
			cd.names = cd.names[:start]
			continue // a language this binary no longer has
		}
		f.packed = &packs[k]
		f.packed.names = cd.names[start:len(cd.names):len(cd.names)]
		f.packed.rest, f.packed.strs = rest, cd.strs
		cd.files = append(cd.files, f)
		cd.byRel[f.rel] = f
	}
	if d.off != len(data) {
		return nil, errCorrupt
	}
	return cd, nil
}

// packedDefs is the definitions of a cache entry as the cache holds them
// (after their names): a warm start decodes their names alone, for the
// name table, and the rest of a file's definitions at their first read
// (fileEntry.defs), most never.
type packedDefs struct {
	once  sync.Once
	names []uint32 // the name of each definition, an index in strs
	rest  string   // containers, kinds and positions (see the layout above)
	strs  []string // the cache's string table
}

// defs returns the definitions of f, decoding them at the first call when
// they are packed. The caller holds mu (a read lock will do), or has f
// from an index it no longer changes.
func (f *fileEntry) defs() []def {
	if p := f.packed; p != nil {
		p.once.Do(func() { f.syms = p.decode(nil) })
	}
	return f.syms
}

// ndefs returns the number of definitions of f without decoding them.
func (f *fileEntry) ndefs() int {
	if f.packed != nil {
		return len(f.packed.names)
	}
	return len(f.syms)
}

// decode appends the definitions of p to out. A rest that passed the
// cache's checksum but is malformed leaves the definitions their names
// only, at the start of the file (their names are checked at load).
func (p *packedDefs) decode(out []def) (defs []def) {
	n0 := len(out)
	defs = slices.Grow(out, len(p.names))[:n0+len(p.names)]
	defer func() {
		if recover() != nil {
			for i, ni := range p.names {
				defs[n0+i] = def{Name: p.strs[ni]}
			}
		}
	}()
	d := decoder{s: p.rest}
	line := int64(0)
	for i, ni := range p.names {
		s := &defs[n0+i]
		s.Name = p.strs[ni]
		if c := d.u32(); c > 0 {
			s.Container = p.strs[c-1]
		}
		s.Kind = Kind(d.s[d.off])
		d.off++
		nl := line + d.varint()
		s.NameRange.Start = Pos{uint32(nl), d.u32()}
		s.NameRange.End = Pos{uint32(nl + d.varint()), d.u32()}
		s.Range.Start = Pos{uint32(nl - d.varint()), d.u32()}
		s.Range.End = Pos{uint32(nl + d.varint()), d.u32()}
		line = nl
	}
	return defs
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
