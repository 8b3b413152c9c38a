package shell

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClassifierHardening: commands of issue 22's classes that the
// classifier used to call read-only ask now, and the everyday read-only
// commands still run.
func TestClassifierHardening(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("x\n"), 0o644)
	p := &Policy{Root: root, TempDir: filepath.Join(root, "tmp"), Home: "/home/u"}
	notReadOnly := []string{
		// Braces and globs hiding options.
		`sort {-o,out.txt} notes.txt`,
		`find . -maxdepth 1 {-fprint,out.txt}`,
		`sed -n {-e,'w out.txt'} notes.txt`,
		`git diff {--output=out.txt,HEAD}`,
		`{touch,x}`,
		`sort *`,
		`rg -n x *`,
		`find . -name *`,
		`git log *`,
		// Options the old checks did not parse.
		`sort --o=out.txt notes.txt`,
		`sort --ou out.txt notes.txt`,
		`sort -uoout.txt notes.txt`,
		`sed -ne 'w out.txt' notes.txt`,
		`sed -n -e 1p -e 'w out.txt' notes.txt`,
		`sed -n --expr='w out.txt' notes.txt`,
		`sed --in s/a/b/ notes.txt`,
		`sed -ni s/x/y/ notes.txt`,
		`sed -f script.sed notes.txt`,
		`go env --w GOFLAGS=-x`,
		`go env -w GOPROXY=off`,
		`go list -toolexec=x -export .`,
		`go list --toolexec x .`,
		`go list -mod=mod -m all`,
		`go list -json=Export .`,
		`go doc -http=:0 fmt`,
		`go doc --http :0 fmt`,
		`hostname --file=name.txt`,
		`rg --hostname-bin=./x foo`,
		`file --comp -m notes.txt`,
		`command time --o=out.txt ls`,
		`find . -fls out.txt`,
		// git choosing its configuration or repository.
		`git -c core.fsmonitor=x status`,
		`git --config-env=core.pager=X log`,
		`git --git-dir=evil.git status`,
		`git --work-tree=/ status`,
		`git -C evil.git log`,
		`cd evil.git && git log`,
		`pushd sub; git status`,
		`git --exec-path=. status`,
		`git config core.pager get`,
		`git config alias.x list`,
		`git config --add x.y z`,
		`git config --g x.y`,
		`git whatchanged --output=out.txt`,
		`git shortlog --output=out.txt HEAD`,
		`git rev-list --all --output=out.txt`,
		`git stash show --output=out.txt`,
		`git reflog --output=out.txt`,
		`git reflog expire --all`,
		`git log --textconv -p`,
		`git cat-file --filters HEAD:x`,
		// Builtins that evaluate their arguments.
		`printf -v 'a[$(id)]' x`,
		`test -v 'a[0]'`,
		`[ -v 'a[0]' ]`,
		`[[ x -eq 0 ]]`,
		`(( x ))`,
		`echo $(( x + 1 ))`,
		`echo ${s:x}`,
		`for ((i=0; i<3; i++)); do echo $i; done`,
		`wait -p x`,
		`set -k; git status GIT_DIR=x`,
		`set -a`,
		`set -o keyword`,
		`shopt -s expand_aliases`,
		`exit 'a[$(id)]'`,
		`shift x`,
		// Input redirections from outside the workspace.
		`cat < /dev/tcp/127.0.0.1/9`,
		`wc -c < /dev/tcp/localhost/9`,
		`cat < /etc/passwd`,
		`cat < $f`,
		`cd / && cat < etc/passwd`,
		`{ cat; } < /dev/tcp/127.0.0.1/9`,
	}
	for _, script := range notReadOnly {
		a, err := Analyze(script)
		if err != nil {
			t.Errorf("%s: %v", script, err)
			continue
		}
		if d := p.Decide(a); d.Verdict == Allow {
			t.Errorf("%s: %s (%s), want it to ask", script, d.Verdict, d.Rule)
		}
	}
	readOnly := []string{
		`ls *.go`,
		`cat *.txt`,
		`grep -rn foo .`,
		`find . -name '*.go' -type f`,
		`git status`,
		`git log --oneline -5`,
		`git diff HEAD~1 --stat`,
		`git --no-pager log -p -1`,
		`git show HEAD:notes.txt`,
		`git config --get user.name`,
		`git config get user.name`,
		`git config --list --show-origin`,
		`git stash list`,
		`git reflog`,
		`sed -n 1,20p notes.txt`,
		`sed -ne 1p notes.txt`,
		`sed -n -e '/x/p' notes.txt`,
		`go list ./...`,
		`go list -mod=readonly -m all`,
		`go env GOPATH`,
		`go env -json`,
		`go doc fmt.Println`,
		`set -euo pipefail; ls`,
		`set -x`,
		`shopt -s globstar; ls`,
		`echo $((1 + 2))`,
		`[[ -f notes.txt ]]`,
		`test -f notes.txt`,
		`[ "$x" = y ]`,
		`cat < notes.txt`,
		`wc -l < ./notes.txt`,
		`for f in *.go; do wc -l "$f"; done`,
		`printf '%s\n' a b`,
		`sort -u notes.txt`,
		`exit 1`,
		`echo {a,b}`,
	}
	for _, script := range readOnly {
		a, err := Analyze(script)
		if err != nil {
			t.Errorf("%s: %v", script, err)
			continue
		}
		if d := p.Decide(a); d.Verdict != Allow {
			t.Errorf("%s: %s (%s: %s), want it to run", script, d.Verdict, d.Rule, d.Detail)
		}
	}
}
