package codeindex

import (
	"context"
	"strings"
	"testing"
)

// TestSkeletonCSharpAccessors: the braces after a property's or an
// event's name hold accessors, which define nothing: C#'s skeleton leaves
// them out with their bodies (`int X {}` is a property still); an
// anonymous method (`delegate (...) { ... }`) or a `class` constraint
// (`where T : class {`) does not make the body around it one that holds a
// definition; a delegate declared in a body of definitions stays.
func TestSkeletonCSharpAccessors(t *testing.T) {
	src := []byte(`using System;

namespace N
{
    public delegate void Handler(object sender);

    public class Box<T> where T : class
    {
        private T _value;
        public event Handler Changed
        {
            add { _changed += value; }
            remove { _changed -= value; }
        }
        public T Value
        {
            get { return _value; }
            set
            {
                if (value == null)
                    throw new ArgumentNullException();
                _value = value;
            }
        }
        public int Count { get; private set; } = 3;
        public static U Make<U>() where U : class, new()
        {
            return new U();
        }
        public void Hook()
        {
            Changed += delegate(object sender) { Console.WriteLine(sender); };
        }
        private delegate int Counter(int n);
        class Inner { int Depth { get { return 1; } } }
    }
}
`)
	l, x, skel := skeletonOf(t, "csharp", src)
	skeletonCuts(t, skel, []string{"_changed +=", "return _value", "= 3", "ArgumentNullException", "get;", "new U()", "Console.WriteLine", "return 1"},
		[]string{"public delegate void Handler(", "private delegate int Counter(", "class Inner", "int Depth", "public int Count {}\n"})
	skeletonFinds(t, l, x, src, "a.cs", []string{"Handler", "Box", "_value", "Value", "Count", "Make", "Hook", "Counter", "Inner", "Depth"})
	sameAsFullParse(t, x, l, "a.cs", src)
}

// TestSkeletonCSharpUsings: C#'s skeleton leaves out using directives
// whole (plain names, aliases, `using static`, with comments), at a file's
// top and in a namespace; `global using` and anything not a plain name
// stay.
func TestSkeletonCSharpUsings(t *testing.T) {
	src := []byte(`using System;
using System.Collections.Generic; // lists
#if NET20
using Newtonsoft.Json.Utilities.LinqBridge;
#else
using System.Linq;
#endif
using static System.Math;
using Map = System.Collections.Generic.Dictionary<string, int?>;
global using Kept.Name;

namespace N
{
    using Inner.Space;
    using Alias = global::Other.Type;

    public class C
    {
        public void Use()
        {
            using (var f = Open())
            {
                f.Close();
            }
        }
    }
}
`)
	l, x, skel := skeletonOf(t, "csharp", src)
	skeletonCuts(t, skel, []string{"using System", "Generic", "lists", "LinqBridge", "Linq;", "Math", "Map", "Inner.Space", "Alias", "Open()"},
		[]string{"global using Kept.Name;", "namespace N", "public class C", "void Use()"})
	skeletonFinds(t, l, x, src, "a.cs", []string{"N", "C", "Use"})
	sameAsFullParse(t, x, l, "a.cs", src)
}

// TestSkeletonJavaImports: Java's skeleton leaves out import declarations
// whole (static ones and wildcards too); the package declaration stays.
func TestSkeletonJavaImports(t *testing.T) {
	src := []byte(`package org.example.util;

import java.util.List;
import java.util.*; // all of it
import static java.lang.Math.max;
import static org.junit.Assert.*;

public class Lists {
    private static final int LIMIT = 10;
    public static <T> List<T> first(List<T> xs) {
        return xs.subList(0, max(0, LIMIT));
    }
}
`)
	l, x, skel := skeletonOf(t, "java", src)
	skeletonCuts(t, skel, []string{"import", "java.util", "all of it", "Math", "Assert", "subList"},
		[]string{"package org.example.util;", "public class Lists", "LIMIT", "first("})
	skeletonFinds(t, l, x, src, "Lists.java", []string{"Lists", "LIMIT", "first"})
	sameAsFullParse(t, x, l, "Lists.java", src)
}

