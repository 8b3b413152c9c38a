package codeindex

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// TestRustDefsCorpus checks that rustDefs finds exactly the definitions of
// the skeleton's parse (which TestSkeletonCorpora checks against the full
// parse) in every file of the Rust corpus it reads; the files it leaves to
// the parse are counted.
func TestRustDefsCorpus(t *testing.T) {
	checkBuildPassCorpus(t, "rust", rustDefs, func(x *extractor) []byte {
		if at := x.rust.failAt; at >= 0 && at < len(x.sk.buf) {
			return x.sk.buf[at:min(len(x.sk.buf), at+12)]
		}
		return nil
	})
}

// checkBuildPassCorpus checks a language's buildPass (rustDefs, csDefs)
// against the skeleton's parse over the language's corpus: in every file
// it reads, the same definitions; at least half the files read; and the
// build's skeletonDefs, whether the pass reads the file or gives up, the
// same definitions in every file. stop, when
// not nil, says where the reader stopped in a file it left to the parse;
// the most frequent places are logged.
func checkBuildPassCorpus(t *testing.T, lang string, pass func(*extractor, *Language, []byte) bool, stop func(*extractor) []byte) {
	if testing.Short() {
		t.Skipf("parses the %s corpus", lang)
	}
	root := os.Getenv("AGENTLS_CORPUS")
	if root == "" {
		t.Skip("AGENTLS_CORPUS not set (bench/index/corpora.sh installs the corpora)")
	}
	dir := filepath.Join(root, lang)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpus: %v", err)
	}
	l := LanguageByName(lang)
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	x := newExtractor()
	defer x.Close()
	var parse, fast time.Duration
	files, read, diffs, builds := 0, 0, 0, 0
	stops := map[string]int{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || LanguageFor(p) != l {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > maxFileSize || skip(src) {
			return nil
		}
		files++
		t0 := time.Now()
		sd, err := x.parseDefs(l, src)
		if err != nil {
			t.Fatal(err)
		}
		a := symbols(sd, p)
		// The build's path (skeletonDefs: the pass, or, when it gives up,
		// the parse of the skeleton it built) finds the same.
		if bd, err := x.skeletonDefs(l, src); err != nil || fmt.Sprint(symbols(bd, p)) != fmt.Sprint(a) {
			if builds++; builds <= 12 {
				t.Logf("%s: the build's definitions differ from the skeleton parse's (%v)", p, err)
			}
		}
		t1 := time.Now()
		ok := pass(x, l, src)
		var b []Symbol
		if ok {
			b = symbols(x.collect(l, src, &x.sk), p)
		}
		fast += time.Since(t1)
		parse += t1.Sub(t0)
		if !ok {
			if stop != nil {
				if at := stop(x); at != nil {
					stops[string(at)]++
				}
			}
			return nil
		}
		read++
		if fmt.Sprint(a) != fmt.Sprint(b) {
			diffs++
			if diffs <= 12 {
				t.Logf("%s: skeleton parse %d definitions, the reader %d; first difference: %s", p, len(a), len(b), firstDiff(a, b))
			}
		}
		return nil
	})
	var keys []string
	for k := range stops {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return stops[keys[i]] > stops[keys[j]] })
	for _, k := range keys[:min(len(keys), 15)] {
		t.Logf("stopped %d times at %q", stops[k], k)
	}
	t.Logf("%d files: the reader read %d (the others left to the parse), %d differ; skeleton+parse+walk %v, reader %v", files, read, diffs, parse, fast)
	if diffs > 0 {
		t.Errorf("%d files differ from the skeleton's parse", diffs)
	}
	if builds > 0 {
		t.Errorf("%d files: skeletonDefs differs from the skeleton's parse", builds)
	}
	if read < files/2 {
		t.Errorf("the reader read only %d of %d files", read, files)
	}
}

