package codeindex

import (
	"context"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSkeletonGOROOT checks that the skeleton parse of every Go file of
// Go's source tree without syntax errors finds exactly the definitions of
// a full parse.
func TestSkeletonGOROOT(t *testing.T) {
	if testing.Short() {
		t.Skip("parses Go's source tree twice")
	}
	checkSkeleton(t, LanguageByName("go"), filepath.Join(build.Default.GOROOT, "src"))
}

// TestSkeletonCorpora does the same for every language with a skeleton,
// over the trees under $AGENTLS_CORPUS/LANGUAGE (bench/index/corpora.sh
// installs them); a language without one is skipped.
func TestSkeletonCorpora(t *testing.T) {
	root := os.Getenv("AGENTLS_CORPUS")
	if root == "" {
		t.Skip("AGENTLS_CORPUS not set (bench/index/corpora.sh installs the corpora)")
	}
	for _, l := range Languages() {
		if l.Name == "go" {
			continue // TestSkeletonGOROOT
		}
		t.Run(l.Name, func(t *testing.T) {
			dir := filepath.Join(root, l.Name)
			if _, err := os.Stat(dir); err != nil {
				t.Skipf("no corpus: %v", err)
			}
			checkSkeleton(t, l, dir)
		})
	}
}

func checkSkeleton(t *testing.T, l *Language, root string) {
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	if l.skeleton == nil {
		t.Skipf("%s has no skeleton", l.Name)
	}
	x := newExtractor()
	defer x.Close()
	var full, skel time.Duration
	files, diffs, withErrors, whole := 0, 0, 0, 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || LanguageFor(p) != l {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > maxFileSize || skip(src) {
			return nil
		}
		files++
		ref := src
		if l.syn.leadingComments {
			// Lua's grammar reads annotations in comments (`-- @function f`)
			// and may then misread the next lines (`return M` a variable
			// "M"); the skeleton leaves the text of comments out, and is
			// compared with a full parse of the file without it.
			ref = blankComments(l, src)
		}
		t0 := time.Now()
		ft, _ := x.parse(context.Background(), l, ref, nil)
		a := x.definitions(l, ft, ref, p)
		broken := ft.RootNode().HasError()
		ft.Close()
		t1 := time.Now()
		sd, _ := x.parseDefs(l, src) // the skeleton's parse, not a defsPass (luadefs_test.go)
		b := symbols(sd, p)
		t2 := time.Now()
		full += t1.Sub(t0)
		skel += t2.Sub(t1)
		if !l.skeleton(&x.sk, src) {
			whole++
		}
		if broken {
			withErrors++ // error recovery may differ when the parser sees less
		} else if fmt.Sprint(a) != fmt.Sprint(b) {
			diffs++
			if diffs <= 8 {
				t.Logf("%s: full %d definitions, skeleton %d; first difference: %s", p, len(a), len(b), firstDiff(a, b))
			}
		}
		return nil
	})
	t.Logf("%s: %d files (%d with syntax errors, not compared; %d parsed whole), %d differ; full parse+defs %v, skeleton %v",
		l.Name, files, withErrors, whole, diffs, full, skel)
	// A full parse finds a few definitions that are none: statements in
	// function bodies that the grammar takes for declarations (asio's
	// `object_pool_access::prev(o) = 0;` a method of C++); the skeleton
	// leaves the bodies out. And Ruby's lexical corners (RDoc's Ruby parser,
	// a file of them) can still mislead the skeleton's reading of Ruby.
	// Beyond one file in 500 it is the skeleton.
	if diffs > (files-withErrors)/500 {
		t.Errorf("%d of %d files differ", diffs, files-withErrors)
	}
}

func firstDiff(a, b []Symbol) string {
	for i := range min(len(a), len(b)) {
		if fmt.Sprint(a[i]) != fmt.Sprint(b[i]) {
			return fmt.Sprintf("full %+v, skeleton %+v", a[i], b[i])
		}
	}
	switch {
	case len(a) > len(b):
		return fmt.Sprintf("full has more: %+v", a[len(b)])
	case len(b) > len(a):
		return fmt.Sprintf("skeleton has more: %+v", b[len(a)])
	}
	return strings.Repeat("?", 1)
}

// blankComments returns src with the text of its comments turned to
// spaces (newlines stay: every position is the same).
func blankComments(l *Language, src []byte) []byte {
	out := append([]byte(nil), src...)
	lx := lexer{sx: l.syn, src: src}
	for off := 0; off < len(src); {
		k, e := lx.next(off)
		if k == tBad || k == tEOF {
			break
		}
		if k == tComment {
			for i := lx.inner[0]; i < lx.inner[1]; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
		}
		off = e
	}
	return out
}

