// Package workspace is one workspace folder as the tools see it: its root
// and confinement, the overlay of open editor buffers over the disk, file
// walking that honours ignore files, text encodings and atomic writes,
// read-before-write tracking, and the Editor through which every write goes.
//
// workspace knows nothing about JSON-RPC: the LSP server implements Editor
// and drives the overlay; DiskEditor serves the command line and MCP.
package workspace
