package lsp

import (
	"encoding/json"
	"slices"
	"sort"
	"time"

	"go.lsp.dev/protocol"
)

// The commands of the wire contract (docs/PROTOCOL.md).
const (
	cmdListTools   = "agentls.listTools"
	cmdCallTool    = "agentls.callTool"
	cmdCallTools   = "agentls.callTools"
	cmdIndexStatus = "agentls.indexStatus"
)

// clientInfo is what the server uses of the client's capabilities.
type clientInfo struct {
	enc               posEncoding
	applyEdit         bool
	documentChanges   bool
	resourceOps       []string // "create", "rename", "delete"
	configuration     bool
	workspaceFolders  bool
	workDoneProgress  bool
	saveDocument      bool // experimental.agentls.saveDocument
	diagnostics       bool // experimental.agentls.diagnostics: the client serves agentls/diagnostics
	languageRequest   bool // experimental.agentls.languageRequest
	editorState       bool // experimental.agentls.editorState
	watchedFilesDynam bool
	name              string
}

// initializeParams holds the fields of InitializeParams the server reads,
// decoded here because go.lsp.dev/protocol v0.12.0 has no positionEncodings.
type initializeParams struct {
	ProcessID        *int              `json:"processId"`
	RootURI          string            `json:"rootUri"`
	RootPath         string            `json:"rootPath"`
	WorkspaceFolders []workspaceFolder `json:"workspaceFolders"`
	InitOptions      json.RawMessage   `json:"initializationOptions"`
	ClientInfo       *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	Capabilities struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
		Workspace struct {
			ApplyEdit     bool `json:"applyEdit"`
			WorkspaceEdit struct {
				DocumentChanges    bool     `json:"documentChanges"`
				ResourceOperations []string `json:"resourceOperations"`
			} `json:"workspaceEdit"`
			Configuration         bool `json:"configuration"`
			WorkspaceFolders      bool `json:"workspaceFolders"`
			DidChangeWatchedFiles struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
		Experimental struct {
			Agentls struct {
				SaveDocument    bool `json:"saveDocument"`
				Diagnostics     bool `json:"diagnostics"`
				LanguageRequest bool `json:"languageRequest"`
				EditorState     bool `json:"editorState"`
			} `json:"agentls"`
		} `json:"experimental"`
	} `json:"capabilities"`
}

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

func (s *Server) initialize(raw json.RawMessage) (any, error) {
	var p initializeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	c := clientInfo{enc: encUTF16}
	if slices.Contains(p.Capabilities.General.PositionEncodings, "utf-8") {
		c.enc = encUTF8
	}
	w := p.Capabilities.Workspace
	c.applyEdit = w.ApplyEdit
	c.documentChanges = w.WorkspaceEdit.DocumentChanges
	c.resourceOps = w.WorkspaceEdit.ResourceOperations
	c.configuration = w.Configuration
	c.workspaceFolders = w.WorkspaceFolders
	c.watchedFilesDynam = w.DidChangeWatchedFiles.DynamicRegistration
	c.workDoneProgress = p.Capabilities.Window.WorkDoneProgress
	ag := p.Capabilities.Experimental.Agentls
	c.saveDocument = ag.SaveDocument
	c.diagnostics, c.languageRequest, c.editorState = ag.Diagnostics, ag.LanguageRequest, ag.EditorState
	if p.ClientInfo != nil {
		c.name = p.ClientInfo.Name
	}

	global, problems := parseSettings(unwrapSection(p.InitOptions), s.log)

	folders := p.WorkspaceFolders
	if len(folders) == 0 && p.RootURI != "" {
		folders = []workspaceFolder{{URI: p.RootURI}}
	}
	if len(folders) == 0 && p.RootPath != "" {
		folders = []workspaceFolder{{URI: pathToURI(p.RootPath)}}
	}

	s.mu.Lock()
	s.client = c
	s.global = global
	s.state = stateInitialized
	s.mu.Unlock()
	for _, msg := range problems {
		s.showMessage(2, "agentls settings: %s", msg)
	}
	for _, wf := range folders {
		s.addFolder(wf)
	}
	if p.ProcessID != nil && *p.ProcessID > 0 {
		s.watchParent(*p.ProcessID)
	}
	s.log.Info("initialized", "client", c.name, "positionEncoding", c.enc.String(), "folders", len(folders))

	commands := make([]string, 0, len(s.commands))
	for name := range s.commands {
		commands = append(commands, name)
	}
	sort.Strings(commands)
	caps := serverCapabilities{
		ServerCapabilities: protocol.ServerCapabilities{
			TextDocumentSync: textDocumentSync{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      saveOptions{IncludeText: false},
			},
			ExecuteCommandProvider: &protocol.ExecuteCommandOptions{Commands: commands},
			Workspace: &protocol.ServerCapabilitiesWorkspace{
				WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{Supported: true, ChangeNotifications: true},
			},
		},
		PositionEncoding: c.enc.String(),
	}
	for _, ext := range s.opts.Extensions {
		ext.Capabilities(&caps.ServerCapabilities)
	}
	return initializeResult{
		Capabilities: caps,
		ServerInfo:   serverInfo{Name: "agentls", Version: s.opts.Version},
	}, nil
}

