// Package shell runs the commands of the bash tool: it parses a command
// line before anything runs (mvdan.cc/sh/v3), classifies it as read-only or
// not, applies the approval policy, and executes it in its own process group
// with a timeout, capped output and an optional bubblewrap sandbox. It also
// keeps the background jobs of a session.
//
// shell knows nothing about the registry or the workspace session; the bash
// tools in builtin/ wire it to them.
package shell

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxNestedDepth bounds how deep literal `bash -c '…'` and `eval '…'`
// strings are parsed again, so that a hostile input cannot recurse forever.
const maxNestedDepth = 4

// Word is one shell word after quote removal.
type Word struct {
	// Text is the word's value when it is static; when it is dynamic, Text
	// is its source text (for example `$HOME/x`).
	Text string
	// Dynamic is set when the value is known only at run time: parameter,
	// command, arithmetic or process substitution, or $'…' quoting.
	Dynamic bool
	// Glob is set when the word has an unquoted *, ? or [: bash may
	// replace it with file names, which may look like options.
	Glob bool
}

// Redirect is one redirection, wherever it appears.
type Redirect struct {
	Op     string // ">", ">>", "<", "<<", "2>&1"'s ">&", …
	Fd     string // the explicit file descriptor before the operator, if any
	Target Word   // the file or descriptor; empty for here-documents
	Line   uint
	Col    uint
}

// Command is one simple command found anywhere in a script: in lists,
// pipelines, subshells, blocks, loops, function bodies, command and process
// substitutions, and literal `bash -c` / `eval` strings.
type Command struct {
	Args    []Word   // the command name and its arguments; empty for assignment-only commands
	Assigns []string // variables assigned by the command or for it (FOO=1 cmd)
	// Redirects are the redirections of the statement the command is.
	Redirects []Redirect
	// Nested holds the indices in Analysis.Commands of the commands that
	// run in the substitutions of this command's words and redirections,
	// and of a literal `bash -c`/`eval` string it runs.
	Nested []int
	// Background is set when the command's statement runs with `&` or as a
	// coprocess.
	Background bool
	// Piped is set when the command is a stage of a pipeline.
	Piped bool
	// Func is the name of the function whose body holds the command.
	Func string
	// Decl is set for declarations (export, local, declare, readonly, let).
	Decl      bool
	Line, Col uint
	Text      string // the command as written
}

// Name returns the command name, or "" for assignment-only commands and
// dynamic names.
func (c *Command) Name() string {
	if len(c.Args) == 0 || c.Args[0].Dynamic {
		return ""
	}
	return c.Args[0].Text
}

// Pipeline is one pipeline `a | b | c`: each stage is the half-open range of
// indices in Analysis.Commands of the commands it runs.
type Pipeline struct {
	Stages [][2]int
}

// Analysis is what a script does, as far as can be known before it runs.
type Analysis struct {
	Script    string
	Commands  []Command  // every simple command, in source order
	Redirects []Redirect // every redirection
	Pipelines []Pipeline
	// Background lists the positions ("line:col") of statements that run in
	// the background (`&`, coproc).
	Background []string
	// Funcs lists the functions the script defines.
	Funcs []string
	// loose are the redirections of compound commands ({ …; } > f), which
	// belong to no one simple command.
	loose []Redirect
	// Evaluates lists constructs that evaluate text as code beyond what
	// the command words show: arithmetic ((( )), $(( )), [[ -eq ]],
	// ${x:off}) whose operands name variables, which bash evaluates again as
	// expressions, so that a value like a[$(cmd)] runs cmd.
	Evaluates []string
}

// ParseError is a syntax error in a command: nothing ran.
type ParseError struct {
	Line, Col uint
	Msg       string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("cannot parse the command: %s; nothing ran", e.Msg)
	}
	return fmt.Sprintf("cannot parse the command: line %d, column %d: %s; nothing ran", e.Line, e.Col, e.Msg)
}

// Analyze parses script as bash and extracts every simple command and
// redirection in it. A syntax error is a *ParseError.
func Analyze(script string) (*Analysis, error) {
	f, err := parse(script)
	if err != nil {
		return nil, err
	}
	a := &Analysis{Script: script}
	w := walker{a: a, src: script}
	w.evaluations(f)
	for _, st := range f.Stmts {
		w.stmt(st, "")
	}
	return a, nil
}

