package shell

import "testing"

// FuzzAnalyze checks that analysis, classification and policy never panic
// and that a parse error always has a message. The seed corpus is in
// testdata/fuzz/FuzzAnalyze.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"ls -la",
		"cat <<EOF\n$(rm -rf x)\nEOF",
		":(){ :|:& };:",
		`bash -c "eval 'sh -c \"rm -rf /\"'"`,
		"for f in $(ls); do echo \"${f%.go}\"; done",
		"diff <(ls a) >(wc -l) 2>&1 | tee log",
	} {
		f.Add(s)
	}
	p := &Policy{Root: "/w", TempDir: "/t", Home: "/h", Allow: []string{"go test", "*"}, Deny: []string{"git push"}}
	f.Fuzz(func(t *testing.T, script string) {
		a, err := Analyze(script)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		a.ReadOnly()
		d := p.Decide(a)
		if d.Rule == "" {
			t.Fatalf("decision without a rule for %q", script)
		}
	})
}
