package codeindex

import "testing"

// TestSkeletonPHPBodies: phpBody passes over bodies that define nothing
// (strings, heredocs and comments with braces in them, X::class,
// closures) and leaves to the token reader those that do (a named
// function, an anonymous class's methods): the skeleton finds the full
// parse's definitions either way.
func TestSkeletonPHPBodies(t *testing.T) {
	src := []byte(`<?php
namespace N;

class A
{
    public function plain($x)
    {
        $s = "a { b"; $t = 'c } d'; // e { f
        $h = <<<EOT
        g { h
        EOT;
        $c = B::class;
        $f = function ($y) use ($x) { return [$x, $y]; };
        $g = fn($z) => $z + 1;
        return $o->function() + $s;
    }

    public function nested()
    {
        if (true) {
            function inner() {}
        }
        return new class {
            public function anon() {}
        };
    }
}
`)
	l, x, skel := skeletonOf(t, "php", src)
	skeletonCuts(t, skel, []string{"a { b", "g { h", "B::class", "use ($x)"}, []string{"function inner()", "function anon()"})
	syms := sameAsFullParse(t, x, l, "a.php", src)
	if len(syms) < 6 {
		t.Errorf("definitions %v", syms)
	}
}