// TestRustDefsSnippets checks rustDefs against a full parse on the
// corners of what it reads (see rustDefs): which impl types the pattern
// names, items in bodies and blocks, enum variants with fields and
// discriminants, visibility, modifiers, foreign items, macros, types; and
// that it leaves to the parse what it does not read.
func TestRustDefsSnippets(t *testing.T) {
	l := LanguageByName("rust")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	x := newExtractor()
	defer x.Close()
	for i, src := range []string{
		`impl A {} impl<T> B<T> {} impl a::C {} impl a::D<T> {} impl crate::E {} impl str::F {} impl u8 {} impl<T> G for &T {}
impl H for [u8] {} impl I for dyn J {} impl K for (L, M) {} impl N for *const u8 {} unsafe impl Send for O {} impl P for fn() -> u8 {}
impl<'a> Q<'a> for R<'a> {} impl S for self::T {} impl U for super::V<W> {}`,
		`pub struct A; pub(crate) struct B(pub u8, Vec<T>); struct C { pub a: u8, pub(super) b: &'static str, c: Box<dyn Fn(u8) -> u8 + Send>, }
union D { x: u32, y: f32 } pub(in crate::m) struct E { d: [u8; 4 * N], e: <T as Iterator>::Item, f: *mut *const u8, g: fn(x: u8, &str) -> !, h: (u8,), i: () }`,
		`enum A { B, C(u8, String), D { x: u8, y: Option<u8> }, E = 1 << 3, F = -1, G }
pub enum H { I = 0x10, J }`,
		`pub trait A: Sized + ?Sized + 'static + for<'a> Fn(&'a u8) { type B; type C: Copy; type D = u8; const E: u8; fn f(&self) -> u8; fn g(&mut self, x: u8) {} unsafe fn h(); }`,
		`extern "C" { fn a(x: u8) -> u8; static B: u8; } extern crate c; extern crate d as e; pub unsafe extern "C" fn f(x: u8) {}
macro_rules! g { () => {} } macro_rules! h ( () => {} ); cfg_if::cfg_if! { if #[cfg(x)] {} }`,
		`pub mod a { pub const B: u8 = 1; pub static mut C: u8 = 2; static D: &[u8] = b"x"; pub type E<T> = Vec<T>; mod f; }
pub(crate) const fn g() {} async fn h() {} pub default fn i() {} const unsafe fn j() {}`,
		`const _: () = (); fn f() { const _: u8 = 1; } pub trait W { fn w<T>(x: T) -> T where T: Iterator<Item = u8>, 'static: 'static; }`,
		`fn a() { let x = { struct B; 1 }; if x { enum F {} } else if y { fn g() {} } else { h() } spawn(move || { struct I; }); }`,
		`pub fn r#try() {} struct A { r#type: u8 } // raw identifiers`,
		`fn a() { let x = 1; fn b() {} struct C; impl C { fn d(&self) {} } { struct E; } x + 1 }
impl G { fn default() -> Self { Self } fn union() {} fn raw() {} }`,
	} {
		src := []byte(src)
		if !rustDefs(x, l, src) {
			t.Errorf("snippet %d: rustDefs does not read it (at %q)", i, x.sk.buf[x.rust.failAt:min(len(x.sk.buf), x.rust.failAt+30)])
			continue
		}
		sameAsFullParse(t, x, l, fmt.Sprintf("s%d.rs", i), src)
	}
	for i, src := range []string{
		`impl<T> X for T where T: Copy {} impl Y for <T as Z>::W {}`, // impl header with a qualified path
		`trait T { const _: u8; }`,
		`fn a() { let x = [{ struct B; 1 }]; }`, // a statement kept: it holds an item, not in a block
		`enum A { B = 'x' as isize }`,           // a character
		`pub trait Thin = Pointee<Metadata = ()>; // a trait alias`,
	} {
		if rustDefs(x, l, []byte(src)) {
			t.Errorf("refused snippet %d: rustDefs reads it: %s", i, x.sk.buf)
		}
	}
}
