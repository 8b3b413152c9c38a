package codeindex

import (
	"context"
	"strings"
	"testing"
)

// TestRubyLongHeredocWord: texts whose heredoc words are 256 characters
// or more (a quote typed after << and not closed yet) abort the process
// in tree-sitter-ruby's scanner unless rubySafe takes them out; every
// parse path gets through them, and a text with ordinary heredocs goes
// to the parser as it is.
func TestRubyLongHeredocWord(t *testing.T) {
	w := strings.Repeat("a", 300)
	texts := []string{
		"def f\n  x = <<'" + w + "'\n  y\n" + w + "\nend\n",
		"def f\n  x = <<" + w + "\n  y\n" + w + "\nend\n",
		"class A\n  def f\n    g(<<'x, y)\n" + strings.Repeat("    h(1, 2, 3)\n", 30) +
			"    z = 'done'\n    case v\n    when 1\n      begin\n      end\n    end\n  end\nend\n",
	}
	l := LanguageByName("ruby")
	if err := l.load(); err != nil {
		t.Fatal(err)
	}
	x := newExtractor()
	defer x.Close()
	ix := emptyIndex(t)
	for i, text := range texts {
		src := []byte(text)
		if _, changed := rubySafe(l, src); !changed {
			t.Errorf("text %d: rubySafe left it as it is", i)
		}
		tree, err := x.parseTree(l, src, ctree{})
		if err != nil {
			t.Fatal(err)
		}
		tree.close()
		if _, err := x.parseDefs(l, src); err != nil {
			t.Fatal(err)
		}
		st, err := x.parse(context.Background(), l, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		// A buffer: typed into, then the quote closed.
		name := "t.rb"
		if err := ix.UpdateBuffer(name, 1, "class A\n  def f\n    g(1)\n  end\nend\n"); err != nil {
			t.Fatal(err)
		}
		if err := ix.UpdateBuffer(name, 2, text); err != nil {
			t.Fatal(err)
		}
		if err := ix.UpdateBuffer(name, 3, text+"# done\n"); err != nil {
			t.Fatal(err)
		}
		ix.CloseBuffer(name)
	}
	for _, ok := range []string{"x = <<~EOS\n  a\nEOS\n", "x = <<-'EOS'\n  a\n  EOS\n", "a << b << c\n", "x = 1 << 2\n"} {
		if _, changed := rubySafe(l, []byte(ok)); changed {
			t.Errorf("rubySafe changed %q", ok)
		}
	}
}
