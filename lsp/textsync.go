package lsp

import (
	"encoding/json"
	"path/filepath"
	"slices"
)

// document is an open editor buffer. Its text is the client's text as it
// is, line endings included; the folder's overlay holds the same string.
type document struct {
	uri     string
	path    string    // "" when the URI is not a file; symlinks resolved when that puts it in a folder
	folders []*Folder // every folder containing it (nested folders share the buffer)
	version int32
	text    string
}

type versionedDoc struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

func (s *Server) didOpen(raw json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int32  `json:"version"`
			Text    string `json:"text"`
		} `json:"textDocument"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		s.log.Info("bad didOpen", "err", err)
		return
	}
	td := p.TextDocument
	d := &document{uri: td.URI, version: td.Version, text: td.Text}
	if path, ok := uriToPath(td.URI); ok {
		d.path = path
	}
	s.mu.Lock()
	old, reopened := s.docs[td.URI]
	if d.path != "" {
		d.path = s.folderPathLocked(d.path)
		d.folders = s.foldersForLocked(d.path)
	}
	s.docs[td.URI] = d
	s.mu.Unlock()
	if reopened {
		for _, f := range old.folders {
			f.WS.Close(old.path)
		}
	}
	for _, f := range d.folders {
		f.WS.Open(d.path, d.version, d.text)
	}
}

func (s *Server) didChange(raw json.RawMessage) {
	var p struct {
		TextDocument   versionedDoc `json:"textDocument"`
		ContentChanges []textChange `json:"contentChanges"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		s.log.Info("bad didChange", "err", err)
		return
	}
	s.mu.Lock()
	d, ok := s.docs[p.TextDocument.URI]
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
	s.mu.Lock()
	d.text, d.version = text, p.TextDocument.Version
	folders := d.folders
	s.mu.Unlock()
	for _, f := range folders {
		f.WS.ChangeEdits(d.path, p.TextDocument.Version, text, edits)
	}
}

func (s *Server) didSave(raw json.RawMessage) {
	var p struct {
		TextDocument versionedDoc `json:"textDocument"`
		Text         *string      `json:"text"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return
	}
	s.mu.Lock()
	d, ok := s.docs[p.TextDocument.URI]
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
	var p struct {
		TextDocument versionedDoc `json:"textDocument"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return
	}
	s.mu.Lock()
	d, ok := s.docs[p.TextDocument.URI]
	delete(s.docs, p.TextDocument.URI)
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
	for _, d := range s.docs {
		if d.path == path {
			return *d, true
		}
	}
	return document{}, false
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

// Document returns the open buffer of uri.
func (s *Server) Document(uri string) (Document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	if !ok {
		return Document{}, false
	}
	return Document{URI: d.uri, Path: d.path, Version: d.version, Text: d.text, Folders: slices.Clone(d.folders)}, true
}

// DocumentAt returns the open buffer of an absolute path, whatever the
// spelling of the URI the client opened it with (prefer it to Document
// with a URI built from a path: clients escape URIs differently).
func (s *Server) DocumentAt(path string) (Document, bool) {
	path = filepath.Clean(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		if d.path == path {
			return Document{URI: d.uri, Path: d.path, Version: d.version, Text: d.text, Folders: slices.Clone(d.folders)}, true
		}
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
