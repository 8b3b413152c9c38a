package lsp

// URIToPath converts a file URI into an absolute path; ok is false for
// other schemes (untitled:, git:, …). For extensions.
func URIToPath(uri string) (string, bool) { return uriToPath(uri) }

// PathToURI converts an absolute path into a file URI. For extensions.
func PathToURI(path string) string { return pathToURI(path) }