// TestSkeletonJSX: JSX is one literal to the lexer, so that files with
// JSX (TSX, .jsx) get the brace skeleton, which finds what a full parse
// finds; JSX the lexer cannot read, or whose expressions may define
// something, leaves the file to a full parse.
func TestSkeletonJSX(t *testing.T) {
	x := newExtractor()
	defer x.Close()
	for _, c := range []struct {
		name, src string
		skeleton  bool
	}{
		{"a.tsx", `import React from "react";

interface Props { title: string; items?: string[] }
// A type in the type parameters is not the interface's body.
export interface TreeProps<T = {}, U extends { id: number } = { id: 1 }> extends Props { children?: T; extra: U }

// A list with a header.
export function List({ title, items = [] }: Props) {
  const [open, setOpen] = React.useState(false);
  return (
    <section className="list" data-open={open ? "yes" : "no"} {...rest}>
      <h1 onClick={() => setOpen(!open)}>{title} — don't {"}"} panic</h1>
      <>
        {items.map((it) => <Item key={it} label={it} style={{ color: "red" }} />)}
      </>
      <p>it's 'quoted' and "double" text &amp; {` + "`template ${x}`" + `}</p>
    </section>
  );
}

export const Item = ({ label }: { label: string }) => <li>{label}</li>;

export class Panel extends React.Component<Props> {
  render() {
    return <div title={this.props.title}><List {...this.props} /></div>;
  }
  private toggle = () => { this.setState({}); };
}

export default function App() { return <List title="x" />; }

// An arrow with a return type in parentheses defines a function.
export function Sorted({ rows }: { rows: string[] }) {
  const getSortable = (repo: string): (string | number)[] => {
    return [repo, 1];
  };
  return <ul>{rows.map(getSortable)}</ul>;
}
`, true},
		{"a.jsx", `export function Card(props) {
  return <div className="card"><span>{props.name}'s card</span></div>;
}
const Header = () => <header>hi</header>;
`, true},
		// A generic arrow of TSX: type parameters, not an element.
		{"b.tsx", "const id = <T,>(x: T): T => x;\nfunction f() {}\n", false},
		// A function in a JSX expression: the file is parsed whole.
		{"c.tsx", "function A() { return <B render={function inner() { return 1; }} />; }\n", false},
	} {
		l := LanguageFor(c.name)
		if err := l.load(); err != nil {
			t.Fatal(err)
		}
		src := []byte(c.src)
		if got := l.skeleton(&x.sk, src); got != c.skeleton {
			t.Errorf("%s: skeleton made %v, want %v", c.name, got, c.skeleton)
		} else if got {
			t.Logf("%s: the parser sees %d of %d bytes", c.name, len(x.sk.buf), len(src))
		}
		full := sameAsFullParse(t, x, l, c.name, src)
		if len(full) == 0 {
			t.Errorf("%s: no definitions", c.name)
		}
	}
}

// TestSkeletonMacroRun: the C++ skeleton leaves out statements of macro
// invocations without terminators (a generated table, as in Boost's
// srs/projections/iau2000_traits.hpp; BOOST_TYPEOF_REGISTER_TYPE(x)
// lines), single invocations with one (BOOST_MPL_ASSERT_MSG(...);) or
// before a closing brace (`struct tag { IS_TAG() };`), keeps the first
// letter of one that is the return type of the function that follows
// (Asio's BOOST_ASIO_INITFN_AUTO_RESULT_TYPE(...)), and one before a
// brace (`TEST(a, b) {`); what stands around them keeps its definitions,
// and the skeleton parses without error.
func TestSkeletonMacroRun(t *testing.T) {
	var b strings.Builder
	b.WriteString("namespace geo {\ntemplate <int N>\nstruct traits {};\n\n")
	for i := range 50 {
		fmt.Fprintf(&b, "TRAITS_BEG(iau, %d) spar::params<spar::longlat, spar::r<> > TRAITS_MID() (spar::longlat(), spar::r<>(%d)) TRAITS_END()\n", i, i*7)
		if i%10 == 0 {
			fmt.Fprintf(&b, "//TRAITS_BEG(iau, %d)\n", i+1000)
		}
	}
	b.WriteString(`struct after { void f(); };
SINGLE_MACRO(x)
STATIC_ASSERT(sizeof(after) > 0);
STATIC_ASSERT(true);
int g(int a) { return a; }
struct tag { IS_TAG() };
struct checked
{
    BOOST_MPL_ASSERT_MSG((false), NOT_IMPLEMENTED, (types<int>));
public:
    COPYABLE_AND_MOVABLE(checked)
    BOOST_ASIO_INITFN_AUTO_RESULT_TYPE(H,
        void (boost::system::error_code, std::size_t))
    async_read(H&& handler);
};
TEST(suite, name)
{
}
template <typename H>
template <typename R>
BOOST_ASIO_INITFN_AUTO_RESULT_TYPE(R,
    void (boost::system::error_code, std::size_t))
stream<H>::async_fill(R&& handler)
{
}
}
BOOST_TYPEOF_REGISTER_TYPE(geo::after)
#if X
BOOST_TYPEOF_REGISTER_TEMPLATE(geo::traits, (class)(int))
#endif
`)
	src := []byte(b.String())
	l, x, skel := skeletonOf(t, "cpp", src)
	skeletonCuts(t, skel, []string{"TRAITS_", "SINGLE_MACRO", "STATIC_ASSERT", "IS_TAG", "MOVABLE", "NOT_IMPLEMENTED", "AUTO_RESULT", "BOOST_TYPEOF", "error_code"}, []string{"B\nasync_read(", "TEST()\n{"})
	tree, err := x.parse(context.Background(), l, x.sk.buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tree.RootNode().HasError() {
		t.Errorf("the skeleton has a syntax error:\n%s", skel)
	}
	tree.Close()
	sd, err := x.skeletonDefs(l, src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range symbols(sd, "a.hpp") {
		got = append(got, fmt.Sprintf("%s %s %d", s.Kind, s.Name, s.Range.Start.Line))
	}
	lines := strings.Count(b.String()[:strings.Index(b.String(), "struct after")], "\n")
	want := []string{"module geo 0", "struct traits 2", fmt.Sprintf("struct after %d", lines), fmt.Sprintf("function g %d", lines+4),
		fmt.Sprintf("struct tag %d", lines+5), fmt.Sprintf("struct checked %d", lines+6), fmt.Sprintf("method async_read %d", lines+11),
		fmt.Sprintf("function TEST %d", lines+15)}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("skeleton definitions %q lack %q", got, w)
		}
	}
}

