// Package builtin holds agentls's built-in tools, one file per tool, each
// registering itself with the registry in init(). A tool's name, description
// and schema sit together at the top of its file.
//
// Tools are stateless: everything a call needs (the workspace, the editor,
// the read-before-write tracker) comes from workspace.From(ctx). File tools
// read through the workspace's merged view, so a file open in the editor is
// read from its buffer, and they write only through the session's Editor.
// Their errors are messages the model can act on.
package builtin
