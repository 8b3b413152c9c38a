// Package workspace is one workspace folder as the tools see it: its root
// and confinement, the overlay of open editor buffers over the disk, file
// walking that honours ignore files, text encodings and atomic writes,
// read-before-write tracking, and the Editor through which every write goes.
//
// workspace knows nothing about JSON-RPC: the LSP server implements Editor
// and drives the overlay; DiskEditor serves the command line and MCP.
//
// # Paths
//
// Every path a tool receives goes through Resolve (reads) or ResolveWrite
// (writes, renames, deletes): relative to the root or absolute, refused when
// it leaves the root lexically or through a symlink (the deepest existing
// ancestor is resolved, dangling links included, and compared with the root
// component by component), and, for writes, when it is in a .git directory.
// Paths handed back are absolute and clean (Abs) or '/'-separated relative
// to the root (Rel, "." for the root). A checked path is then used beneath
// the workspace's one hold on its folder (rootdir.go: the root opened once,
// again only if the folder is replaced): reads, walks, readers and writes
// resolve names relative to that descriptor (openat2 RESOLVE_BENEATH on
// Linux, os.Root elsewhere), never by an absolute path. Overlay keys are absolute paths; the
// LSP side converts URIs.
//
// # Reading
//
// Reads are layered as in gopls: the overlay of open buffers (immutable
// snapshots, swapped atomically on every change) answers first and hands
// every other path to Disk; both are a Source, and the Workspace itself is
// the merged Source. ReadFile decodes what it reads into a File: UTF-8,
// UTF-8 with BOM, UTF-16 LE/BE with BOM, line endings normalised to "\n",
// with the Format to write it back exactly (Encode). Binary files (NUL in the
// first 8 KiB) give ErrBinary, files over MaxTextFile ErrTooLarge unless
// ReadFileWith lifts the limit; ReadRaw gives undecoded bytes for searches.
//
// # Walking
//
// Walk visits a directory tree without following symlinks, skipping .git
// always, hidden names unless asked, and whatever .gitignore (every level),
// .ignore and .git/info/exclude exclude; the rules are gitignore(5)'s and a
// test holds them to `git ls-files --others --exclude-standard`. Sequential
// walks go in lexical order; parallel ones (WalkOptions.Parallel) call the
// visitor concurrently and cost one ReadDir per directory (plus one lstat
// per entry unless WalkOptions.NoStat). A walk lists the merged view: an
// open buffer whose file is not on disk is visited where the file would be
// (WalkEntry.Buffer), under the same rules, so that grep, glob, ls and the
// code index all see a new unsaved file; WalkOptions.DiskOnly is for walks
// that act on the disk itself. FileTable keeps such a walk of the whole
// folder resident, one per option set, kept right by re-stating the
// directories and ignore files it saw and by the buffer and deny-list
// events no directory records (grep's session tables read over it).
//
// # Writing
//
// A write tool, holding LockPath for the file, reads it (ReadFile), checks
// Session.Reads.CheckFresh when the tracker is on, hands the new text to
// Session.Editor.Write with the file's Format and buffer Version, and marks
// the written file read again. DiskEditor writes atomically (a
// .agentls-tmp-* file in the same directory, fsync, rename, mode kept,
// parents created); CleanTemp removes leftovers of a crash.
//
// # Sessions
//
// A Session (one per folder in LSP, per connection in MCP, per call on the
// command line) carries the workspace, its Editor, the ReadTracker (nil on
// the command line: there the read-before-write rule is off, since every
// call is its own session), a private TempDir, the user's settings and
// per-session attachments. Tools find it with From(ctx).
package workspace
