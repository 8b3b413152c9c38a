// Package textsearch is the engine behind the grep tool: ripgrep's results,
// in a deterministic order, at ripgrep's speed, over files and editor
// buffers.
//
// How a search stays fast with Go's regexp, which has no DFA:
//
//   - Compile extracts from the syntax tree the literals every match must
//     contain (a set of up to 16 alternatives). A file is scanned for them
//     with bytes.IndexByte on each literal's rarest byte (vectorised), and
//     the regexp runs only on the line around a hit. When the literals are
//     the whole pattern (a literal, fixed_strings, a small alternation), a
//     hit is the match and the regexp never runs.
//   - Case-insensitive literals are searched by ASCII case folding, which is
//     exact except for k and s (their Unicode folds, U+212A and U+017F, are
//     not ASCII): those split a literal, and the regexp decides.
//   - A pattern with no usable literal runs through a lazily built byte DFA
//     (dfa.go) that finds candidate lines; the regexp confirms each.
//   - Line numbers are counted (bytes.Count) only in files that match, and
//     only up to the matches that will be shown; binary detection (a NUL
//     byte) also happens only in files that match.
//   - Files are read with raw system calls into reused buffers, on as many
//     goroutines as there are CPUs, while the walk is still going.
//   - In a running server the workspace keeps the file list
//     (workspace.FileTable) and Table, within a byte budget, file
//     contents, checked against size and mtime before use: a repeated
//     search walks nothing and reads nothing that did not change.
//
// Files stay inside their workspace folder even when the tree changes
// during a search: a file is never opened by its absolute path, but by
// name relative to a descriptor of its directory, itself opened beneath a
// descriptor of the folder with no symlink followed (openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or openat with O_NOFOLLOW one
// component at a time where openat2 is missing; os.Root off Unix). The
// folder is File.Abs minus File.Rel. A directory swapped for a symlink
// after the walk saw it makes its files unreadable, not readable from
// where the link leads.
//
// Results are sorted by path, then line, so the same query over the same
// files gives the same bytes; output stops at a result count and a byte
// size with a closing note that says how much was left out.
package textsearch