// TestSkeletonMacroAttr: the C++ skeleton leaves out macros that stand
// where C++ allows no name (Asio's BOOST_ASIO_DECL and
// BOOST_ASIO_NOEXCEPT, Spirit's NAMESPACE_BEGIN), and keeps a macro
// that is a type or a statement; the skeleton then parses without error.
func TestSkeletonMacroAttr(t *testing.T) {
	src := []byte(`SPIRIT_NAMESPACE_BEGIN
class timer
{
public:
  explicit timer(const executor& ex) BOOST_ASIO_NOEXCEPT
    : ex_(ex) {}
  executor get_executor() const BOOST_ASIO_NOEXCEPT { return ex_; }
  timer(timer&& other) BOOST_NOEXCEPT_IF(is_nothrow<T>::value) : ex_(other.ex_) {}
  static BOOST_ASIO_CONSTEXPR const char* name() { return "timer"; }
  void wait() BOOST_ASIO_NOEXCEPT;
  template <typename T>
  BOOST_ASIO_CONSTEXPR typename enable_if<is_executor<T>::value>::type
  require(const T& t) const;
  friend BOOST_ASIO_CONSTEXPR bool operator==(const timer& a, const timer& b);
  void run() const
    BOOST_ASIO_NOEXCEPT_IF(is_nothrow<T>::value)
  {
  }
  MY_TYPE value_;
  MY_TYPE get(int);
private:
  executor ex_;
};

BOOST_ASIO_DECL void shutdown(timer& t);
BOOST_ASIO_DECL std::size_t count(const timer& t);
BOOST_ASIO_SYNC_OP_VOID timer::cancel(int how)
{
  return;
}
SPIRIT_NAMESPACE_END
`)
	l, x, skel := skeletonOf(t, "cpp", src)
	skeletonCuts(t, skel, []string{"NOEXCEPT", "NAMESPACE", "BOOST_ASIO_DECL", "CONSTEXPR"}, []string{"MY_TYPE value_;", "MY_TYPE get(", "BOOST_ASIO_SYNC_OP_VOID timer::cancel("})
	skeletonFinds(t, l, x, src, "a.hpp", []string{"timer", "get_executor", "name", "wait", "value_", "get", "ex_", "cancel", "run"})
}

// TestSkeletonCppDeclarations: the C++ skeleton leaves out the template
// arguments of the types in declarations and a constructor's member
// initializers, and finds what a full parse finds.
func TestSkeletonCppDeclarations(t *testing.T) {
	src := []byte(`namespace geo {
template <typename Value, typename Params = linear<16, 4> >
class rtree : public detail::translator<Value, Params>, private std::allocator<Value>
{
public:
  typedef typename detail::rtree::node<Value, Params, box<point<double, 2> > >::type node;
  static const bool small = sizeof(Value) < 8 && Params::max > 2;
  bool operator<(rtree const& other) const;
  rtree(Params const& params, std::allocator<Value> const& alloc)
    : detail::translator<Value, Params>(params), m_size(0), m_root{nullptr}
  {
    if (m_size < 2 && 3 > m_size) { init(); }
  }
  explicit rtree(int n) : m_size(n) {}
  std::vector<std::pair<int, Value> > pairs() const { return {}; }
private:
  std::size_t m_size;
  node* m_root;
};

template <typename V>
rtree<V>::~rtree() {}
}
`)
	l, x, skel := skeletonOf(t, "cpp", src)
	skeletonCuts(t, skel, []string{"translator<Value", "node<Value", "m_size(0)", "m_size(n)", "pair<int"}, []string{"sizeof(Value) < 8 && Params::max > 2", "operator<("})
	full := sameAsFullParse(t, x, l, "a.hpp", src)
	if len(full) < 8 {
		t.Errorf("%d definitions: %v", len(full), full)
	}
	// Member initializers under #if stay, so that #if and #endif pair.
	src = []byte("struct s {\n  s(int a)\n#if defined(X)\n    : a_(a)\n#endif\n  {}\n  int a_;\n};\n")
	if l.skeleton(&x.sk, src) && strings.Count(string(x.sk.buf), "#endif") != 1 {
		t.Errorf("the skeleton splits #if from #endif:\n%s", x.sk.buf)
	}
}