// TestSkeletonModifiers: C#'s and Java's skeletons leave out a modifier
// that follows another (the first stays: the definition starts there).
func TestSkeletonModifiers(t *testing.T) {
	cs := []byte(`namespace N
{
    public static partial class C
    {
        private static readonly int x = 1;
        protected internal virtual async Task Run() { await Go(); }
        public abstract override string Name { get; }
        static C() { }
        public readonly struct S { }
    }
}
`)
	l, x, skel := skeletonOf(t, "csharp", cs)
	skeletonCuts(t, skel, []string{"static partial", "static readonly", "internal", "virtual", "async", "abstract", "override", "public readonly"},
		[]string{"public partial class C", "private int x", "protected Task Run()", "public string Name", "static C()", "public struct S"})
	skeletonFinds(t, l, x, cs, "a.cs", []string{"C", "x", "Run", "Name", "S"})
	sameAsFullParse(t, x, l, "a.cs", cs)
	java := []byte(`public abstract class A {
    private static final long serialVersionUID = 1L;
    protected static synchronized native void poke();
    public final transient int[] cache = null;
    @Override public final String toString() { return "A"; }
    static { init(); }
}
`)
	l, x, skel = skeletonOf(t, "java", java)
	skeletonCuts(t, skel, []string{"static final", "synchronized", "native", "final transient", "public final String", "abstract"},
		[]string{"public class A", "private long serialVersionUID", "protected void poke()", "public int[] cache", "public String toString()", "static {"})
	skeletonFinds(t, l, x, java, "A.java", []string{"A", "serialVersionUID", "poke", "cache", "toString"})
	sameAsFullParse(t, x, l, "A.java", java)
}

// TestSkeletonCSharpPlainBodies: plainBody finds the '}' that block
// finds for a body without definitions, past braces in strings, verbatim
// and raw strings, characters, comments and directives, and hands the
// body back to block (0) where a word may define something in it or its
// brackets do not close as block would have them close.
func TestSkeletonCSharpPlainBodies(t *testing.T) {
	l := LanguageByName("csharp")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	plain := []string{
		`{ return x; }`,
		`{ var s = "}"; var c = '{'; var v = @"a""}"; var i = $"{a} }}"; }`,
		"{ var r = \"\"\"\n } \"\"\"; f(/* } */ x); // }\n }",
		"{\n#if DEBUG\n    Log(\"{\");\n#endif\n    if (a) { b[i] = (c); } else { d(); }\n}",
		`{ h += delegate(object s) { Go(s); }; var t = typeof(Enum); }`,
		`{ var o = new { A = 1, B = new[] { 2, 3 } }; }`,
	}
	back := []string{
		`{ class C { } }`,
		`{ delegate void D(); }`,
		"{\n#define X\n}",
		`{ f(); ) }`,
		`{ f(} }`,
		`{ var s = "never closed`,
	}
	read := func(body string) (plain, block int, fail bool) {
		src := []byte("void F() " + body)
		open := len("void F() ")
		var out skelOut
		b := bskel{skeleton: skeleton{src: src, out: &out}, lx: lexer{sx: l.syn, src: src}, sx: l.syn}
		plain = b.plainBody(open + 1)
		b = bskel{skeleton: skeleton{src: src, out: &out}, lx: lexer{sx: l.syn, src: src}, sx: l.syn}
		block, defs := b.block(open+1, '}', false)
		return plain, block, b.fail || defs
	}
	for _, body := range plain {
		p, bl, fail := read(body)
		if fail || p != bl || p < 0 {
			t.Errorf("%q: plainBody %d, block %d (failed or found a definition: %v)", body, p, bl, fail)
		}
	}
	for _, body := range back {
		if p, _, _ := read(body); p >= 0 {
			t.Errorf("%q: plainBody took it (%d)", body, p)
		}
	}
	// The branches of an #if close what was opened before it: plainBody
	// counts the first's brackets (block, all of them, fails).
	branches := []string{
		"{\n f(a,\n#if X\n b);\n#elif Y\n c);\n#else\n#if Z\n d(\n#endif\n e);\n#endif\n}",
		"{\n if (a) {\n#if X\n }\n#else\n }\n#endif\n}",
	}
	for _, body := range branches {
		if p, _, _ := read(body); p != len("void F() ")+len(body)-1 {
			t.Errorf("%q: plainBody %d, want the last '}'", body, p)
		}
	}
	// An #if still open where the body ends, or whose #else or #endif
	// stands in the body and its #if before it: block reads the body.
	for _, body := range []string{"{\n#if X\n }\n#else\n", "{\n#else\n}", "{\n#endif\n}"} {
		if p, _, _ := read(body + "\n}\n#endif\n"); p >= 0 {
			t.Errorf("%q: plainBody took it (%d)", body, p)
		}
	}
}

