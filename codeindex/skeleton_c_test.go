package codeindex

import (
	"bytes"
	"strings"
	"testing"
)

// TestCBody: cBody reads a C or C++ body that defines nothing by its
// brackets alone, gives any other to block (-1), and where it answers,
// its answer is block's: the same closing brace, and no definition.
func TestCBody(t *testing.T) {
	for _, c := range []struct {
		lang, body string
		fast       bool // cBody reads it
	}{
		{"c", `int x = 0; if (x) { x++; } else { x--; } return x;`, true},
		{"c", `struct foo *p = NULL; struct foo q = { .a = 1 }; enum e v; for (;;) { p++; }`, true},
		{"c", `x = (struct foo){ .a = 1 };`, true}, // in parentheses: no container
		{"c", `char *s = "}{"; char c = '}'; /* } */ // {` + "\n" + `return;`, true},
		{"c", "\n#if X\n\tf(a,\n#else\n\tf(b,\n#endif\n\tc);\n", false}, // block counts both branches
		{"c", "\n#ifdef X\n\tx++;\n#endif\n", true},
		{"c", `struct s { int a; } v;`, false},
		{"c", `if (x) { enum { A, B } e; }`, false},
		{"c", `typedef int t;`, false},
		{"c", "\n#define N 1\n", false},
		{"c", `f(); struct s *p; g(p) { x; }`, true}, // the ';' ends what struct opened
		{"c", `x = a[1]];`, false},                   // a ']' too many
		{"c", `struct s *p; p = x == y ? a : b; if (p) { p++; }`, true},
		{"c", `x = (a;`, false},
		{"cpp", `auto f = [&](int a) { return a + 1'000; }; std::string s = R"(})"; int n = u8"}"[0];`, true},
		{"cpp", `using namespace std; using std::swap; swap(a, b);`, true},
		{"cpp", `using list = std::list<int>;`, false},
		{"cpp", `class local : public base { void f(); };`, false},
		{"cpp", `struct local final { int a; } v;`, false},
		{"cpp", `namespace fs = std::filesystem; fs::path p;`, true},
	} {
		l := LanguageByName(c.lang)
		if err := l.load(); err != nil {
			t.Fatal(err)
		}
		src := []byte("void f(void) {" + c.body + "}\n")
		open := strings.IndexByte(string(src), '{') + 1
		var out skelOut
		b := bskel{skeleton: skeleton{src: src, out: &out}, lx: lexer{sx: l.syn, src: src}, sx: l.syn}
		got := b.cBody(open, false)
		if (got >= 0) != c.fast {
			t.Errorf("%s %q: cBody %d, want it to read the body: %v", c.lang, c.body, got, c.fast)
		}
		if got < 0 {
			continue
		}
		out.reset()
		b = bskel{skeleton: skeleton{src: src, out: &out}, lx: lexer{sx: l.syn, src: src}, sx: l.syn}
		end, defs := b.block(open, '}', false)
		if b.fail || end != got || defs {
			t.Errorf("%s %q: cBody %d, block %d (failed %v, definitions %v)", c.lang, c.body, got, end, b.fail, defs)
		}
	}
}

// TestSkeletonCStorageMacro: a statement of a storage class and one macro
// invocation (`static DEFINE_PER_CPU(int, x);`), which the grammar takes
// for an error, goes from the skeleton whole; the skeleton then parses
// without error and finds the definitions around it.
func TestSkeletonCStorageMacro(t *testing.T) {
	src := []byte(`static DEFINE_PER_CPU(u64, discard_pa_seq);
static int y;
extern DECLARE_WORK(free_work, do_free);
struct s { int a; };
static int f(void)
{
	return 0;
}
`)
	l, x, skel := skeletonOf(t, "c", src)
	skeletonCuts(t, skel, []string{"PER_CPU", "DECLARE_WORK"}, []string{"static int y;", "struct s { int a; };"})
	skeletonFinds(t, l, x, src, "a.c", []string{"y", "s", "a", "f"})
}

// TestSkeletonCDefines: the values of #defines go but their first byte
// (the definitions end where they did), and a body or an initializer
// whose only definitions are #defines keeps those lines alone (an
// initializer's are an error to the grammar still, a smaller one); a
// #define without a value keeps what follows it.
func TestSkeletonCDefines(t *testing.T) {
	src := []byte(`#define LONG_VALUE(a, b)	\
	do {				\
		f(a, b); /* x */	\
	} while (0)
#define EMPTY
int g(int a)
{
	int b = a;
#define SQ(x) ((x) * (x))
	if (b) {
#define CUBE(x) ((x) * SQ(x))
	}
	return SQ(b);
}
int h(int a)
{
#define NOVALUE
	return a;
}
`)
	l, x, skel := skeletonOf(t, "c", src)
	skeletonCuts(t, skel, []string{"while (0)", "f(a, b)", "int b = a;", "* (x)", "if (b)"},
		[]string{"#define LONG_VALUE(a, b)\t\\\n\td\n", "#define EMPTY\n", "{\n#define SQ(x) (\n#define CUBE(x) (\n}", "#define NOVALUE\n"})
	skeletonFinds(t, l, x, src, "a.c", []string{"LONG_VALUE", "EMPTY", "g", "SQ", "CUBE", "h", "NOVALUE"})
	// The comment in a #define's value is an error to the grammar.
	sameAsFullParse(t, x, l, "a.c", bytes.Replace(src, []byte("/* x */"), nil, 1))

	_, _, skel = skeletonOf(t, "c", []byte(`static const int table[] = {
#define ENTRY(x) [x] = #x,
	ENTRY(1)
	ENTRY(2)
#undef ENTRY
};
`))
	skeletonCuts(t, skel, []string{"ENTRY(1)", "#undef"}, []string{"= {\n#define ENTRY(x) [\n};"})
}

// TestSkeletonCIncludes: #include lines go whole, with their newline,
// wherever they stand; the definitions around them are the full parse's.
func TestSkeletonCIncludes(t *testing.T) {
	src := []byte(`#include <linux/types.h>
#include "local.h"
#if defined(X)
# include <x.h>
#endif
struct s {
	int a;
#include "fields.h"
};
int f(void)
{
	return 0;
}
`)
	for _, lang := range []string{"c", "cpp"} {
		l, x, skel := skeletonOf(t, lang, src)
		skeletonCuts(t, skel, []string{"include", "types.h"}, []string{"#if d\n#endif\n", "int a;\n};"})
		sameAsFullParse(t, x, l, "a.h", src)
	}
}

// TestSkeletonCIndent: the lines of the skeleton lose their indentation,
// and the definitions keep the full parse's columns.
func TestSkeletonCIndent(t *testing.T) {
	src := []byte(`namespace a {
    struct s {
        int x;
	    struct inner { int y; } z;
    };
    int f(int q)
    {
        return q;
    }
}
`)
	l, x, skel := skeletonOf(t, "cpp", src)
	skeletonCuts(t, skel, []string{"    struct", "\tstruct", " int x;"}, []string{"{\nstruct s {\nint x;\nstruct inner { int y; } z;\n};\nint f()"})
	sameAsFullParse(t, x, l, "a.hpp", src)
}
