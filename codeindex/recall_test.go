package codeindex

import (
	"bufio"
	"context"
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/workspace"
)

// TestRecallCtags compares the index of Go's source tree with Universal
// Ctags: at least 98% of ctags' function, method and type definitions
// (name, path, line) must be found.
func TestRecallCtags(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes Go's source tree")
	}
	ctags, err := exec.LookPath("ctags")
	if err != nil {
		t.Skip("ctags not installed (Debian package universal-ctags)")
	}
	root := filepath.Join(build.Default.GOROOT, "src")
	tags := filepath.Join(t.TempDir(), "tags")
	out, err := exec.Command(ctags, "-R", "--languages=Go", "--excmd=number", "--fields=+K", "-f", tags, root).CombinedOutput()
	if err != nil {
		t.Fatalf("ctags: %v\n%s", err, out)
	}
	type key struct {
		name, path string
		line       int
	}
	want := map[key]string{}
	f, err := os.Open(tags)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 4 || strings.HasPrefix(fields[0], "!_") {
			continue
		}
		switch fields[3] {
		case "func", "type", "struct", "interface", "talias":
		default:
			continue
		}
		rel, err := filepath.Rel(root, fields[1])
		if err != nil {
			continue
		}
		var line int
		fmt.Sscanf(fields[2], "%d", &line)
		want[key{fields[0], filepath.ToSlash(rel), line}] = fields[3]
	}

	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	ix := New(ws, Options{NoCache: true})
	defer ix.Close()
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	have := map[key]bool{}
	for _, s := range ix.Definitions() {
		have[key{s.Name, s.Path, int(s.NameRange.Start.Line) + 1}] = true
	}
	found, inSkipped, blank := 0, 0, 0
	var missing []string
	for k, kind := range want {
		switch {
		case have[k]:
			found++
		case ix.skipped[k.path]:
			inSkipped++
		case k.name == "_":
			blank++
		default:
			if len(missing) < 30 {
				missing = append(missing, fmt.Sprintf("%s %s %s:%d", kind, k.name, k.path, k.line))
			}
		}
	}
	recall := float64(found) / float64(len(want))
	t.Logf("recall of ctags' Go functions, methods and types: %d of %d = %.2f%%; not found: %d in files skipped (over 1 MiB), %d named _, %d others (index: %+v)",
		found, len(want), 100*recall, inSkipped, blank, len(want)-found-inSkipped-blank, ix.Status())
	if recall < 0.98 {
		t.Errorf("recall %.2f%% < 98%%; some missing:\n%s", 100*recall, strings.Join(missing, "\n"))
	}
}
