package codeindex

import (
	"fmt"
	"testing"
)

// TestCSharpDefsCorpus checks that csDefs finds exactly the definitions
// of the skeleton's parse (which TestSkeletonCorpora checks against the
// full parse) in every file of the C# corpus it reads; the files it
// leaves to the parse are counted, with the tokens it stopped at.
func TestCSharpDefsCorpus(t *testing.T) {
	checkBuildPassCorpus(t, "csharp", csDefs, func(x *extractor) []byte {
		if r := &x.cs; r.fail {
			return r.src[r.failAt:min(r.failAt+12, len(r.src))]
		}
		return nil
	})
}

// TestCSharpDefsSnippets checks csDefs against a full parse on the
// corners of what it reads (see csDefs): nested types, generic types and
// methods with constraints, constructors, explicit implementations,
// operators, indexers, events and destructors (no pattern), fields of
// several names, enums, delegates, attributes (the starts) and values (the
// ends); and that it leaves to the parse what it does not read.
func TestCSharpDefsSnippets(t *testing.T) {
	l := LanguageByName("csharp")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	x := newExtractor()
	defer x.Close()
	for i, src := range []string{
		"\xef\xbb\xbf#region License\n#endregion\nusing System;\n[assembly: CLSCompliant(true)]\n" + `namespace A.B
{
    [Serializable]
    public sealed partial class C<T, U> : Base<T>, IEquatable<C<T, U>> where T : class, new() where U : struct
    {
        private static readonly Dictionary<string, List<int>> s_map = new Dictionary<string, List<int>>();
        int a = 1, b, c = 3;
        public System.Windows.Forms.Button Btn;
        public int Count { get; private set; } = 4;
        public T this[int i] { get { return default(T); } }
        public event EventHandler Changed, Closed;
        public event EventHandler Removed { add { } remove { } }
        public C() : base(value, 2) { }
        static C() { }
        ~C() { }
        public static bool operator ==(C<T, U> x, C<T, U> y) { return true; }
        public static implicit operator string(C<T, U> c) { return ""; }
        IEnumerator IEnumerable.GetEnumerator() { return null; }
        public abstract V Get<V>(T key) where V : T;
        protected internal virtual int?[] Values() { return null; }
        private delegate void Handler(object sender, EventArgs e);
        internal struct S { public int X; }
        interface I { void M(); int P { get; } }
    }

    [Flags]
    public enum E : byte { [Description("none")] None = 0, One = 1 << 0, Two, }
    public delegate TResult Func<in T, out TResult>(T arg);
}
`,
		`namespace N { namespace M { class K { } } } // two
namespace O.P { }`,
		`class K : IList<int> // kept by the skeleton: short parameters and arguments, qualifiers that start a member
{
    public K(T o) : base(f) { }
    K() : this(2, x) { }
    public void Add(ref T o, params U[] a) { }
    int IList<int>.IndexOf(int x) { return 0; }
    IEnumerator IEnumerable.GetEnumerator() { return null; }
    object IList.this[int index] { get { return null; } }
    public static explicit operator bool?(K value) { return null; }
    public delegate void D<T>(T a);
    enum E { A = 1,
#pragma warning disable 1
        B = 2
#pragma warning restore 1
    }
}`,
	} {
		src := []byte(src)
		if !csDefs(x, l, src) {
			t.Errorf("snippet %d: csDefs does not read it (at %q)", i, x.cs.src[x.cs.failAt:min(len(x.cs.src), x.cs.failAt+30)])
			continue
		}
		sameAsFullParse(t, x, l, fmt.Sprintf("s%d.cs", i), src)
	}
	for i, src := range []string{
		`namespace N; class C { }`,     // file-scoped
		`record R(int X);`,             // a record
		`class C { int P => 1; }`,      // an expression body
		`class C { unsafe int* p; }`,   // a pointer
		`class C { (int, string) t; }`, // a tuple
		`class C { int value; }`,       // a contextual keyword for a name
		`class C { } ;`,                // a ';' after a type
		`class C { bool x = a<b, y; }`, // a value the skeleton keeps
	} {
		if csDefs(x, l, []byte(src)) {
			t.Errorf("refused snippet %d: csDefs reads it: %s", i, x.sk.buf)
		}
	}
}