// evaluations records the arithmetic and tests of n that evaluate
// variables as expressions (see Analysis.Evaluates).
func (w *walker) evaluations(n syntax.Node) {
	note := func(n syntax.Node, what string) {
		w.a.Evaluates = append(w.a.Evaluates, fmt.Sprintf("%s at %s", what, n.Pos()))
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.ArithmCmd:
			if namesVariable(x.X) {
				note(x, "(( )) evaluates variables")
			}
		case *syntax.ArithmExp:
			if namesVariable(x.X) {
				note(x, "$(( )) evaluates variables")
			}
		case *syntax.ParamExp:
			if x.Slice != nil && (namesVariable(x.Slice.Offset) || namesVariable(x.Slice.Length)) {
				note(x, "${x:offset} evaluates variables")
			}
			if x.Index != nil && namesVariable(x.Index) {
				note(x, "an array index evaluates variables")
			}
		case *syntax.CStyleLoop:
			note(x, "for (( )) evaluates arithmetic")
		case *syntax.TestClause:
			syntax.Walk(x.X, func(t syntax.Node) bool {
				switch y := t.(type) {
				case *syntax.BinaryTest:
					switch y.Op {
					case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
						note(x, "[[ "+y.Op.String()+" ]] evaluates its operands")
					}
				case *syntax.UnaryTest:
					if y.Op == syntax.TsVarSet || y.Op == syntax.TsRefVar {
						note(x, "[[ "+y.Op.String()+" ]] evaluates an array index")
					}
				}
				return true
			})
		}
		return true
	})
}

// namesVariable reports whether an arithmetic expression refers to
// anything but numbers: a variable, a parameter expansion, a substitution.
func namesVariable(x syntax.ArithmExpr) bool {
	if x == nil {
		return false
	}
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		switch y := n.(type) {
		case *syntax.Word:
			for _, p := range y.Parts {
				lit, ok := p.(*syntax.Lit)
				if !ok || !isArithNumber(lit.Value) {
					found = true
				}
			}
			return false
		case *syntax.ParamExp, *syntax.CmdSubst:
			found = true
			return false
		}
		return !found
	})
	return found
}

// isArithNumber accepts decimal, octal, hex and base#n literals.
func isArithNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] < '0' || s[0] > '9' {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '#' || c == '_' || c == '@') {
			return false
		}
	}
	return true
}

func parse(script string) (*syntax.File, error) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	f, err := p.Parse(strings.NewReader(script), "")
	if err == nil {
		return f, nil
	}
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return nil, &ParseError{Line: pe.Pos.Line(), Col: pe.Pos.Col(), Msg: pe.Text}
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return nil, &ParseError{Line: le.Pos.Line(), Col: le.Pos.Col(), Msg: le.Feature + " is not supported"}
	}
	return nil, &ParseError{Msg: err.Error()}
}

// walker extracts commands from one parsed script. src is the text the
// positions refer to (a nested `bash -c` string has its own).
type walker struct {
	a     *Analysis
	src   string
	depth int
}

func (w *walker) slice(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(w.src) || start > end {
		return ""
	}
	return w.src[start:end]
}

// stmt records one statement: its redirections, its background flag, and
// the commands it runs.
func (w *walker) stmt(st *syntax.Stmt, fn string) {
	if st == nil {
		return
	}
	first := len(w.a.Commands)
	var redirs []Redirect
	var nested []int
	for _, r := range st.Redirs {
		rd := Redirect{Op: r.Op.String(), Line: r.OpPos.Line(), Col: r.OpPos.Col()}
		if r.N != nil {
			rd.Fd = r.N.Value
		}
		if r.Word != nil && r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc {
			rd.Target = w.word(r.Word)
		}
		redirs = append(redirs, rd)
		w.a.Redirects = append(w.a.Redirects, rd)
		// Substitutions in redirection targets and here-document bodies run
		// before the command: extract them.
		nested = append(nested, w.substs(r.Word, fn)...)
		if r.Hdoc != nil {
			nested = append(nested, w.substs(r.Hdoc, fn)...)
		}
	}
	bg := st.Background || st.Coprocess || st.Disown
	if bg {
		w.a.Background = append(w.a.Background, st.Position.String())
	}
	switch st.Cmd.(type) {
	case nil, *syntax.CallExpr, *syntax.DeclClause, *syntax.LetClause:
	default:
		w.a.loose = append(w.a.loose, redirs...)
		// Substitutions in the redirections still run: give them a home.
		if len(nested) > 0 {
			w.a.Commands = append(w.a.Commands, Command{Redirects: redirs, Nested: nested, Func: fn,
				Line: st.Pos().Line(), Col: st.Pos().Col()})
		}
		redirs, nested = nil, nil
	}
	w.command(st.Cmd, fn, redirs, nested)
	if bg {
		for i := first; i < len(w.a.Commands); i++ {
			w.a.Commands[i].Background = true
		}
	}
}