// initializeResult is protocol.InitializeResult with the capabilities
// below and a serverInfo whose version is always sent.
type initializeResult struct {
	Capabilities serverCapabilities `json:"capabilities"`
	ServerInfo   serverInfo         `json:"serverInfo"`
}

// serverInfo is protocol.ServerInfo, whose version is omitted when empty.
type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// serverCapabilities adds positionEncoding (LSP 3.17), which
// go.lsp.dev/protocol v0.12.0 lacks, to its ServerCapabilities.
type serverCapabilities struct {
	protocol.ServerCapabilities
	PositionEncoding string `json:"positionEncoding"`
}

// textDocumentSync is protocol.TextDocumentSyncOptions with every field
// sent: v0.12.0 omits false and zero values, so the documented
// "save": {"includeText": false} would go out as "save": {}.
type textDocumentSync struct {
	OpenClose bool                          `json:"openClose"`
	Change    protocol.TextDocumentSyncKind `json:"change"`
	Save      saveOptions                   `json:"save"`
}

type saveOptions struct {
	IncludeText bool `json:"includeText"`
}

// initialized pulls each folder's configuration when the client offers it
// and registers for file change notifications.
func (s *Server) initialized() {
	s.initDoneOnce.Do(func() { close(s.initDone) })
	s.mu.Lock()
	c := s.client
	folders := slices.Clone(s.folders)
	s.mu.Unlock()
	if c.configuration {
		for _, f := range folders {
			s.pullSettings(f)
		}
	}
	if c.watchedFilesDynam {
		s.goOwned(func() {
			err := s.conn.Call(s.ctx, "client/registerCapability", protocol.RegistrationParams{
				Registrations: []protocol.Registration{{
					ID:     "agentls-watch",
					Method: "workspace/didChangeWatchedFiles",
					RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{
						Watchers: []protocol.FileSystemWatcher{{GlobPattern: "**/*"}},
					},
				}},
			}, nil)
			if err != nil {
				s.log.Info("file watching not registered", "err", err)
			}
		})
	}
}

// watchParent checks every Options.ParentCheck that the editor that
// started the server (initialize's processId) still runs; the protocol asks
// a server to exit when it is gone.
func (s *Server) watchParent(pid int) {
	s.goOwned(func() {
		t := time.NewTicker(s.opts.ParentCheck)
		defer t.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
				if !processAlive(pid) {
					s.log.Warn("the client process is gone; exiting", "pid", pid)
					s.cancel()
					return
				}
			}
		}
	})
}
