//go:build unix

package reliability

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestEditPrefixOnlyOldString: an old_string that is nothing but read_file
// line-number prefixes ("  5→", as copied from an empty line) is an error
// like any old_string that matches nothing. Found by FuzzEditMatch: after
// the prefixes are stripped, old_string is empty and builtin's exactHits
// loops forever on strings.Index(text, ""), appending hits until memory
// runs out, so one call takes the whole server down. The call runs in the
// agentls binary under a 2 GB address-space limit and a deadline.
func TestEditPrefixOnlyOldString(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agentls")
	}
	bin := agentlsBinary(t)
	dir := tempRoot(t)
	writeFiles(t, dir, map[string]string{"f.txt": "a\n\nb\n"})
	for _, args := range []string{
		`{"path":"f.txt","old_string":"     2→","new_string":"x"}`,
		`{"path":"f.txt","old_string":"1→","new_string":"x","replace_all":true}`,
		`{"path":"f.txt","old_string":"  1→\n  2→","new_string":"x"}`,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -v 2000000; exec "$0" call -C "$1" edit_file "$2"`, bin, dir, args)
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		code := -1
		if cmd.ProcessState != nil {
			code = cmd.ProcessState.ExitCode()
		}
		if timedOut || code != 1 {
			t.Errorf("edit_file %s: exit %d (%v), want 1 (an error result): %s", args, code, err, short(string(out), 300))
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(b) != "a\n\nb\n" {
		t.Errorf("f.txt changed: %q", b)
	}
}
