package builtin

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var updateTranscripts = flag.Bool("update", false, "rewrite the @want sections of testdata/transcripts/*.txtar")

// TestTranscripts replays the agent sessions in testdata/transcripts: each
// archive holds a workspace, the tool calls to make in order (@calls: one
// "tool JSON" a line), and the transcript they must produce (@want: each
// call after "> ", then its result, or "error: " and the message). The
// workspace root reads as $ROOT. go test -run Transcripts -update rewrites
// the transcripts from the tools' current output.
func TestTranscripts(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ar := txtar.Parse(data)
			var ws txtar.Archive
			var calls string
			wantAt := -1
			for i, f := range ar.Files {
				switch f.Name {
				case "@calls":
					calls = string(f.Data)
				case "@want":
					wantAt = i
				default:
					ws.Files = append(ws.Files, f)
				}
			}
			ctx, s := newTestSession(t, string(txtar.Format(&ws)))
			var got strings.Builder
			sc := bufio.NewScanner(strings.NewReader(calls))
			for sc.Scan() {
				line := strings.TrimSpace(sc.Text())
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				name, args, _ := strings.Cut(line, " ")
				out, err := execTool(t, ctx, name, args)
				if err != nil {
					out = "error: " + err.Error()
				}
				got.WriteString("> " + line + "\n" + strings.ReplaceAll(out, s.WS.Root(), "$ROOT") + "\n\n")
			}
			if *updateTranscripts {
				want := txtar.File{Name: "@want", Data: []byte(got.String())}
				if wantAt < 0 {
					ar.Files = append(ar.Files, want)
				} else {
					ar.Files[wantAt] = want
				}
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if wantAt < 0 {
				t.Fatalf("%s has no @want section; run go test -run Transcripts -update", path)
			}
			if want := string(ar.Files[wantAt].Data); got.String() != want {
				t.Errorf("transcript differs (run go test -run Transcripts -update and review the diff)\n%s", shortDiff(path, want, got.String(), 200))
			}
		})
	}
}
