package codeindex

import (
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
		got := b.cBody(open)
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
