package codeindex

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// bigTable returns a C++ file whose function holds an array initializer
// of n lines (Boost's srs/projections/epsg.hpp), split at line at: the
// text before and after it.
func bigTable(n, at int) (head, tail string) {
	var b strings.Builder
	b.WriteString("namespace geo {\ninline int find(int code)\n{\n    using namespace srs;\n    static const element arr[] = {\n")
	for i := range n {
		if i == at {
			head = b.String()
			b.Reset()
		}
		fmt.Fprintf(&b, "        {%d, parameters<>(proj_longlat)(ellps_intl)(towgs84, towgs<>(-106,-%d,165,0,0,0,0))(no_defs)}, /* %d */\n", 4000+i, i%300, i)
	}
	b.WriteString("    };\n    return arr[code].code;\n}\nstruct after { int a; };\n}\n")
	return head, b.String()
}

// TestBodyFastBig: typing inside a body larger than maxFastBody (a
// generated table) defers the parse, reading only around the edit; an
// edit that adds a definition (a struct, a typedef, `using namespace`
// made an alias), a bracket or a #define, or that closes a comment it did
// not open, does not; the definitions are those of a fresh
// parse.
func TestBodyFastBig(t *testing.T) {
	head, tail := bigTable(1150, 560)
	if len(head)+len(tail) < maxFastBody+1024 { // the body alone must be larger
		t.Fatalf("the table is %d bytes, too small", len(head)+len(tail))
	}
	last := strings.Index(tail, "    };\n    return")
	checkFastSteps(t, "epsg.hpp", []fastStep{
		{head + tail, false},
		{head + "        // edit 1\n" + tail, true},
		{head + "        // edit 12\n" + tail, true},
		{head + "        // edit 12\n        {1, f(x)},\n" + tail, true},
		{head + "        // edit 12\n        {1, f(x)}, {2, g(y)}\n" + tail, true},
		{head + "        // edit 12\n" + tail[:last] + "        {9, h(z)},\n" + tail[last:], true},
		{head + "        // edit 12\n        {1, f(x)}, struct s {}\n" + tail, false},
		{head + tail, false},
		// (not on the line of the last edit, which took the slow path:
		// the next is taken to do the same)
		{head + tail[:last] + "        {9, h(z)},\n" + tail[last:], true},
		{head + "        {1, f(x)}}, {\n" + tail, false},
		{head + tail, false},
		{head + "#define X 1\n" + tail, false},
		{head + tail, false},
		{head + "        {1, f(x)}, */\n" + tail, false},
		{head + tail, false},
		{head + "    };\n    typedef int T;\n    static const int b[] = {\n" + tail, false},
		{head + tail, false},
		{strings.Replace(head, "using namespace srs;", "using srs = geo;", 1) + tail, false},
	})
	ix := emptyIndex(t)
	x := newExtractor()
	defer x.Close()
	edits := 40
	if testing.Short() {
		edits = 8
	}
	taken, refused := checkBodyFast(t, ix, x, "table.hpp", head+tail, rand.New(rand.NewPCG(19, 7)), edits)
	t.Logf("fast path: %d taken, %d refused", taken, refused)
	if taken == 0 || refused == 0 {
		t.Errorf("fast path taken %d times, refused %d times: both must happen", taken, refused)
	}
}
