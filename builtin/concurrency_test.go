package builtin

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentReadsAndEdits runs edits of one file, writes of others and
// reads of everything at once (under -race): every edit lands, none is lost
// to another's write, and readers never see a torn file.
func TestConcurrentReadsAndEdits(t *testing.T) {
	const n = 8
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "marker-%d\n", i)
	}
	ctx, s := newTestSession(t, "-- shared.txt --\n"+b.String())
	mustExec(t, ctx, "read_file", `{"path":"shared.txt"}`)

	var wg sync.WaitGroup
	errs := make(chan error, 4*n)
	for i := range n {
		wg.Add(3)
		go func() { // edit one line of the shared file
			defer wg.Done()
			_, err := execTool(t, ctx, "edit_file", map[string]any{"path": "shared.txt", "old_string": fmt.Sprintf("marker-%d\n", i), "new_string": fmt.Sprintf("done-%d\n", i)})
			errs <- err
		}()
		go func() { // create and rewrite a file of its own
			defer wg.Done()
			p := fmt.Sprintf("own/%d.txt", i)
			if _, err := execTool(t, ctx, "write_file", map[string]any{"path": p, "content": "v1\n"}); err != nil {
				errs <- err
				return
			}
			_, err := execTool(t, ctx, "multi_edit", map[string]any{"path": p, "edits": []map[string]any{{"old_string": "v1", "new_string": "v2"}}})
			errs <- err
		}()
		go func() { // read while the others write
			defer wg.Done()
			out, err := execTool(t, ctx, "read_file", `{"path":"shared.txt"}`)
			if err == nil && strings.Count(out, "→") != n {
				err = fmt.Errorf("torn read:\n%s", out)
			}
			if err == nil {
				_, err = execTool(t, ctx, "ls", `{"depth":3}`)
			}
			if err == nil {
				_, err = execTool(t, ctx, "glob", `{"pattern":"**/*.txt"}`)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	got := readWS(t, s, "shared.txt")
	for i := range n {
		if !strings.Contains(got, fmt.Sprintf("done-%d\n", i)) {
			t.Errorf("edit %d was lost:\n%s", i, got)
		}
	}
	for i := range n {
		if got := readWS(t, s, fmt.Sprintf("own/%d.txt", i)); got != "v2\n" {
			t.Errorf("own/%d.txt = %q", i, got)
		}
	}
}
