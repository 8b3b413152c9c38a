package codeindex

// The syntax records' tables are built on first use of a language (see
// byExt); tests that use a syntax record or a skeleton directly get them
// built before they run.
func init() { byExt() }
