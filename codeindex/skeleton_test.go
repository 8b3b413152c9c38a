package codeindex

import (
	"context"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
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
	root := filepath.Join(build.Default.GOROOT, "src")
	l := LanguageByName("go")
	x := newExtractor()
	defer x.Close()
	var full, skel time.Duration
	files, diffs, withErrors := 0, 0, 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > maxFileSize {
			return nil
		}
		files++
		t0 := time.Now()
		ft, _ := x.parse(context.Background(), l, src, nil)
		a := x.definitions(l, ft, src, p)
		broken := ft.RootNode().HasError()
		ft.Close()
		t1 := time.Now()
		sd, _ := x.skeletonDefs(l, src)
		b := symbols(sd, p)
		t2 := time.Now()
		full += t1.Sub(t0)
		skel += t2.Sub(t1)
		if broken {
			withErrors++ // error recovery may differ when the parser sees less
		} else if fmt.Sprint(a) != fmt.Sprint(b) {
			diffs++
			if diffs < 5 {
				t.Errorf("%s: full %d definitions, skeleton %d", p, len(a), len(b))
			}
		}
		return nil
	})
	t.Logf("%d files (%d with syntax errors, not compared), %d differ; full parse+defs %v, skeleton %v", files, withErrors, diffs, full, skel)
}
