package codeindex

import "testing"

// TestJavaDefsCorpus checks that javaDefs finds exactly the definitions
// of the skeleton's parse (which TestSkeletonCorpora checks against the
// full parse) in every file of the Java corpus it reads; the files it
// leaves to the parse are counted, with the tokens it stopped at.
func TestJavaDefsCorpus(t *testing.T) {
	checkBuildPassCorpus(t, "java", javaDefs, func(x *extractor) []byte {
		if r := &x.java; r.fail {
			return r.src[r.failAt:min(r.failAt+12, len(r.src))]
		}
		return nil
	})
}
