package lsp

import (
	"encoding/json"
	"path/filepath"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/workspace"
)

// document is an open editor buffer. Its text is the client's text as it
// is, line endings included; the folder's overlay holds the same string.
type document struct {
	uri     string
	path    string    // "" when the URI is not a file; symlinks resolved when that puts it in a folder
	folders []*Folder // every folder containing it (nested folders share the buffer)
	version int32     // the client's last reported version
	text    string    // the client's last reported text: the base of its incremental changes
	// pending is an edit the client accepted (workspace/applyEdit answered
	// applied:true) but has not reported with didChange yet. The overlay
	// holds its text; the client's next report replaces it.
	pending *pendingEdit
}

type pendingEdit struct {
	version int32 // the version the client's buffer has after the edit
	text    string
}

// current is the document as the client's buffer has it: the pending
// edit, else the last report. The caller holds s.mu.
func (d *document) current() (int32, string) {
	if d.pending != nil {
		return d.pending.version, d.pending.text
	}
	return d.version, d.text
}

func (s *Server) didOpen(raw json.RawMessage) {
	var p protocol.DidOpenTextDocumentParams
	if err := json.Unmarshal(raw, &p); err != nil {
		s.log.Info("bad didOpen", "err", err)
		return
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	td := p.TextDocument
	d := &document{uri: string(td.URI), version: td.Version, text: td.Text}
	if path, ok := uriToPath(d.uri); ok {
		d.path = path
	}
	s.mu.Lock()
	old, oldKey, reopened := s.docLocked(d.uri)
	if d.path != "" {
		d.path = s.folderPathLocked(d.path)
		d.folders = s.foldersForLocked(d.path)
	}
	var olds []*document
	if reopened {
		delete(s.docs, oldKey)
		olds = append(olds, old)
	}
	// A second URI spelling of an open path reopens the one buffer.
	if same, ok := s.docs[d.key()]; ok {
		olds = append(olds, same)
	}
	s.docs[d.key()] = d
	s.mu.Unlock()
	for _, old := range olds {
		for _, f := range old.folders {
			f.WS.Close(old.path)
		}
	}
	for _, f := range d.folders {
		f.WS.Open(d.path, d.version, d.text)
	}
}

func (s *Server) didChange(raw json.RawMessage) {
	// Decoded with our own change type: go.lsp.dev/protocol v0.12.0 takes
	// a change without a range (the whole text) for an insert at 0:0.
	var p struct {
		TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
		ContentChanges []textChange                             `json:"contentChanges"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		s.log.Info("bad didChange", "err", err)
		return
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	s.mu.Lock()
	d, _, ok := s.docLocked(string(p.TextDocument.URI))
	enc := s.client.enc
	s.mu.Unlock()
	if !ok {
		s.log.Info("didChange of a document that is not open", "uri", p.TextDocument.URI)
		return
	}
	// Only the read loop writes d.text and d.version, so reading them
	// without the lock here is safe; writers below take it for readers on
	// other goroutines.
	text, edits := applyChangeEdits(d.text, p.ContentChanges, enc)
	v := p.TextDocument.Version
	s.mu.Lock()
	d.text, d.version = text, v
	pend := d.pending
	if pend != nil && v >= pend.version {
		d.pending = nil
	}
	folders := d.folders
	s.mu.Unlock()
	if pend != nil {
		switch {
		case v < pend.version:
			// An earlier state of the client (it reports an edit it made
			// before the pending one): the overlay keeps the applied edit.
			return
		case v == pend.version && text == pend.text:
			return // the overlay has this text already
		case v == pend.version:
			s.log.Warn("the editor's buffer differs from the edit it applied; taking the editor's text",
				"uri", d.uri, "version", v, "want_len", len(pend.text), "got_len", len(text))
		default:
			s.log.Debug("the editor reported a newer buffer than the edit it applied", "uri", d.uri, "version", v, "applied_version", pend.version)
		}
		// The client's changes were made against its last report, not
		// the overlay's text: the overlay takes the whole text.
		edits = nil
	}
	for _, f := range folders {
		f.WS.ChangeEdits(d.path, v, text, edits)
	}
}

// applied records an edit the client accepted (workspace/applyEdit
// answered applied:true) at once: the document's buffer and the overlays
// take text at version, so that no tool waits for a client that reports
// its buffer late (eglot sends didChange only when Emacs is idle). The
// client's next didChange reconciles: its text wins. Nothing changes when
// the buffer is no longer at base, the version the edit was made against
// (the client reported the edit, or more, already); ok says whether the
// edit was recorded. edits turn the text at base into text (nil: unknown).
func (s *Server) applied(uri string, base, version int32, text string, edits []workspace.Edit) (ok bool) {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	s.mu.Lock()
	d, _, open := s.docLocked(uri)
	if !open {
		s.mu.Unlock()
		return false
	}
	if cur, _ := d.current(); cur != base {
		s.mu.Unlock()
		return false
	}
	d.pending = &pendingEdit{version: version, text: text}
	folders := d.folders
	s.mu.Unlock()
	for _, f := range folders {
		f.WS.ChangeEdits(d.path, version, text, edits)
	}
	return true
}

func (s *Server) didSave(raw json.RawMessage) {
	var p protocol.DidSaveTextDocumentParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	s.mu.Lock()
	d, _, ok := s.docLocked(string(p.TextDocument.URI))
	var folders []*Folder
	if ok {
		folders = d.folders
	}
	s.mu.Unlock()
	for _, f := range folders {
		f.WS.Saved(d.path)
	}
}

func (s *Server) didClose(raw json.RawMessage) {
	var p protocol.DidCloseTextDocumentParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	s.mu.Lock()
	d, key, ok := s.docLocked(string(p.TextDocument.URI))
	if ok {
		delete(s.docs, key)
	}
	s.mu.Unlock()
	if ok {
		for _, f := range d.folders {
			f.WS.Close(d.path)
		}
	}
}

// didChangeWatchedFiles tells each folder which files changed on disk so
// that caches built on them (file tables, the code index) refresh.
func (s *Server) didChangeWatchedFiles(raw json.RawMessage) {
	var p struct {
		Changes []struct {
			URI string `json:"uri"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return
	}
	for _, c := range p.Changes {
		path, ok := uriToPath(c.URI)
		if !ok {
			continue
		}
		s.mu.Lock()
		path = s.folderPathLocked(path)
		folders := s.foldersForLocked(path)
		s.mu.Unlock()
		for _, f := range folders {
			f.WS.NotifyChanged(filepath.Clean(path))
		}
	}
}

// docByPath finds the open document of an absolute path.
func (s *Server) docByPath(path string) (document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.docs[filepath.Clean(path)]; ok {
		return *d, true
	}
	return document{}, false
}

// key is d's key in Server.docs: its path, or its URI when it is not a
// file.
func (d *document) key() string {
	if d.path != "" {
		return d.path
	}
	return d.uri
}

// docLocked finds the open document of uri and its key in Server.docs.
// The key is the path the URI names (as didOpen resolved it against the
// folders); a document opened before a folder that changed how its path
// resolves is found by its URI. The caller holds s.mu.
func (s *Server) docLocked(uri string) (*document, string, bool) {
	key := uri
	if path, ok := uriToPath(uri); ok {
		key = s.folderPathLocked(path)
	}
	if d, ok := s.docs[key]; ok {
		return d, key, true
	}
	for k, d := range s.docs {
		if d.uri == uri {
			return d, k, true
		}
	}
	return nil, "", false
}

// folderPathLocked returns path, or the path with symlinks resolved when
// only that form lies in a folder (folder roots are symlink-resolved; a
// client may spell a path through a link, e.g. /var → /private/var).
func (s *Server) folderPathLocked(path string) string {
	if s.folderForLocked(path) != nil || len(s.folders) == 0 {
		return path
	}
	dir, base := filepath.Split(path)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		if p := filepath.Join(real, base); s.folderForLocked(p) != nil {
			return p
		}
	}
	return path
}

