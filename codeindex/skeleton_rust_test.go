package codeindex

import (
	"bytes"
	"testing"
)

// TestSkeletonRustConstValues: the values of Rust const and static items
// go (the parser sees `const N: usize;`, the same item to the grammar,
// ending at the same ';'); a value holding a word that may define
// something stays, and the skeleton finds what a full parse finds.
func TestSkeletonRustConstValues(t *testing.T) {
	src := []byte(`pub const ERROR_SUCCESS: DWORD = 0;
pub(crate) const TABLE: [u8; 4] = [1, 2, 3, 4];
static mut COUNTER: AtomicUsize = AtomicUsize::new(0);
const NAME: &'static str = "name; with a semicolon"; // a comment
const PTR: *const u8 = 0 as *const u8;
const ITER: Option<Box<dyn Iterator<Item = u8>>> = None;
const F: fn(u8) -> u8 = double;
#[doc(hidden)]
pub const fn double(x: u8) -> u8 { x * 2 }
const WITH_ITEM: u8 = { const INNER: u8 = 3; INNER };
const BLOCK: usize = { fn helper() -> usize { 1 } helper() };
const _: () = assert!(1 < 2);
pub struct S;
impl S {
    pub const MAX: usize = 1 << 10;
}
trait T { const N: usize; const D: u8 = 7; }
fn body() { struct Local; const IN_FN: u32 = 0x10; }
`)
	l, x, skel := skeletonOf(t, "rust", src)
	skeletonCuts(t, skel, []string{"= 0;", "[1, 2", "AtomicUsize::new", "with a semicolon", "0 as", "= None", "= double", "1 << 10", "0x10", "= 7", "assert!"},
		[]string{"pub const ERROR_SUCCESS: DWORD;", "pub(crate) const TABLE: [u8; 4];", "static mut COUNTER: AtomicUsize;", "const NAME: &'static str;",
			"const PTR: *const u8;", "const ITER: Option<Box<dyn Iterator<Item = u8>>>;", "const F: fn(u8) -> u8;", "const INNER: u8;", "fn helper()", "const N: usize;", "const IN_FN: u32;"})
	sameAsFullParse(t, x, l, "a.rs", src)
	skeletonFinds(t, l, x, src, "a.rs", []string{"ERROR_SUCCESS", "TABLE", "COUNTER", "NAME", "PTR", "ITER", "F", "double", "WITH_ITEM", "INNER", "BLOCK", "helper", "S", "MAX", "N", "D", "Local", "IN_FN"})
}

// TestSkeletonRustMacroStatements: an item or a statement that is one
// macro invocation goes whole, with its ';' (not macro_rules!, not an
// invocation by a path; in a body, the statements that define nothing
// go anyway, those an expression goes on from too), and the skeleton
// finds what a full parse finds.
func TestSkeletonRustMacroStatements(t *testing.T) {
	src := []byte(`macro_rules! square { ($x:expr) => { $x * $x }; }
thread_local! { static LOCAL: u8 = 0; }
lazy_static::lazy_static! { static ref X: u8 = 1; }
impl_eq! { String, str }
impl_eq!(String, &'a str);
#[cfg(test)]
mod tests {
    fn main() {
        struct Kept;
        assert!(square!(2) == 4);
        println!("{}", 1) ;
        let v = vec![1, 2, 3];
        format!("{}", 2).len();
        m!(x) as u8;
        debug_assert!(true)
    }
}
`)
	l, x, skel := skeletonOf(t, "rust", src)
	skeletonCuts(t, skel, []string{"thread_local", "impl_eq", "assert!", "println", "LOCAL", "debug_assert", "vec!", "format!", "as u8"},
		[]string{"macro_rules! square", "lazy_static::lazy_static! {}", "struct Kept;"})
	sameAsFullParse(t, x, l, "a.rs", src)
	skeletonFinds(t, l, x, src, "a.rs", []string{"square", "tests", "main", "Kept"})
}