// command records the commands of one command node. redirs and nested
// belong to the statement and go to its simple command, if it is one.
func (w *walker) command(cmd syntax.Command, fn string, redirs []Redirect, nested []int) {
	switch c := cmd.(type) {
	case nil:
		if len(redirs) > 0 { // a bare redirection such as `> file`
			w.a.Commands = append(w.a.Commands, Command{Redirects: redirs, Nested: nested, Func: fn})
		}
	case *syntax.CallExpr:
		w.call(c, fn, redirs, nested)
	case *syntax.DeclClause:
		cm := Command{Args: []Word{{Text: c.Variant.Value}}, Decl: true, Redirects: redirs, Func: fn,
			Line: c.Pos().Line(), Col: c.Pos().Col(), Text: w.slice(c)}
		for _, as := range c.Args {
			if as.Name != nil {
				cm.Assigns = append(cm.Assigns, as.Name.Value)
			} else if as.Value != nil {
				cm.Args = append(cm.Args, w.word(as.Value))
			}
			nested = append(nested, w.substs(as, fn)...)
		}
		cm.Nested = nested
		w.a.Commands = append(w.a.Commands, cm)
	case *syntax.LetClause:
		nested = append(nested, w.substs(c, fn)...)
		w.a.Commands = append(w.a.Commands, Command{Args: []Word{{Text: "let"}}, Decl: true, Redirects: redirs,
			Nested: nested, Func: fn, Line: c.Pos().Line(), Col: c.Pos().Col(), Text: w.slice(c)})
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			w.pipeline(c, fn)
		} else {
			w.stmt(c.X, fn)
			w.stmt(c.Y, fn)
		}
	case *syntax.FuncDecl:
		name := ""
		if c.Name != nil {
			name = c.Name.Value
		}
		w.a.Funcs = append(w.a.Funcs, name)
		w.stmt(c.Body, name)
	case *syntax.CoprocClause:
		w.a.Background = append(w.a.Background, c.Pos().String())
		first := len(w.a.Commands)
		w.stmt(c.Stmt, fn)
		for i := first; i < len(w.a.Commands); i++ {
			w.a.Commands[i].Background = true
		}
	default:
		// Compound commands (if, while, for, case, blocks, subshells, time,
		// [[ ]], (( ))): every statement and substitution inside them.
		w.generic(cmd, fn)
	}
}

// generic walks any node, handing statements and substitutions back to the
// walker, so that no node type can hide a command.
func (w *walker) generic(n syntax.Node, fn string) []int {
	var idx []int
	syntax.Walk(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.Stmt:
			first := len(w.a.Commands)
			w.stmt(x, fn)
			idx = appendRange(idx, first, len(w.a.Commands))
			return false
		case *syntax.CmdSubst:
			first := len(w.a.Commands)
			for _, st := range x.Stmts {
				w.stmt(st, fn)
			}
			idx = appendRange(idx, first, len(w.a.Commands))
			return false
		case *syntax.ProcSubst:
			first := len(w.a.Commands)
			for _, st := range x.Stmts {
				w.stmt(st, fn)
			}
			idx = appendRange(idx, first, len(w.a.Commands))
			return false
		}
		return true
	})
	return idx
}

func appendRange(idx []int, from, to int) []int {
	for i := from; i < to; i++ {
		idx = append(idx, i)
	}
	return idx
}

// substs extracts the commands in the substitutions inside n.
func (w *walker) substs(n syntax.Node, fn string) []int {
	if n == nil {
		return nil
	}
	if wd, ok := n.(*syntax.Word); ok && wd == nil {
		return nil
	}
	return w.generic(n, fn)
}

func (w *walker) pipeline(c *syntax.BinaryCmd, fn string) {
	// Flatten the left-associated chain a | b | c into its stages.
	var stages []*syntax.Stmt
	var flatten func(st *syntax.Stmt)
	flatten = func(st *syntax.Stmt) {
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) &&
			len(st.Redirs) == 0 && !st.Negated && !st.Background {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		stages = append(stages, st)
	}
	flatten(c.X)
	flatten(c.Y)
	var p Pipeline
	for _, st := range stages {
		first := len(w.a.Commands)
		w.stmt(st, fn)
		for i := first; i < len(w.a.Commands); i++ {
			w.a.Commands[i].Piped = true
		}
		p.Stages = append(p.Stages, [2]int{first, len(w.a.Commands)})
	}
	w.a.Pipelines = append(w.a.Pipelines, p)
}

func (w *walker) call(c *syntax.CallExpr, fn string, redirs []Redirect, nested []int) {
	cm := Command{Redirects: redirs, Func: fn, Line: c.Pos().Line(), Col: c.Pos().Col(), Text: w.slice(c)}
	for _, as := range c.Assigns {
		if as.Name != nil {
			cm.Assigns = append(cm.Assigns, as.Name.Value)
		}
		nested = append(nested, w.substs(as, fn)...)
	}
	for _, arg := range c.Args {
		nested = append(nested, w.substs(arg, fn)...)
		cm.Args = append(cm.Args, w.braceWords(arg)...)
	}
	// Reserve the command's slot before a nested script is parsed, so that
	// commands stay in source order.
	w.a.Commands = append(w.a.Commands, cm)
	self := len(w.a.Commands) - 1
	if script, ok := nestedScriptOf(cm.Args); ok && w.depth < maxNestedDepth {
		if f, err := parse(script); err == nil {
			inner := walker{a: w.a, src: script, depth: w.depth + 1}
			inner.evaluations(f)
			first := len(w.a.Commands)
			for _, st := range f.Stmts {
				inner.stmt(st, fn)
			}
			nested = appendRange(nested, first, len(w.a.Commands))
		}
	}
	w.a.Commands[self].Nested = nested
}

