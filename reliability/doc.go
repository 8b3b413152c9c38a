// Package reliability holds no code, only the tests that hold agentls to
// its promises under hostile input, faults and load, across packages and
// through the real server (in process over a pipe, or the built binary):
//
//   - escape_test.go: a corpus of hostile paths and tricks (.., absolute
//     paths, ~, symlinks out, chains and loops, a symlink swapped in
//     between check and use, a directory replaced by a symlink during a
//     recursive delete, hard links, /proc/self/root, NUL bytes, long paths,
//     Unicode lookalikes) against every path-taking tool through the LSP
//     server, with a canary tree outside the workspace checked after every
//     call;
//   - secrets_test.go: the secrets deny list through the server;
//   - protocol_test.go: malformed framing and JSON, wrong types, unknown
//     methods, requests after shutdown, a 100 MB message;
//   - crash_test.go: the agentls binary killed (SIGKILL) in the middle of
//     large writes; every file is old or new, temp files go at next start;
//   - load_test.go: concurrent read-only calls and a stream of didChange,
//     then edits: nothing lost or reordered, goroutines and children back
//     to where they were;
//   - fuzz_test.go: fuzz targets for LSP framing through the server and for
//     edit_file/multi_edit matching.
//
// The long runs are skipped with -short; bench/fuzz and bench/load run the
// longer versions.
package reliability
