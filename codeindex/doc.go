// Package codeindex is a tree-sitter symbol index of one workspace folder
// that follows the editor: definitions of every source file, kept current
// from the editor's buffers (the changes' edits applied to each buffer's
// tree and reparsed incrementally on the index's own goroutine, the latest
// version of a file winning; a query waits for the changes before it), the disk
// (FileChanged, WatchDisk) and a cache on disk between runs.
//
// Languages and their tags queries (queries/*.scm, embedded) are listed by
// Languages. A query file has two halves separated by ";; references":
// definitions (@name with @definition.KIND, optional @container, or
// @scope for a node that only names a container) and references (@name
// with @reference.KIND).
//
// Life of an index:
//
//	ix := codeindex.For(sess)            // per session: follows its buffers, builds in the background
//	ix := codeindex.New(ws, opts); ix.Start() / ix.Build(ctx)   // by hand
//	ix.Status()                          // {state, files, symbols, languages, skipped}
//	ix.UpdateBuffer(path, version, text) // by hand; For follows the workspace (Watch) instead
//	ix.CloseBuffer(path)                 // didClose: frees the tree, back to the disk
//	ix.FileChanged(path)                 // didSave, didChangeWatchedFiles (a file or a directory)
//	ix.WatchDisk()                       // fsnotify, for clients without watched files
//	ix.Close()                           // stops everything, frees trees
//
// Queries: Search (workspace/symbol), Definition and References (by the
// identifier at a position: NameAt, IdentAt), Outline and Nest
// (documentSymbol), Map and Ranked (PageRank over references between
// files), Definitions (every definition, for `agentls index`).
//
// What the index knows of each language apart from its grammar and queries
// (comments, literals, how bodies are delimited, containers, imports,
// family) is its syntax record (syntax.go); one lexer (lexer.go) reads
// every language by it, for the skeletons, the identifier scan, the
// doc-comment lookup and Go's imports. The unexported fields of go-tree-sitter that the
// index reads are read in binding.go alone.
//
// Cost model: the cold build parses each file with what holds no
// definition left out, a skeleton parsed as one compact text and mapped
// back: Go's (goSkeleton: function bodies, composite literals, comments,
// imports, parameter lists, constant values, a ninth of the bytes), the
// brace languages' (bracketSkeleton; JSX, in TSX and JavaScript, is one
// literal to the lexer), Python's (pythonSkeleton, by indentation), Ruby's
// (rubySkeleton) and Lua's (luaSkeleton, by end). What the parser pays for
// is tokens, and error recovery: every skeleton leaves out whole comment
// lines, function bodies and the contents of brackets that hold no
// definition (f() for a call or a parameter list: syntax.parens, keep),
// and C's the attribute macros the grammar does not know (static int
// __init f). TestSkeletonCorpora checks that it finds exactly what a full
// parse finds. Lua does without a parse (Language.defsPass): luaDefs reads
// Lua's syntax and finds the captures the definitions walk finds in a full
// parse (TestLuaDefsCorpus), for its own buffers' updates too; text it
// cannot read goes to the skeleton parse. Rust's build does without one
// too (Language.buildPass): rustDefs reads the skeleton, a small language
// of items, and finds what the walk of its parse finds
// (TestRustDefsCorpus); buffers keep their parse. C#'s likewise: csDefs
// (TestCSharpDefsCorpus). The build runs only the definitions query,
// parse and query in one cgo call per file, one parser per worker. A
// start with the cache (cache.go) installs it in one piece while the walk
// lists the files and the workers lstat them; only files whose size or
// mtime changed are read. A buffer update reparses the buffer's tree
// incrementally and queries only the nodes the edit touches or the parse
// made anew, children of the root or, for an edit inside a class or a
// function, of the deepest node around it (changedSpans), from the
// root's children they lie in, not the root (rootq.go); the other
// definitions move with the edit. The parse is most of an update: the
// lists of grammars with conflicts (C, C++, C#, Java...) are rebuilt
// item by item around the edit (BenchmarkIncrementalPhases splits an
// update by phase). A buffer with syntax errors is
// parsed afresh once, before the next query, not on every keystroke.
// References are found on demand: files containing the name are parsed in
// full. Signatures and doc comments are read from the file for the symbols
// a query returns. Positions are 0-based lines and byte columns (UTF-8).
package codeindex