// TestSkeletonRustGenerics: type parameters, where clauses and the type
// arguments of plain names in an impl's header go (those of a path stay:
// the query takes `io::Lock` as an impl's type, not `io::Lock<'a>`), and
// a fn signature's return type and where clause go up to its ';'.
func TestSkeletonRustGenerics(t *testing.T) {
	src := []byte(`enum E<T> where T: Copy { A(T), B { x: T } }
struct W<T>(T) where T: Copy;
pub trait Tr<T>: Sized where Self: Copy {
    fn m<U>(&self, u: U) -> U where U: Copy;
    fn n(&self) -> Option<Vec<[u8; 4]>>;
}
type Alias<T> = Vec<T>;
union U<T: Copy> { a: T }
impl<T: Copy> Tr<T> for W<T> where T: Copy {
    fn m<U>(&self, u: U) -> U where U: Copy { u }
    fn n(&self) -> Option<Vec<[u8; 4]>> { None }
}
impl<'a> Tr<u8> for io::Lock<'a> {
    fn m<U: Fn() -> u8>(&self, u: U) -> U { u }
}
fn free<F>(f: F) -> impl Iterator<Item = u8> where F: Fn(u8) -> bool { std::iter::empty() }
`)
	l, x, skel := skeletonOf(t, "rust", src)
	skeletonCuts(t, skel, []string{"E<T>", "W<T>", "Tr<T>", "Alias<T>", "<U>", "impl<'a>", "Tr<u8>", "where", "-> U", "-> Option", "<T: Copy>", "Fn() -> u8", "Item = u8"},
		[]string{"enum E {", "struct W(", "pub trait Tr: Sized {", "fn m();", "fn n();", "type Alias = Vec<T>;", "union U {", "impl Tr for W", "impl Tr for io::Lock<'a> {", "fn free(){}"})
	sameAsFullParse(t, x, l, "a.rs", src)
	skeletonFinds(t, l, x, src, "a.rs", []string{"E", "A", "B", "x", "W", "Tr", "m", "n", "Alias", "U", "a", "free"})
}

// TestSkeletonRustUnstable: syntax of the standard library's unstable
// features that the grammar does not know (macros 2.0, auto traits, const
// and negative impls) would be an error in the parse, which may hide the
// items after it: the skeleton leaves out the macros and the words the
// grammar does not know, parses without error and finds every item.
func TestSkeletonRustUnstable(t *testing.T) {
	src := []byte(`#[rustc_builtin_macro]
pub macro Clone($item:item) {
    /* compiler built-in */
}
pub(crate) macro const_error {
    ($kind:expr, $msg:expr $(,)?) => { $crate::Error::new($kind, $msg) },
}
pub unsafe auto trait Send {}
pub auto trait UnwindSafe {}
impl<T: ?Sized> !Send for *const T {}
impl !Sync for Cell {}
impl<T> const Default for Box<T> {
    fn default() -> Self { Box::new(T::default()) }
}
impl const From<u8> for u32 {
    fn from(x: u8) -> u32 { x as u32 }
}
pub fn after() {}
`)
	l, x, skel := skeletonOf(t, "rust", src)
	skeletonCuts(t, skel, []string{"macro", "auto", "!Send", "!Sync", "const Default", "const From"},
		[]string{"pub unsafe trait Send {}", "pub trait UnwindSafe {}", "impl Send for *const T {}", " Default for Box {", " From for u32 {", "pub fn after(){}"})
	skeletonFinds(t, l, x, src, "a.rs", []string{"Send", "UnwindSafe", "default", "from", "after"})
}

// TestRustSkip: the fast reading of a Rust block that goes whole finds
// the closer that ends it past literals, lifetimes and nested comments
// that hold brackets, and leaves to block (-1) a block whose brackets do
// not nest, one it cannot read, and one that holds a word that may start
// an item (when asked: a body's, not a macro's).
func TestRustSkip(t *testing.T) {
	sx := LanguageByName("rust").syn
	for _, c := range []struct {
		body   string
		closer byte
		defs   bool
		ok     bool
	}{
		{"x + 1 }", '}', true, true},
		{"let s = r#\"} fn\"#; let b = b\"}\"; let c = br\"]\"; }", '}', true, true},
		{"let c = '{'; let d = '\\''; let e = '}'; }", '}', true, true},
		{"let l: &'static str = \"}\\\"}\"; f::<'a>(x) }", '}', true, true},
		{"/* } /* nested { */ */ // }\n x }", '}', true, true},
		{"if a { b[(1)] } else { c } }", '}', true, true},
		{"a, b(c)) more", ')', false, true},
		{"derive(Debug)] struct", ']', false, true},
		{"fn f() {} }", '}', false, true}, // a macro's tokens
		{"fn f() {} }", '}', true, false},
		{"struct Local; }", '}', true, false},
		{"impl X for Y {} }", '}', true, false},
		{"let p: *const u8 = q; }", '}', true, false},
		{"x(]) }", '}', true, false},
		{"x) }", '}', true, false},
		{"a ]", '}', true, false},
		{"\"unterminated }", '}', true, false},
		{"/* unterminated }", '}', true, false},
		{"x + 1", '}', true, false},
	} {
		src := []byte("{" + c.body)
		b := bskel{skeleton: skeleton{src: src, out: &skelOut{}}, lx: lexer{sx: sx, src: src}, sx: sx}
		got := b.rustSkip(1, c.closer, c.defs)
		want := -1
		if c.ok {
			want = bytes.LastIndexByte(src, c.closer)
		}
		if got != want {
			t.Errorf("rustSkip(%q, %q, %v) = %d, want %d", c.body, c.closer, c.defs, got, want)
		}
	}
}

