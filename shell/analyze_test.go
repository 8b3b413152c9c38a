package shell

import (
	"errors"
	"strings"
	"testing"
)

// render shows a command as its words joined by spaces, a dynamic word
// wrapped in ⟨⟩, an assignment-only command as its names followed by "=".
func render(c Command) string {
	var parts []string
	for _, a := range c.Assigns {
		parts = append(parts, a+"=")
	}
	for _, w := range c.Args {
		if w.Dynamic {
			parts = append(parts, "⟨"+w.Text+"⟩")
		} else {
			parts = append(parts, w.Text)
		}
	}
	return strings.Join(parts, " ")
}

func TestAnalyzeTable(t *testing.T) {
	tests := []struct {
		script   string
		commands []string // every simple command, in source order
		readOnly bool
	}{
		// Plain readers.
		{"ls", []string{"ls"}, true},
		{"ls -la src/", []string{"ls -la src/"}, true},
		{"cat go.mod", []string{"cat go.mod"}, true},
		{"head -n 20 main.go", []string{"head -n 20 main.go"}, true},
		{"tail -f log.txt", []string{"tail -f log.txt"}, true},
		{"wc -l *.go", []string{"wc -l *.go"}, true},
		{"grep -rn TODO .", []string{"grep -rn TODO ."}, true},
		{"rg -n 'func main' --type go", []string{"rg -n func main --type go"}, true},
		{"rg --pre cat foo", []string{"rg --pre cat foo"}, false},
		{"pwd", []string{"pwd"}, true},
		{"echo hello world", []string{"echo hello world"}, true},
		{"true", []string{"true"}, true},
		// Quoting.
		{`echo "a b" 'c d' e\ f`, []string{"echo a b c d e f"}, true},
		{`echo "say \"hi\"" '\n'`, []string{`echo say "hi" \n`}, true},
		{`grep "$PATTERN" file`, []string{`grep ⟨"$PATTERN"⟩ file`}, true},
		{`echo $'a\tb'`, []string{`echo ⟨$'a\tb'⟩`}, true},
		{`\rm -rf build`, []string{"rm -rf build"}, false},
		{`"l""s" -l`, []string{"ls -l"}, true},
		// find.
		{"find . -name '*.go'", []string{"find . -name *.go"}, true},
		{"find . -name '*.o' -delete", []string{"find . -name *.o -delete"}, false},
		{`find . -exec rm {} \;`, []string{"find . -exec rm {} ;"}, false},
		{"find . -type f -print0", []string{"find . -type f -print0"}, true},
		// git.
		{"git status", []string{"git status"}, true},
		{"git diff HEAD~1 -- main.go", []string{"git diff HEAD~1 -- main.go"}, true},
		{"git log --oneline -n 5", []string{"git log --oneline -n 5"}, true},
		{"git -C sub show HEAD", []string{"git -C sub show HEAD"}, false}, // -C: another repository and configuration
		{"git blame main.go", []string{"git blame main.go"}, true},
		{"git log --output=x.patch", []string{"git log --output=x.patch"}, false},
		{"git -c core.pager=evil log", []string{"git -c core.pager=evil log"}, false},
		{"git commit -m 'x'", []string{"git commit -m x"}, false},
		{"git push origin main", []string{"git push origin main"}, false},
		{"git branch", []string{"git branch"}, true},
		{"git branch new-feature", []string{"git branch new-feature"}, false},
		{"git config --get user.name", []string{"git config --get user.name"}, true},
		{"git config user.name bob", []string{"git config user.name bob"}, false},
		{"git stash list", []string{"git stash list"}, true},
		{"git stash", []string{"git stash"}, false},
		// go.
		{"go version", []string{"go version"}, true},
		{"go env GOPATH", []string{"go env GOPATH"}, true},
		{"go env -w GOPROXY=x", []string{"go env -w GOPROXY=x"}, false},
		{"go list ./...", []string{"go list ./..."}, true},
		{"go doc fmt.Println", []string{"go doc fmt.Println"}, true},
		{"go test ./...", []string{"go test ./..."}, false},
		{"go build -o bin/x .", []string{"go build -o bin/x ."}, false},
		// sed, sort, others with writing options.
		{"sed -n '1,20p' main.go", []string{"sed -n 1,20p main.go"}, true},
		{"sed -i 's/a/b/' main.go", []string{"sed -i s/a/b/ main.go"}, false},
		{"sed 's/a/b/w out' main.go", []string{"sed s/a/b/w out main.go"}, false},
		{"sort -u names.txt", []string{"sort -u names.txt"}, true},
		{"sort -o out.txt names.txt", []string{"sort -o out.txt names.txt"}, false},
		{"date +%s", []string{"date +%s"}, true},
		{"date -s '2020-01-01'", []string{"date -s 2020-01-01"}, false},
		{"uniq in.txt out.txt", []string{"uniq in.txt out.txt"}, false},
		{"env", []string{"env"}, true},
		{"tree -L 2 src", []string{"tree -L 2 src"}, true},
		{"tree -o listing.txt", []string{"tree -o listing.txt"}, false},
		{"file -C -m magic", []string{"file -C -m magic"}, false},
		{"less README.md", []string{"less README.md"}, false},
		{"go list -export ./...", []string{"go list -export ./..."}, false},
		{"awk '{print $1}' f", []string{"awk {print $1} f"}, false},
		// Lists and pipelines: every command counts.
		{"ls && cat README.md", []string{"ls", "cat README.md"}, true},
		{"ls || rm -rf build", []string{"ls", "rm -rf build"}, false},
		{"cat a | grep x | wc -l", []string{"cat a", "grep x", "wc -l"}, true},
		{"go test ./... 2>&1 | tail -n 30", []string{"go test ./...", "tail -n 30"}, false},
		{"ls; pwd; echo done", []string{"ls", "pwd", "echo done"}, true},
		{"! grep -q x f", []string{"grep -q x f"}, true},
		// Redirections.
		{"echo hi > out.txt", []string{"echo hi"}, false},
		{"echo hi >> out.txt", []string{"echo hi"}, false},
		{"ls 2>/dev/null", []string{"ls"}, true},
		{"ls > /dev/null 2>&1", []string{"ls"}, true},
		{"grep x < in.txt", []string{"grep x"}, true},
		{"{ ls; pwd; } > listing.txt", []string{"ls", "pwd"}, false},
		{"> empty.txt", []string{""}, false},
		// Heredocs.
		{"cat <<EOF\nhello $USER\nEOF", []string{"cat"}, true},
		{"cat <<'EOF'\n$(rm -rf x)\nEOF", []string{"cat"}, true},
		{"cat <<EOF\n$(rm -rf x)\nEOF", []string{"rm -rf x", "cat"}, false},
		{"cat <<EOF > f.txt\nx\nEOF", []string{"cat"}, false},
		// Substitutions.
		{"echo $(date)", []string{"date", "echo ⟨$(date)⟩"}, true},
		{"echo `whoami`", []string{"whoami", "echo ⟨`whoami`⟩"}, true},
		{"cat $(find . -name x -delete)", []string{"find . -name x -delete", "cat ⟨$(find . -name x -delete)⟩"}, false},
		{"diff <(ls a) <(ls b)", []string{"ls a", "ls b", "diff ⟨<(ls a)⟩ ⟨<(ls b)⟩"}, true},
		{"tee >(wc -l) < f", []string{"wc -l", "tee ⟨>(wc -l)⟩"}, false},
		{"echo ${X:-$(rm y)}", []string{"rm y", "echo ⟨${X:-$(rm y)}⟩"}, false},
		{`echo "$(cat f | head -1)"`, []string{"cat f", "head -1", `echo ⟨"$(cat f | head -1)"⟩`}, true},
		{"$CMD arg", []string{"⟨$CMD⟩ arg"}, false},
		// Subshells, blocks, control flow.
		{"(cd sub && ls)", []string{"cd sub", "ls"}, true},
		{"for f in *.go; do wc -l \"$f\"; done", []string{`wc -l ⟨"$f"⟩`}, true},
		{"for f in $(ls); do rm \"$f\"; done", []string{"ls", `rm ⟨"$f"⟩`}, false},
		{"if [ -f go.mod ]; then cat go.mod; else echo none; fi", []string{"[ -f go.mod ]", "cat go.mod", "echo none"}, true},
		{"while read l; do echo $l; done < f", []string{"read l", "echo ⟨$l⟩"}, false},
		{"case $x in a) ls;; *) touch y;; esac", []string{"ls", "touch y"}, false},
		{"[[ -d .git ]] && git status", []string{"git status"}, true},
		{"time go version", []string{"go version"}, true},
		// Functions.
		{"f() { ls; }; f", []string{"ls", "f"}, false},
		{"ls() { rm -rf /; }; ls", []string{"rm -rf /", "ls"}, false},
		// Assignments and declarations.
		{"X=1", []string{"X="}, false},
		{"FOO=bar git status", []string{"FOO= git status"}, false},
		{"export PATH=/x:$PATH", []string{"PATH= export"}, false},
		{"local x=1", []string{"x= local"}, false},
		// eval, source, nested shells.
		{"eval 'ls; rm -rf x'", []string{"eval ls; rm -rf x", "ls", "rm -rf x"}, false},
		{"source ./env.sh", []string{"source ./env.sh"}, false},
		{". ./env.sh", []string{". ./env.sh"}, false},
		{"bash -c 'cat x | wc -c'", []string{"bash -c cat x | wc -c", "cat x", "wc -c"}, false},
		{`sh -c "$SCRIPT"`, []string{`sh -c ⟨"$SCRIPT"⟩`}, false},
		// Wrappers.
		{"timeout 10 cat f", []string{"timeout 10 cat f"}, true},
		{"nice -n 5 grep x f", []string{"nice -n 5 grep x f"}, true},
		{"command -v go", []string{"command -v go"}, true},
		{"xargs cat < list", []string{"xargs cat"}, false},
		{"env FOO=1 ls", []string{"env FOO=1 ls"}, false},
		{"sudo ls", []string{"sudo ls"}, false},
		// Unknown or path-qualified commands.
		{"./build.sh", []string{"./build.sh"}, false},
		{"/bin/ls", []string{"/bin/ls"}, false},
		{"make", []string{"make"}, false},
		{"touch x", []string{"touch x"}, false},
		{"mkdir -p a/b", []string{"mkdir -p a/b"}, false},
		{"npm install", []string{"npm install"}, false},
		// Background.
		{"sleep 100 &", []string{"sleep 100"}, true},
		{"coproc cat", []string{"cat"}, true},
	}
	if len(tests) < 60 {
		t.Fatalf("only %d cases", len(tests))
	}
	for _, tt := range tests {
		a, err := Analyze(tt.script)
		if err != nil {
			t.Errorf("Analyze(%q): %v", tt.script, err)
			continue
		}
		var got []string
		for _, c := range a.Commands {
			got = append(got, render(c))
		}
		if strings.Join(got, "\n") != strings.Join(tt.commands, "\n") {
			t.Errorf("Analyze(%q) commands:\n got %q\nwant %q", tt.script, got, tt.commands)
		}
		ro, why := a.ReadOnly()
		if ro != tt.readOnly {
			t.Errorf("Analyze(%q).ReadOnly() = %v (%s), want %v", tt.script, ro, why, tt.readOnly)
		}
		if !ro && why == "" {
			t.Errorf("Analyze(%q): not read-only without a reason", tt.script)
		}
	}
}