// TestSkeletonCSharpDirectives: C#'s skeleton leaves out preprocessor
// lines whole (#if and its branches' ends, #region, #pragma), so that the
// parser sees every branch; an #if around an attribute or a base type, a
// syntax error to the grammar, no longer hides the class.
func TestSkeletonCSharpDirectives(t *testing.T) {
	src := []byte(`#define TRACE
using System;

namespace N
{
    #region Types
#pragma warning disable 1591
    public class A
    {
#if DEBUG
        public int Debug;
#elif TRACE
        public int Trace;
#else
        public int None;
#endif
        public void Run()
        {
#if DEBUG
            Console.WriteLine("{");
#endif
        }
    }
    #endregion
}
`)
	l, x, skel := skeletonOf(t, "csharp", src)
	skeletonCuts(t, skel, []string{"#", "define", "region", "pragma", "DEBUG", "elif", "endif"},
		[]string{"public class A", "public int Debug;", "public int Trace;", "public int None;", "public void Run()"})
	skeletonFinds(t, l, x, src, "a.cs", []string{"N", "A", "Debug", "Trace", "None", "Run"})
	sameAsFullParse(t, x, l, "a.cs", src)

	broken := []byte(`namespace N
{
#if !NET20
    [Serializable]
#endif
    public class B : Base
#if !PORTABLE
        , ICloneable
#endif
    {
        public int X;
    }
}
`)
	l, x, skel = skeletonOf(t, "csharp", broken)
	skeletonCuts(t, skel, []string{"#", "NET20", "PORTABLE", "Serializable"}, []string{"public class B : Base", ", ICloneable"})
	skeletonFinds(t, l, x, broken, "b.cs", []string{"N", "B", "X"})
}

