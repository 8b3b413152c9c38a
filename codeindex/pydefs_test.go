package codeindex

import "testing"

// TestPythonDefsCorpus checks that pyDefs finds exactly the definitions
// of the skeleton's parse (which TestSkeletonCorpora checks against the
// full parse) in every file of the Python corpus it reads; the files it
// leaves to the parse are counted, with the text it stopped at.
func TestPythonDefsCorpus(t *testing.T) {
	checkBuildPassCorpus(t, "python", pyDefs, func(x *extractor) []byte {
		if r := &x.py; r.fail {
			return r.src[r.failAt:min(r.failAt+12, len(r.src))]
		}
		return nil
	})
}