func TestAnalyzeParseError(t *testing.T) {
	for _, tt := range []struct {
		script    string
		line, col uint
	}{
		{"echo 'unterminated", 1, 6},
		{"ls &&", 1, 4},
		{"if true; then\n  ls\n", 1, 1},
		{"echo ok\necho $(", 2, 6},
	} {
		_, err := Analyze(tt.script)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Analyze(%q) = %v, want a *ParseError", tt.script, err)
			continue
		}
		if pe.Line != tt.line || pe.Col != tt.col {
			t.Errorf("Analyze(%q): error at %d:%d, want %d:%d (%v)", tt.script, pe.Line, pe.Col, tt.line, tt.col, err)
		}
		if !strings.Contains(err.Error(), "nothing ran") {
			t.Errorf("error %q does not say nothing ran", err)
		}
	}
}

func TestAnalyzePipelinesAndFlags(t *testing.T) {
	a, err := Analyze("curl -s x | tee log | sh; sleep 1 &")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Pipelines) != 1 || len(a.Pipelines[0].Stages) != 3 {
		t.Fatalf("pipelines = %+v, want one of three stages", a.Pipelines)
	}
	if !a.Commands[0].Piped || a.Commands[3].Piped {
		t.Errorf("Piped flags wrong: %+v", a.Commands)
	}
	if !a.Commands[3].Background || len(a.Background) != 1 || a.Background[0] != "1:27" {
		t.Errorf("Background = %v, command %+v", a.Background, a.Commands[3])
	}
	a, err = Analyze("f() { ls | wc; }")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Funcs) != 1 || a.Funcs[0] != "f" || a.Commands[0].Func != "f" {
		t.Errorf("funcs = %v, commands = %+v", a.Funcs, a.Commands)
	}
}