// TestCSharpFieldValueNames: a field's value that is a bare name
// (`int x = y;`) is no definition; the query took it for a second
// declarator's name.
func TestCSharpFieldValueNames(t *testing.T) {
	src := []byte(`class C
{
    private uint m_uMax = DefaultMax;
    int a = b, c;
    E e = E.A;
}
`)
	l := LanguageByName("csharp")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	x := newExtractor()
	defer x.Close()
	tree, err := x.parse(context.Background(), l, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	var names []string
	for _, s := range x.definitions(l, tree, src, "a.cs") {
		names = append(names, s.Name)
	}
	if got, want := strings.Join(names, " "), "C m_uMax a c e"; got != want {
		t.Errorf("definitions %q, want %q", got, want)
	}
}

// TestSkeletonCSharpValues: C#'s skeleton leaves out the values of
// fields, properties and enum members, and the definitions that ended
// with them still end there; a ',' of type arguments does not end a
// value, one of two declarators does.
func TestSkeletonCSharpValues(t *testing.T) {
	src := []byte(`namespace N
{
    public class C
    {
        private const string Name = "a {b} " + Other;
        private static readonly Dictionary<string, List<int>> Map =
            new Dictionary<string, List<int>>();
        int first = 1, second = Compute(2, 3);
        bool less = a < b, more;
        bool tight = a<b, rest;
        public int Count { get; set; } = 42;
        public Func<int, int> Twice = x => { return x * 2; };
        public int[] Table = { 1, 2, 3 };
    }

    [Flags]
    public enum E
    {
        None = 0,
        One = 1 << 0,
        Two = 1 << 1 /* two */,
        Both = One | Two
    }
}
`)
	l, x, skel := skeletonOf(t, "csharp", src)
	skeletonCuts(t, skel, []string{"\"a {b}", "Other", "new Dictionary", "= 1", "Compute", "42", "x * 2", "{ 1, 2, 3 }", "<< 0", "One | Two"},
		[]string{"string Name;", "Dictionary<string, List<int>> Map;", "int first, second;", "bool less, more;", "bool tight = a<b, rest;", "public int Count {}\n",
			"Func<int, int> Twice;", "int[] Table;", "None,", "One,", "Two ,", "Both\n"})
	skeletonFinds(t, l, x, src, "a.cs", []string{"N", "C", "Name", "Map", "first", "second", "less", "more", "tight", "rest", "Count", "Twice", "Table", "E", "None", "One", "Two", "Both"})
	sameAsFullParse(t, x, l, "a.cs", src)
}

// TestSkeletonCSharpAttributes: C#'s skeleton leaves out the attribute
// sections before a declaration or an enum member, and the definition
// still starts at the first '['; global attributes go too.
func TestSkeletonCSharpAttributes(t *testing.T) {
	src := []byte(`[assembly: AssemblyTitle("t")]
[module: CLSCompliant(true)]

namespace N
{
    [Serializable]
    [JsonObject(MemberSerialization.OptIn)] // opt in
    public class C
    {
        [Test, Category("x")]
        [InlineData(new[] { 1, 2 })]
        public void Run() { }

        [return: MarshalAs(UnmanagedType.Bool)]
        [DllImport("user32.dll")] private static extern bool Beep(uint f);

        [JsonProperty] public string Name { get; set; }
        [NonSerialized] private int _x;
    }

    [Flags] enum E { [EnumMember(Value = "a")] A = 1, [Obsolete] B }
}
`)
	l, x, skel := skeletonOf(t, "csharp", src)
	skeletonCuts(t, skel, []string{"assembly", "module", "Serializable", "JsonObject", "opt in", "Test", "InlineData", "return:", "DllImport",
		"JsonProperty", "NonSerialized", "Flags", "EnumMember", "Obsolete"},
		[]string{"public class C", "public void Run()", "private bool Beep(", "public string Name", "private int _x;", "enum E {", "A,", "B }"})
	skeletonFinds(t, l, x, src, "a.cs", []string{"N", "C", "Run", "Beep", "Name", "_x", "E", "A", "B"})
	sameAsFullParse(t, x, l, "a.cs", src)
}

// TestSkeletonCSharpQualifiers: C#'s skeleton leaves out the qualifiers
// of a type's dotted name after a word, not those of a namespace's name,
// a base type, or a type that starts a declaration; a byte order mark is
// no word before the first using directive.
func TestSkeletonCSharpQualifiers(t *testing.T) {
	src := []byte("\xef\xbb\xbfusing System;\n" + `
namespace Shop.Inventory.Forms
{
    partial class Dlg : System.Windows.Forms.Form
    {
        private System.Windows.Forms.Button m_btnOK;
        public static global::System.Guid Id;
        System.Drawing.Color m_clr;
        public event System.EventHandler Done;
        void System.IDisposable.Dispose() { }
        public System.Collections.Generic.List<System.String> Names() { }
    }
}
`)
	l, x, skel := skeletonOf(t, "csharp", src)
	skeletonCuts(t, skel, []string{"using System;", "System.Windows.Forms.Button", "System.EventHandler", "IDisposable", "Generic.List"},
		[]string{"namespace Shop.Inventory.Forms", ": System.Windows.Forms.Form", "private Button m_btnOK;", "public global::System.Guid Id;",
			"System.Drawing.Color m_clr;", "public event EventHandler Done;", "void Dispose()", "public List<System.String> Names()"})
	skeletonFinds(t, l, x, src, "a.cs", []string{"Shop.Inventory.Forms", "Dlg", "m_btnOK", "Id", "m_clr", "Dispose", "Names"})
	sameAsFullParse(t, x, l, "a.cs", src)
}
