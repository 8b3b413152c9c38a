package registry

// Annotations are facts about a tool's effects beyond ReadOnly, for clients
// that show or act on them (MCP tool annotations) and for the server's
// approval gate. The zero value says nothing special: effects stay inside
// the workspace and the editor can undo them.
type Annotations struct {
	// Destructive: its effects cannot be undone by the editor (deleting,
	// moving, running commands, ending processes).
	Destructive bool
	// OpenWorld: it reaches beyond the workspace (the network, processes
	// and files outside the folder).
	OpenWorld bool
	// Idempotent: calling it again with the same arguments changes
	// nothing more.
	Idempotent bool
	// AsksPerCall: the tool asks the user itself, call by call, when a
	// call needs it (bash's command policy, through workspace.Session.Ask),
	// so a gate in front of it lets it run rather than asking twice.
	AsksPerCall bool
}

// Annotated is implemented by tools that have Annotations.
type Annotated interface {
	Annotations() Annotations
}

// AnnotationsOf returns t's annotations (zero when it has none).
func AnnotationsOf(t Tool) Annotations {
	if a, ok := t.(Annotated); ok {
		return a.Annotations()
	}
	return Annotations{}
}