// TestSkeletonRustBodies: bodies with brackets in literals, comments and
// macros go whole, those with an item stay (the item found), and the
// skeleton finds what a full parse finds.
func TestSkeletonRustBodies(t *testing.T) {
	src := []byte(`fn a() -> &'static str { let s = r#"} fn x() {"#; /* } /* { */ */ "}" }
fn b() { let c = '{'; m!{ fn hidden() {} } x[(1)]; }
fn c() { let p: *const u8 = q; }
fn d() { if x { struct Inner; } }
fn e() { v.iter().map(|x| { impl T for X {} x }) }
fn f() { let t = [0u8; 4]; }
`)
	l, x, skel := skeletonOf(t, "rust", src)
	skeletonCuts(t, skel, []string{"let s", "hidden", "let c", "let t"},
		[]string{"fn a(){}", "fn b(){}", "struct Inner;", "impl T for X {}"})
	sameAsFullParse(t, x, l, "a.rs", src)
	skeletonFinds(t, l, x, src, "a.rs", []string{"a", "b", "c", "d", "Inner", "e", "f"})
}

// TestSkeletonRustStatements: in a body that holds an item, the
// statements that define nothing go (those ended by ';', by a block that
// a name, a block or an attribute follows, and the value at the end),
// the items stay, and a statement whose items are all in blocks is left
// as those blocks (one with an item elsewhere stays whole); an `extern "C" fn`
// item's body is a fn's (it goes), not a container's; and the skeleton
// finds what a full parse finds.
func TestSkeletonRustStatements(t *testing.T) {
	src := []byte(`fn f() {
    let a = 1;
    struct S { x: u8 }
    if a > 0 { g(a) } else if a < 0 { h() } else { i() }
    fn inner() -> u8 { 2 }
    loop { break }
    { let scoped = 3; }
    #[allow(unused)]
    let t = S { x: 1 }.x;
    match a { _ => {} }
    unsafe { z() }
    impl S { fn m(&self) {} }
    let kept = { struct InLet; 4 };
    if a > 1 { enum InIf { A } } else { let no = 1; }
    let arr = [{ struct InArray; 1 }];
    'outer: for _ in 0..1 { continue 'outer; }
    macro_rules! local { () => {} }
    let after_rules = 5;
    println!("{}", a); struct AfterMacro;
    a + 1
}
pub unsafe extern "C" fn ffi(x: u8) -> u8 { unsafe { x as u8 } }
static F: extern "C" fn() = { extern "C" fn init() {} init };
`)
	l, x, skel := skeletonOf(t, "rust", src)
	skeletonCuts(t, skel, []string{"let a =", "g(a)", "else", "loop", "scoped", "S { x: 1 }", "match", "unsafe {", "'outer", "a + 1", "x as u8", "after_rules", "println",
		"let kept", "if a > 1", "let no"},
		[]string{"struct S { x: u8 }", "fn inner(){}", "impl S {", "{ struct InLet; }", "{ enum InIf { A } }", "let arr = [{ struct InArray; }];",
			"pub unsafe extern \"C\" fn ffi(){}", "static F: extern \"C\" fn() = {", "fn init(){}", "macro_rules! local {}", "struct AfterMacro;"})
	sameAsFullParse(t, x, l, "a.rs", src)
	skeletonFinds(t, l, x, src, "a.rs", []string{"f", "S", "x", "inner", "m", "InLet", "InIf", "A", "InArray", "ffi", "F", "init", "local", "AfterMacro"})
}

// TestRustDefWords: rustSkip gives a body back to block on every word
// with which block finds a definition in it: rustSyntax's defs and
// containers.
func TestRustDefWords(t *testing.T) {
	for _, w := range append(append([]string(nil), rustSyntax.defs...), append(rustSyntax.containers, rustSyntax.anyContainer...)...) {
		if !rustDefWord([]byte(w)) {
			t.Errorf("rustDefWord(%q) = false", w)
		}
	}
}