// nestedScriptOf finds the literal script a command runs, through wrappers
// (`timeout 5 bash -c '…'`, `xargs sh -c '…'`).
func nestedScriptOf(args []Word) (string, bool) {
	for _, lv := range levels(args) {
		if script, ok := nestedScript(lv); ok {
			return script, true
		}
	}
	return "", false
}

// nestedScript returns the literal script a command runs as shell code:
// `bash -c 'script'`, `sh -c …`, `eval 'a' 'b'`.
func nestedScript(args []Word) (string, bool) {
	if len(args) < 2 || args[0].Dynamic {
		return "", false
	}
	switch args[0].Text {
	case "eval":
		var parts []string
		for _, a := range args[1:] {
			if a.Dynamic {
				return "", false
			}
			parts = append(parts, a.Text)
		}
		return strings.Join(parts, " "), true
	case "bash", "sh", "dash", "zsh", "ksh", "ash":
		// Options come first (clusters, -o/-O NAME, --long); with -c among
		// them, the first operand is the script: bash -o errexit -c 'x',
		// bash -c -- 'x', bash -ec 'x'.
		sawC := false
		for i := 1; i < len(args); i++ {
			a := args[i]
			if a.Dynamic {
				return "", false
			}
			t := a.Text
			switch {
			case t == "--" || t == "-":
				if sawC && i+1 < len(args) && !args[i+1].Dynamic {
					return args[i+1].Text, true
				}
				return "", false
			case t == "-o" || t == "+o" || t == "-O" || t == "+O":
				i++ // the option's name
			case strings.HasPrefix(t, "--"):
			case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
				if t[0] == '-' && strings.ContainsRune(t[1:], 'c') {
					sawC = true
				}
				if last := t[len(t)-1]; last == 'o' || last == 'O' {
					i++ // -eo pipefail
				}
			default:
				if sawC {
					return t, true
				}
				return "", false
			}
		}
	}
	return "", false
}

// maxBraceWords bounds the words one brace expansion may produce here;
// beyond it the word counts as dynamic.
const maxBraceWords = 1024

// braceWords returns the words bash makes of wd after brace expansion
// (`{-o,FILE}` is two words, `-o` and `FILE`), each after quote removal.
func (w *walker) braceWords(wd *syntax.Word) []Word {
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), wd.Parts...)}
	if !syntax.SplitBraces(cp) {
		return []Word{w.word(wd)}
	}
	var out []Word
	for ew, err := range expand.BracesSeq(nil, cp) {
		if err != nil || len(out) >= maxBraceWords {
			return []Word{{Text: w.slice(wd), Dynamic: true}}
		}
		word := w.wordWithin(ew, wd)
		if word.Text == "" && !word.Dynamic {
			continue // bash drops empty words from {a,}
		}
		out = append(out, word)
	}
	return out
}

// wordWithin is word for a word made from parts of orig (a brace
// expansion): dynamic text is orig's source.
func (w *walker) wordWithin(wd, orig *syntax.Word) Word {
	res := w.word(wd)
	if res.Dynamic {
		res.Text = w.slice(orig)
	}
	return res
}

// word returns the value of a word after quote removal, or its source text
// with Dynamic set when it has parts known only at run time.
func (w *walker) word(wd *syntax.Word) Word {
	var sb strings.Builder
	dynamic, glob := false, false
	var part func(p syntax.WordPart, quoted bool)
	part = func(p syntax.WordPart, quoted bool) {
		switch x := p.(type) {
		case *syntax.Lit:
			if !quoted && strings.ContainsAny(x.Value, "*?[") {
				glob = true
			}
			sb.WriteString(unescape(x.Value, quoted))
		case *syntax.SglQuoted:
			if x.Dollar {
				dynamic = true
			}
			sb.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				part(q, true)
			}
		default:
			dynamic = true
		}
	}
	for _, p := range wd.Parts {
		part(p, false)
	}
	if dynamic {
		return Word{Text: w.slice(wd), Dynamic: true, Glob: glob}
	}
	return Word{Text: sb.String(), Glob: glob}
}

// unescape removes the backslashes bash removes: every one outside quotes,
// and inside double quotes those before $ ` " \ and newline.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			sb.WriteByte(c)
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
			sb.WriteByte(next)
			i++
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}