// Document is an open buffer as navigation handlers need it.
type Document struct {
	URI     string
	Path    string // absolute; "" for a URI that is not a file
	Version int32
	Text    string    // exactly as the client has it
	Folders []*Folder // the folders containing it, in the order they were added
}

// public is d as navigation sees it: the client's buffer, a pending edit
// included. The caller holds s.mu.
func (d *document) public() Document {
	v, text := d.current()
	return Document{URI: d.uri, Path: d.path, Version: v, Text: text, Folders: slices.Clone(d.folders)}
}

// Document returns the open buffer of uri.
func (s *Server) Document(uri string) (Document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, _, ok := s.docLocked(uri)
	if !ok {
		return Document{}, false
	}
	return d.public(), true
}

// DocumentAt returns the open buffer of an absolute path, whatever the
// spelling of the URI the client opened it with (prefer it to Document
// with a URI built from a path: clients escape URIs differently).
func (s *Server) DocumentAt(path string) (Document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.docs[filepath.Clean(path)]; ok {
		return d.public(), true
	}
	return Document{}, false
}

// Offset converts a position of text, in the connection's position
// encoding, into a byte offset (clamped as the protocol says).
func (s *Server) Offset(text string, p Position) int { return offsetOf(text, p, s.clientCaps().enc) }

// Position converts a byte offset of text into a position in the
// connection's encoding.
func (s *Server) Position(text string, off int) Position {
	return positionOf(text, off, s.clientCaps().enc)
}