// TestSkeletonCppParameters: the C++ skeleton takes the macro out of a
// parameter's type (Asio's BOOST_ASIO_MOVE_ARG(T) x) and leaves out
// default values of one token (`typename T::type* = 0`, which the grammar
// takes for an error) and macros after a parameter's name
// (BOOST_ASIO_DEFAULT_COMPLETION_TOKEN(E)), and finds what a full parse finds; a parenthesis
// that closes none in a function's body (in code #if leaves out) does not
// leave the file to a full parse.
func TestSkeletonCppParameters(t *testing.T) {
	// At the top level, where the parameters stay (in a class or a
	// namespace they go whole: TestSkeletonCppParameterCuts).
	src := []byte(`template <typename T>
char has_result_type_helper(T*, typename T::result_type* = 0);
template <typename Stream, typename Buffer>
std::size_t read_until(Stream& s, BOOST_ASIO_MOVE_ARG(Buffer) buffers, char delim = 'x',
    typename enable_if<is_dynamic_buffer<typename decay<Buffer>::type>::value>::type* = 0);
typedef BOOST_ASIO_MOVE_ARG(Executor) executor_ref;
template <typename... Args>
void post(BOOST_ASIO_MOVE_ARG(Args)... args, int n = 3);
int size(int a = 1 + 2);
void async_fill(ReadHandler handler
    BOOST_ASIO_DEFAULT_COMPLETION_TOKEN(typename Stream::executor_type));
class strand
{
public:
  void post(BOOST_ASIO_MOVE_ARG(Args)... args, int n = 3) const;
};
`)
	l, x, skel := skeletonOf(t, "cpp", src)
	skeletonCuts(t, skel, []string{"MOVE_ARG", "= 0", "'x'", "n = 3", "COMPLETION_TOKEN"}, []string{"Buffer buffers", "typedef Executor executor_ref", "Args... args", "= 1 + 2", "post() const;"})
	tree, err := x.parse(context.Background(), l, x.sk.buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tree.RootNode().HasError() {
		t.Errorf("the skeleton has a syntax error:\n%s", skel)
	}
	tree.Close()
	src = []byte(`int inet_pton(int af, const char* src)
{
#if defined(BOOST_ASIO_WINDOWS_RUNTIME)
  ec.assign(), ec.category());
#endif
  return 0;
}
struct after { int a; };
`)
	if !l.skeleton(&x.sk, src) {
		t.Fatal("a stray parenthesis in a body leaves the file to a full parse")
	}
	sd, err := x.skeletonDefs(l, src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range symbols(sd, "a.ipp") {
		got = append(got, s.Name)
	}
	if !slices.Equal(got, []string{"inet_pton", "after", "a"}) {
		t.Errorf("definitions %q, want inet_pton, after, a", got)
	}
}

// TestSkeletonCppParameterCuts: the C++ skeleton leaves out the
// parameters of declarations in classes and namespaces (`void f(const
// std::vector<int>& v) const;`), of operators (`operator()(H h)`,
// `operator==(X const& o)`), of empty bodies and of bodies that hold a
// definition (a local typedef, which stays); not the arguments of a
// variable at the top level (`std::vector<int> v(3, 4);`, a definition of
// translation_unit), and finds what a full parse finds.
func TestSkeletonCppParameterCuts(t *testing.T) {
	src := []byte(`namespace geo {
void declared(std::pair<int, long> p, int n);
struct box
{
    void f(const std::vector<int>& v) const;
    bool operator==(box const& other) const;
    void operator()(Handler handler) const {}
    static void apply(Box& b) {}
    int g(std::map<int, char> m)
    {
        typedef typename std::map<int, char>::iterator iterator;
        return 0;
    }
};
}
std::vector<int> values(3, 4);
int top(int a, int b);
`)
	l, x, skel := skeletonOf(t, "cpp", src)
	skeletonCuts(t, skel, []string{"pair<int", "vector<int>&", "box const& other", "Handler handler", "Box& b", "map<int, char> m"},
		[]string{"declared()", "f() const;", "operator==() const;", "operator()() const", "apply()", "g()", "typedef typename std::map<>::iterator iterator;", "values(3, 4);"})
	full := sameAsFullParse(t, x, l, "a.hpp", src)
	if len(full) < 8 {
		t.Errorf("%d definitions: %v", len(full), full)
	}
}

// TestSkeletonCppBaseClauses: the C++ skeleton leaves out a class's base
// clause (whole #if groups in it too: Asio's bases by configuration,
// which the grammar takes for errors), an enum's underlying type, using
// declarations and directives (not aliases) and the blank lines between
// declarations but after a #define; it keeps a
// ternary's ':' after a struct's name, and finds what a full parse finds
// (and, with the #if groups gone, parses without error).
func TestSkeletonCppBaseClauses(t *testing.T) {
	src := []byte(`namespace asio {
#define EMPTY

using std::swap;
using namespace detail;
using alias = std::vector<int>;
template <typename T>
struct is_buffer
  : integral_constant<bool, true>, public detail::base<T>
{
  int a;


  int b;
};
enum class level : unsigned char { low, high };
struct mutable_sequence
#if defined(ASIO_HAS_MOVE)
  : public detail::movable<mutable_sequence>
#else
  : public detail::copyable
#endif
{
  struct node* next = flag ? first : last;
};
}
`)
	l, x, skel := skeletonOf(t, "cpp", src)
	skeletonCuts(t, skel, []string{"integral_constant", "detail::base", "unsigned char", "movable", "copyable", "int a;\n\n", "swap", "namespace detail"},
		[]string{"#define EMPTY\n\n", "using alias =", "struct is_buffer\n{", "enum class level {", "struct mutable_sequence\n{", "flag ? first : last;", "int a;\nint b;"})
	skeletonFinds(t, l, x, src, "a.hpp", []string{"asio", "EMPTY", "alias", "is_buffer", "a", "b", "level", "low", "high", "mutable_sequence", "next"})
	src = []byte(`template <typename T>
struct is_buffer : integral_constant<bool, true>, public detail::base<T>
{
  int a;
};
enum class level : unsigned char { low, high };
`)
	l, x, _ = skeletonOf(t, "cpp", src)
	sameAsFullParse(t, x, l, "a.hpp", src)
}

// TestSkeletonCppIfGroups: whole #if groups in a parameter list
// (Geometry's DOXYGEN_SHOULD_SKIP_THIS parameter) go with the parameters,
// and those between a function's parameters and its body or ';' (Asio's
// BOOST_ASIO_NOEXCEPT_IF by configuration) go whole. The skeleton
// parses without error and finds the definitions.
func TestSkeletonCppIfGroups(t *testing.T) {
	src := []byte(`namespace geo {
struct access
{
    int get(Geometry const& geometry
#ifndef DOXYGEN_SHOULD_SKIP_THIS
        , int extra
#endif
        ) const;
    void post() const
#if defined(BOOST_ASIO_MSVC)
        BOOST_ASIO_NOEXCEPT_IF((is_nothrow<T>::value))
#else
        BOOST_ASIO_NOEXCEPT
#endif
    {
        run();
    }
};
}
`)
	l, x, skel := skeletonOf(t, "cpp", src)
	skeletonCuts(t, skel, []string{"DOXYGEN", "int extra", "NOEXCEPT", "MSVC", "run()"},
		[]string{"get() const;", "post() const\n{}"})
	skeletonFinds(t, l, x, src, "a.hpp", []string{"geo", "access", "get", "post"})
}

// TestSkeletonCppBodyStatements: in a function's body that holds a
// definition (a local typedef), the C++ skeleton leaves out the
// statements that hold none, keeps control statements, blocks and what
// the grammar may take for a definition (NAME(...) {) but the template
// arguments of a typedef's or an alias's types and the conditions of
// if, while and switch but a letter, takes `using namespace`
// for no definition (the body goes whole), and finds what a full parse
// finds.
func TestSkeletonCppBodyStatements(t *testing.T) {
	src := []byte(`namespace geo {
template <typename G>
inline void buffer(G const& g, int n)
{
    typedef typename point_type<G>::type point_type;
    concepts::check<G const>();
    point_type p = make<point_type>(n * 2, compute(g));
    if (n > 0)
    {
        n--;
    }
    else
        n++;
    do { n--; } while (n > 0);
    for (int i = 0; i < n; i++) n += i;
    typedef std::vector<point_type> points;
    using list = std::list<points>;
    BOOST_FOREACH(point_type const& q, g)
    {
        n++;
    }
    auto f = [&](int a) { return a + n; };
    return;
}
inline int table(int code)
{
    using namespace srs;
    static const int arr[] = { 1, 2, 3 };
    return arr[code];
}
}
`)
	l, x, skel := skeletonOf(t, "cpp", src)
	for _, gone := range []string{"check<", "make<", "compute", "return;", "arr[code]", "using namespace", "vector<point_type>", "list<points>", "n > 0"} {
		if strings.Contains(skel, gone) {
			t.Errorf("the skeleton keeps %q:\n%s", gone, skel)
		}
	}
	for _, keep := range []string{"typedef typename point_type<G>::type point_type;", "if (n)", "while (n);", "for (", "typedef std::vector<> points;",
		"using list =", "BOOST_FOREACH(", "auto f ="} {
		if !strings.Contains(skel, keep) {
			t.Errorf("the skeleton lost %q:\n%s", keep, skel)
		}
	}
	full := sameAsFullParse(t, x, l, "a.hpp", src)
	if len(full) < 6 {
		t.Errorf("%d definitions: %v", len(full), full)
	}
}

// TestSkeletonCAttributes: the C skeleton leaves out Linux's attribute
// macros before and after a declarator (`static int __init f(void)`,
// `int x __read_mostly = 1;`, `u8 buf[64] __aligned(8);`) and statements
// of one macro invocation (`DEFINE_PER_CPU(int, x);`), keeps reserved names
// that are a type or a declarator (`__int64 __align;`, `struct map
// __name = {...}`, `f(void) __attribute__((x)) __name(...)`), and parses
// without error.
func TestSkeletonCAttributes(t *testing.T) {
	src := []byte(`struct lockdep_map __mmu_map = { .name = "x" };
static int __init setup(void)
{
	return 0;
}
int sysctl_interval __read_mostly = HZ;
static struct vm_struct *vmlist __initdata;
static u8 buf[64] __aligned(8);
DEFINE_PER_CPU(unsigned int, recursion);
struct rq {
	raw_spinlock_t lock ____cacheline_aligned_in_smp;
	DECLARE_BITMAP(bitmap, MAX_PRIO+1);
	__int64 __align;
};
uint32_t __attribute__((weak)) __div64_32(uint64_t *n, uint32_t base)
{
	return 0;
}
`)
	l, x, skel := skeletonOf(t, "c", src)
	skeletonCuts(t, skel, []string{"__init", "__read_mostly", "__initdata", "__aligned", "PER_CPU", "BITMAP", "____cacheline"}, []string{"__mmu_map", "__int64 __align;", "__div64_32("})
	skeletonFinds(t, l, x, src, "a.c", []string{"__mmu_map", "setup", "sysctl_interval", "rq", "lock", "__align", "__div64_32"})
}

// TestSkeletonCppGrammarGaps: the C++ skeleton leaves out what the
// grammar takes for errors where a compiler does not: the condition of #if
// and #elif but one letter (BOOST_WORKAROUND(BOOST_MSVC, >= 1400)), a
// macro between class and the class's name (class BOOST_SYMBOL_VISIBLE x
// : base), a semicolon after a member function's body (f() {};); the
// skeleton then parses without error and finds the definitions.
func TestSkeletonCppGrammarGaps(t *testing.T) {
	src := []byte(`namespace phoenix {
#if BOOST_WORKAROUND(BOOST_MSVC, >= 1400)
#define PHOENIX_MSVC 1
#elif defined(__GNUC__) && (__GNUC__ < 4)
#endif
class BOOST_SYMBOL_VISIBLE illegal_backtracking : public std::exception
{
public:
    illegal_backtracking() {};
    ~illegal_backtracking() throw() {}
};
struct functor
{
    functor() : n(0)
    {};
    int n;
};
auto f = []() {};
}
`)
	l, x, skel := skeletonOf(t, "cpp", src)
	skeletonCuts(t, skel, []string{"WORKAROUND", ">= 1400", "__GNUC__", "VISIBLE", "illegal_backtracking() {};", "    {};"}, []string{"#if B\n", "#elif d\n", "#define PHOENIX_MSVC 1", "[]() {};"})
	skeletonFinds(t, l, x, src, "a.hpp", []string{"phoenix", "PHOENIX_MSVC", "illegal_backtracking", "~illegal_backtracking", "functor", "n"})
}

// TestSkeletonCDirectives: the C and C++ skeletons leave out the names
// of #ifdef and #ifndef but a letter, what follows #else and #endif (a
// comment) and the lines of #pragma, #undef, #error, #warning and #line
// whole; the #defines and the #if groups stay, and the skeleton finds
// what a full parse finds.
func TestSkeletonCDirectives(t *testing.T) {
	src := []byte(`#ifndef BOOST_ASIO_STRAND_HPP
#define BOOST_ASIO_STRAND_HPP
#pragma once
#ifdef BOOST_ASIO_HAS_MOVE
struct moved { int a; };
#else // defined(BOOST_ASIO_HAS_MOVE)
struct copied { int b; };
#endif // defined(BOOST_ASIO_HAS_MOVE)
#undef BOOST_ASIO_STRAND_HPP
#if defined(_MSC_VER)
# error "no MSVC" /* a comment */
#elif 0
#warning old
#endif
#line 12
int after(void) { return 0; }
#endif /* BOOST_ASIO_STRAND_HPP */
`)
	for _, lang := range []string{"c", "cpp"} {
		l, x, skel := skeletonOf(t, lang, src)
		skeletonCuts(t, skel, []string{"ASIO_HAS_MOVE", "defined(", "pragma", "undef", "error", "warning", "#line", "BOOST_ASIO_STRAND_HPP */"},
			[]string{"#ifndef B\n", "#define BOOST_ASIO_STRAND_HPP\n", "#ifdef B\n", "#else\n", "#endif\n", "#if d\n", "#elif 0\n"})
		sameAsFullParse(t, x, l, "a.h", src)
		skeletonFinds(t, l, x, src, "a.h", []string{"BOOST_ASIO_STRAND_HPP", "moved", "a", "copied", "b", "after"})
	}
}

// TestSkeletonRubyLiterals: Ruby's skeleton leaves out the contents of
// large bracket literals that define nothing (generated tables), keeps
// those that do or that hold or follow a heredoc, and finds what a full
// parse finds.
func TestSkeletonRubyLiterals(t *testing.T) {
	var b strings.Builder
	b.WriteString("module Tables\n  DECOMPOSITION = {\n")
	for i := range 40 {
		fmt.Fprintf(&b, "    \"\\u%04X\" => [0x%05X, %d],\n", i+0xC0, i*7, i)
	}
	b.WriteString("  }.freeze\n  LIST = [\n")
	for i := range 40 {
		fmt.Fprintf(&b, "    :name_%d,\n", i)
	}
	b.WriteString("  ]\n  HANDLERS = [\n    Class.new { def call(x) = x },\n    Struct.new(:a, :b) { Inner = 1 },\n    :padding_padding_padding_padding_padding,\n  ]\n")
	b.WriteString("  DOC = [<<~EOS, {\n    text\n  EOS\n    key_one: 1, key_two: 2, key_three: 3, key_four: 4, key_five: 5,\n  }]\n")
	b.WriteString("  def self.lookup(c)\n    DECOMPOSITION[c]\n  end\nend\n")
	src := []byte(b.String())
	l, x, skel := skeletonOf(t, "ruby", src)
	for _, want := range []string{"DECOMPOSITION = {}\n", "LIST = []", "def call", "Inner = 1", "key_five: 5"} {
		if !strings.Contains(skel, want) {
			t.Errorf("the skeleton lacks %q:\n%s", want, skel)
		}
	}
	full := sameAsFullParse(t, x, l, "a.rb", src)
	if len(full) < 6 {
		t.Errorf("%d definitions: %v", len(full), full)
	}
}

// TestSkeletonRustItems: Rust's skeleton leaves out attributes, the
// parameters of `fn new` (new is no keyword in Rust), what stands
// between a fn's parameters and its body or its ';' (return type, where
// clause), type parameters, where clauses and the type arguments of an
// impl's header, and finds what a full parse finds.
func TestSkeletonRustItems(t *testing.T) {
	src := []byte(`#![allow(dead_code)]
use std::fmt;

#[derive(Debug, Clone)]
#[must_use = "iterators are lazy and do nothing unless consumed"]
pub struct Split<'a, T: 'a, P> {
    #[doc(hidden)]
    v: &'a [T],
    pred: P,
}

impl<'a, T: 'a, P: FnMut(&T) -> bool> Split<'a, T, P> {
    #[inline]
    pub(super) fn new(slice: &'a [T], pred: P) -> Self {
        Self { v: slice, pred }
    }
}

#[inline]
pub fn from_generator<G: Generator<Return = ()> + Unpin>(
    generator: G,
) -> impl Iterator<Item = G::Yield> {
    FromGenerator(generator)
}

impl<T: fmt::Debug, P> fmt::Debug for Split<'_, T, P>
where
    P: FnMut(&T) -> bool,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Split").field("v", &self.v).finish()
    }
}

pub trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> String where Self: Sized { String::new() }
}
`)
	l, x, skel := skeletonOf(t, "rust", src)
	skeletonCuts(t, skel, []string{"#[", "#!", "slice: &", "-> Self", "-> impl", "-> fmt::Result", "where Self", "-> f64", "Generator<Return", "<'a, T: 'a, P>", "<T: fmt::Debug, P>", "where\n", "Split<"},
		[]string{"fn area();", "pub struct Split {", "impl Split {", "impl fmt::Debug for Split", "pub trait Shape {"})
	full := sameAsFullParse(t, x, l, "a.rs", src)
	if len(full) < 8 {
		t.Errorf("%d definitions: %v", len(full), full)
	}
}

// TestSkeletonRustUse: Rust use declarations define nothing and go whole
// (with their pub or pub(...) and their ';'), at the top and in modules;
// what is not a plain path stays; the skeleton finds what a full parse
// finds.
func TestSkeletonRustUse(t *testing.T) {
	src := []byte(`use std::{
    fmt::{self, Debug, Display},
    io::{Read, Write as _}, // a comment
    sync::*,
};
pub use crate::a::B;
pub(crate) use self::c::{d, e::F};
pub(in crate::x) use super::g;

pub mod inner {
    use super::*;
    pub struct Kept(u8);
    #[cfg(test)]
    pub use std::collections::HashMap as Map;
    pub const LIMIT: usize = 3;
}

pub fn uses() -> u8 {
    use std::mem;
    fn helper() {}
    0
}

pub trait T { fn f(&self) -> impl Debug + use<'_>; }
`)
	l, x, skel := skeletonOf(t, "rust", src)
	skeletonCuts(t, skel, []string{"fmt::", "Write", "crate::a", "self::c", "pub(", "super::", "HashMap", "a comment"},
		[]string{"mod inner {", "struct Kept(", "const LIMIT", "fn uses(", "trait T", "fn f("})
	if n := strings.Count(skel, ";"); n != 3 { // Kept's, LIMIT's and f's: the uses' went with them
		t.Errorf("the skeleton keeps %d semicolons, want 3:\n%s", n, skel)
	}
	full := sameAsFullParse(t, x, l, "a.rs", src)
	if len(full) < 7 {
		t.Errorf("%d definitions: %v", len(full), full)
	}
	skeletonFinds(t, l, x, src, "a.rs", []string{"Kept", "LIMIT", "uses", "f"})
}

// TestSkeletonLuaTableFields: in a Lua table that defines functions, the
// fields between those that define nothing are left out, and the
// skeleton finds what a full parse finds.
func TestSkeletonLuaTableFields(t *testing.T) {
	var b strings.Builder
	b.WriteString("local M = {}\nlocal extension = {\n")
	for i := range 20 {
		fmt.Fprintf(&b, "  ext_%d = \"type_%d\",\n", i, i)
		if i%7 == 3 {
			fmt.Fprintf(&b, "  fn_%d = function(path, bufnr)\n    return detect(path, { a = 1 }, bufnr)\n  end,\n", i)
		}
	}
	b.WriteString("  nested = { deep = function() end, plain = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 } };\n")
	b.WriteString("  [\"8th\"] = \"8th\", last = call(a, b),\n}\nfunction M.match(name)\n  return extension[name]\nend\nreturn M\n")
	src := []byte(b.String())
	l, x, skel := skeletonOf(t, "lua", src)
	for _, gone := range []string{"ext_", "type_", "8th", "last", "plain"} {
		if strings.Contains(skel, gone) {
			t.Errorf("the skeleton keeps %q:\n%s", gone, skel)
		}
	}
	full := sameAsFullParse(t, x, l, "a.lua", src)
	if len(full) < 6 {
		t.Errorf("%d definitions: %v", len(full), full)
	}
}

// TestSkeletonJavaConstructors: a constructor without modifiers after a
// field (`Node(int h) { this.h = h; }`) is no enum constant with a body:
// its body goes; an enum's constants keep theirs.
func TestSkeletonJavaConstructors(t *testing.T) {
	src := []byte(`class Map<K, V> {
    static class Node<K, V> {
        final int hash;
        Node(int hash, K key) {
            this.hash = hash;
            this.key = key;
        }
        Node(int hash) { this(hash, null); }
    }
    enum Op {
        PLUS("+") { int apply(int a, int b) { return a + b; } },
        MINUS("-") { int apply(int a, int b) { return a - b; } };
        private final String sym;
        Op(String sym) { this.sym = sym; this.sym.length(); }
        abstract int apply(int a, int b);
    }
}
`)
	l, x, skel := skeletonOf(t, "java", src)
	for _, gone := range []string{"this.hash", "this(hash", "this.sym"} {
		if strings.Contains(skel, gone) {
			t.Errorf("the skeleton keeps %q:\n%s", gone, skel)
		}
	}
	if !strings.Contains(skel, "int apply(") {
		t.Errorf("the skeleton lost the constants' bodies:\n%s", skel)
	}
	sameAsFullParse(t, x, l, "A.java", src)
}

// TestLuaReserved: luaReserved knows the words of luaSyntax.reserved.
func TestLuaReserved(t *testing.T) {
	for w := range luaSyntax.reserved {
		if !luaReserved([]byte(w)) {
			t.Errorf("luaReserved(%q) = false", w)
		}
	}
	for _, w := range []string{"M", "self", "ends", "functions", "local_"} {
		if luaReserved([]byte(w)) {
			t.Errorf("luaReserved(%q) = true", w)
		}
	}
}

// TestSkeletonPythonImports: Python's skeleton leaves out the imports and
// the other statements that define nothing (not a line with more after a
// ';'), and finds what a full parse finds.
func TestSkeletonPythonImports(t *testing.T) {
	src := []byte(`"""A module."""
from __future__ import annotations
import abc
import collections.abc as cabc
from operator import (attrgetter,  # a comment
                      itemgetter)
import os; SEP = os.sep
try:
    import _fast
except ImportError:
    _fast = None
if True:
    from typing import List

CONSTANT = 1

class Base(abc.ABC):
    import json
    field = 2
    def method(self):
        import re
        return re.compile("x")

def helper(x):
    return x
`)
	l, x, skel := skeletonOf(t, "python", src)
	skeletonCuts(t, skel, []string{"__future__", "import abc", "cabc", "attrgetter", "a comment", "import _fast", "from typing import List", "import json", "import re"}, []string{"import os; SEP", "CONSTANT = 1", "field = 2"})
	full := sameAsFullParse(t, x, l, "a.py", src)
	if len(full) < 5 {
		t.Errorf("%d definitions: %v", len(full), full)
	}
}

// sameAsFullParse checks that the skeleton of src (a file called name, of
// language l, without syntax errors) finds exactly the definitions of a
// full parse, and returns those.
func sameAsFullParse(t *testing.T, x *extractor, l *Language, name string, src []byte) []Symbol {
	t.Helper()
	tree, err := x.parse(context.Background(), l, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	broken := tree.RootNode().HasError()
	full := x.definitions(l, tree, src, name)
	tree.Close()
	if broken {
		t.Fatalf("%s: the sample has syntax errors", name)
	}
	sd, err := x.skeletonDefs(l, src)
	if err != nil {
		t.Fatal(err)
	}
	if got := symbols(sd, name); fmt.Sprint(got) != fmt.Sprint(full) {
		t.Errorf("%s: skeleton\n%v\nfull parse\n%v\nskeleton text:\n%s", name, got, full, x.sk.buf)
	}
	return full
}

// skeletonOf makes the skeleton of src in language lang and returns the
// language, the extractor that made it (closed when the test ends) and
// the skeleton's text.
func skeletonOf(t *testing.T, lang string, src []byte) (*Language, *extractor, string) {
	t.Helper()
	l := LanguageByName(lang)
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	x := newExtractor()
	t.Cleanup(x.Close)
	if !l.skeleton(&x.sk, src) {
		t.Fatal("no skeleton")
	}
	return l, x, string(x.sk.buf)
}

// skeletonCuts fails t when skel keeps one of gone or lost one of keep.
func skeletonCuts(t *testing.T, skel string, gone, keep []string) {
	t.Helper()
	for _, g := range gone {
		if strings.Contains(skel, g) {
			t.Errorf("the skeleton keeps %q:\n%s", g, skel)
		}
	}
	for _, k := range keep {
		if !strings.Contains(skel, k) {
			t.Errorf("the skeleton lost %q:\n%s", k, skel)
		}
	}
}

// skeletonFinds fails t when the skeleton x holds (of src, in l) parses
// with a syntax error or its definitions (path's) lack one of want.
func skeletonFinds(t *testing.T, l *Language, x *extractor, src []byte, path string, want []string) {
	t.Helper()
	tree, err := x.parse(context.Background(), l, x.sk.buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tree.RootNode().HasError() {
		t.Errorf("the skeleton has a syntax error:\n%s", x.sk.buf)
	}
	tree.Close()
	sd, err := x.skeletonDefs(l, src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range symbols(sd, path) {
		got = append(got, s.Name)
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("skeleton definitions %q lack %q", got, w)
		}
	}
}

// TestSkeletonPythonStatements: of the statements that define nothing,
// Python's skeleton keeps at most one token (a block's last, when the
// block ends a definition or would be empty), in module, class and
// function bodies and in the blocks of if, try…, and the ranges stay
// those of a full parse, trailing comments included.
func TestSkeletonPythonStatements(t *testing.T) {
	src := []byte(`"""Module docstring."""
import os
if os.name == "nt":
    SEP = "\\"
    helper_value = compute(1, 2, 3)
else:
    SEP = "/"
print("loaded module with a long argument list")

def outer(a, b):
    prepared = prepare(a)
    for item in prepared:
        consume(item)
    @decorate(with_args=True)
    def inner(x):
        return x + a
    result = [inner(v) for v in b]
    # a comment inside
    return result

def short_body(self, data):
    #pairs = (len(data) > 0 and isinstance(data, list))
        return self.represent_sequence('tag', data)
    #value = []
    #return value

class Thing(Base):
    """Class docstring."""
    registry.add("thing")
    field = 1
    if CONDITION:
        other = 2
    def method(self):
        try:
            go()
        except ValueError:
            pass
        # trailing comment of the method
    # a comment of the class
    count = len(registry)
    log("class body ends with a call")
        # deeper comment after it

try:
    from _speedups import fast
except ImportError:
    def fast(x):
        value = x * 2
        return value

match command:
    case "go":
        def go_handler():
            pass
    case _:
        pass

with context() as ctx:
    ctx.run()
`)
	l, x, skel := skeletonOf(t, "python", src)
	skeletonCuts(t, skel, []string{"Module docstring", "helper_value", "print", "prepared", "consume", "result = [", "Class docstring", "registry.add", "other = 2", "ctx.run", "import fast", "value = x"}, []string{"def inner", "field = 1", "count = len", "def fast", "def go_handler"})
	full := sameAsFullParse(t, x, l, "a.py", src)
	if len(full) < 9 {
		t.Errorf("%d definitions: %v", len(full), full)
	}
}

// TestSkeletonRubyStatements: Ruby's skeleton leaves out the statements
// that define nothing (calls of a class's body, requires, blocks with no
// def in them) and the text of large literals, keeps of a constant's
// assignment the value's first operand, keeps what may define (an interpolation's heredoc, a block with
// a def), reads `x.\n  for(y)` as a call, `alias / +` as names and a
// def's parameters past a line that ends with a comma, and finds what a
// full parse finds.
func TestSkeletonRubyStatements(t *testing.T) {
	src := []byte(`# frozen_string_literal: true
require_relative "lockfile_parser"
autoload :OpenSSL, "openssl"

module Outer
  HAVE_SSL = defined? OpenSSL::SSL # :nodoc:
  VERSION = "1.2.3".freeze
  TABLE = {
    a: 1,
    b: 2,
  }.freeze
  NAMES = %w[alpha beta gamma].map(&:to_sym)
    .freeze
  long_local = "a" \
    "b"
  MESSAGE = "a message long enough to leave out, more than sixty-four bytes of it"
  PATTERN = %r{a pattern with flags after it, more than sixty-four bytes of it}i

  class Thing < Base
    include Comparable
    attr_accessor :name, :size
    desc "install [OPTIONS]", "Installs the gems", :hide => true
    method_option "retry", :type => :numeric,
                  :banner => "NUM"
    long_desc <<-D
      Long text #{interpolated} here.
    D
    def install
      run
    end
    alias / +
    included do
      helper_call(1, 2)
    end
    configure do
      def configured; end
    end
    items.each do |item|
      process item
    end
    code = "#{<<-"begin;"}\n#{<<-"end;"}"
      begin;
        def hidden; end
      end;
    def specs(list)
      Handler = list.
        for(1, 2).
        first
      list.
        for(3).
        none? { |x| x }
      Handler
    end
    value = compute if ready?
    def regular container, context, # :nodoc:
                name, comment
      superclass = '::Object'
    end
    def last; end
  end
end
`)
	l, x, skel := skeletonOf(t, "ruby", src)
	skeletonCuts(t, skel, []string{"lockfile_parser", "autoload", "include Comparable", "attr_accessor", "Installs the gems", "NUM", "Long text", "helper_call", "process item", ".freeze", "long_local", "compute", "long enough", "with flags"}, []string{"HAVE_SSL = defined? OpenSSL", "VERSION = \"1.2.3\"\n", "TABLE = {", "NAMES = %w[", "def configured", "def hidden", "Handler = list", "MESSAGE = \"\"", "PATTERN = %r{}"})
	full := sameAsFullParse(t, x, l, "a.rb", src)
	if len(full) < 12 {
		t.Errorf("%d definitions: %v", len(full), full)
	}
}
