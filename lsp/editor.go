package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/workspace"
)

// editor is the workspace.Editor of one folder: writes of files open in the
// client go into their buffers as workspace/applyEdit (versioned, so a stale
// edit is refused and the user can undo it); other files go to disk.
type editor struct {
	s *Server
	f *Folder
}

var _ workspace.Editor = (*editor)(nil)

func (e *editor) disk() workspace.DiskEditor { return workspace.DiskEditor{WS: e.f.WS} }

type applyResult = protocol.ApplyWorkspaceEditResponse

// applyEditParams is protocol.ApplyWorkspaceEditParams with an edit that
// may hold resource operations: Edit is a protocol.WorkspaceEdit or a
// fileOpEdit.
type applyEditParams struct {
	Label string `json:"label"`
	Edit  any    `json:"edit"`
}

// fileOpEdit is a WorkspaceEdit whose documentChanges are file operations:
// protocol v0.12.0's WorkspaceEdit holds text document edits only.
type fileOpEdit[Op protocol.RenameFile | protocol.DeleteFile] struct {
	DocumentChanges []Op `json:"documentChanges"`
}

// addTextEdits adds the edits of the document at uri, whose buffer has
// version, to edit: as a versioned TextDocumentEdit when the client takes
// documentChanges (it refuses the edit if the buffer moved on), else under
// changes.
func addTextEdits(edit *protocol.WorkspaceEdit, documentChanges bool, uri string, version int32, edits []protocol.TextEdit) {
	u := protocol.DocumentURI(uri)
	if !documentChanges {
		if edit.Changes == nil {
			edit.Changes = map[protocol.DocumentURI][]protocol.TextEdit{}
		}
		edit.Changes[u] = edits
		return
	}
	edit.DocumentChanges = append(edit.DocumentChanges, protocol.TextDocumentEdit{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u},
			Version:                &version,
		},
		Edits: edits,
	})
}

// errEditUnknown: the call ended before the editor answered an edit, which
// it may still apply.
var errEditUnknown = errors.New("the call ended before the editor answered the edit")

// applyEdit sends workspace/applyEdit and waits for the answer while ctx
// lasts. The request itself runs to the answer (or ApplyEditTimeout) even
// when ctx ends first: onApplied runs whenever the editor answers
// applied:true, and an edit applied after the call ended is logged, so a
// result never says that an edit failed while it is in the buffer.
func (e *editor) applyEdit(ctx context.Context, label string, edit any, onApplied func()) (applyResult, error) {
	type answer struct {
		res applyResult
		err error
	}
	done := make(chan answer, 1)
	late := make(chan struct{})
	e.s.goOwned(func() {
		rctx, cancel := context.WithTimeout(e.s.ctx, e.s.opts.ApplyEditTimeout)
		defer cancel()
		var res applyResult
		err := e.s.conn.Call(rctx, "workspace/applyEdit", applyEditParams{Label: label, Edit: edit}, &res)
		if err == nil && res.Applied && onApplied != nil {
			onApplied()
		}
		done <- answer{res, err}
		select {
		case <-late:
			if err == nil && res.Applied {
				e.s.log.Warn("the editor applied an edit after its call ended; it is in the buffer", "label", label)
			} else {
				e.s.log.Info("an edit whose call ended was not applied", "label", label, "err", err, "reason", res.FailureReason)
			}
		default:
		}
	})
	select {
	case a := <-done:
		if a.err != nil {
			return a.res, fmt.Errorf("the editor did not answer the edit: %w", a.err)
		}
		return a.res, nil
	case <-ctx.Done():
		close(late)
		// The answer may have come with the cancellation.
		select {
		case a := <-done:
			if a.err == nil {
				return a.res, nil
			}
		default:
		}
		return applyResult{}, errEditUnknown
	}
}

// Write implements workspace.Editor. When the client offers diagnostics,
// the result's note ends with what the editor's servers report for the
// file after the change.
func (e *editor) Write(ctx context.Context, req workspace.WriteRequest) (workspace.WriteResult, error) {
	res, err := e.write(ctx, req)
	if err != nil || !e.s.clientCaps().diagnostics || (!res.InBuffer && !res.Saved) {
		return res, err
	}
	cf := changedFile{abs: req.Abs}
	if res.InBuffer {
		if buf, ok := e.f.WS.Buffer(req.Abs); ok {
			cf.version = &buf.Version
		}
	}
	if d := e.diagnosticsAfter(ctx, []changedFile{cf}); d != "" {
		res.Note = joinNote(res.Note, d)
	}
	return res, nil
}

func (e *editor) write(ctx context.Context, req workspace.WriteRequest) (workspace.WriteResult, error) {
	d, open := e.s.docByPath(req.Abs)
	buf, inOverlay := e.f.WS.Buffer(req.Abs)
	c := e.s.clientCaps()
	if !open || !inOverlay {
		return e.disk().Write(ctx, req)
	}
	rel := e.f.WS.Rel(req.Abs)
	if !c.applyEdit {
		res, err := e.disk().Write(ctx, req)
		if err == nil {
			res.Note = joinNote(res.Note, fmt.Sprintf("%s is open in the editor, which does not accept edits from agentls; the change was written to disk", rel))
		}
		return res, err
	}
	if req.Version >= 0 && req.Version != buf.Version {
		return workspace.WriteResult{}, fmt.Errorf("the editor buffer of %s changed since you read it (version %d, you read version %d); read it again", rel, buf.Version, req.Version)
	}
	newText := req.Text
	if strings.Contains(buf.Text, "\r\n") && !strings.Contains(newText, "\r\n") {
		newText = strings.ReplaceAll(newText, "\n", "\r\n")
	}
	edits := minimalEdits(buf.Text, newText, c.enc)
	if len(edits) == 0 {
		return workspace.WriteResult{InBuffer: true, Saved: !buf.Dirty, Note: "the buffer already had this text"}, nil
	}
	var edit protocol.WorkspaceEdit
	addTextEdits(&edit, c.documentChanges, d.uri, buf.Version, edits)
	// The overlay takes the edit as soon as the editor accepts it: the next
	// read sees it even when the editor reports its buffer late.
	res, err := e.applyEdit(ctx, "agentls: edit "+rel, edit, func() {
		e.s.applied(d.uri, buf.Version, buf.Version+1, newText, nil)
	})
	if errors.Is(err, errEditUnknown) {
		return workspace.WriteResult{}, fmt.Errorf("the call ended before the editor answered the edit of %s; the edit may still land in its buffer: read the file again before editing it", rel)
	}
	if err != nil {
		return workspace.WriteResult{}, err
	}
	if !res.Applied {
		reason := ""
		if res.FailureReason != "" {
			reason = " (" + res.FailureReason + ")"
		}
		return workspace.WriteResult{}, fmt.Errorf("the editor refused the edit of %s%s: its buffer changed; read it again", rel, reason)
	}
	out := workspace.WriteResult{InBuffer: true}
	st := e.f.currentSettings()
	switch {
	case buf.Dirty:
		out.Note = fmt.Sprintf("the change is in the editor buffer of %s, which has unsaved changes of the user; it is not on disk yet", rel)
	case !c.saveDocument || !st.SaveAfterEdit:
		out.Note = fmt.Sprintf("the change is in the editor buffer of %s; it is not saved to disk", rel)
	default:
		saved, err := e.save(ctx, d.uri)
		if err != nil || !saved {
			why := "the editor did not save it"
			if err != nil {
				why = err.Error()
			}
			out.Note = fmt.Sprintf("the change is in the editor buffer of %s but not on disk: %s", rel, why)
		} else {
			out.Saved = true
		}
	}
	return out, nil
}

// save asks the client to save a buffer (agentls/saveDocument).
func (e *editor) save(ctx context.Context, uri string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, e.s.opts.ApplyEditTimeout)
	defer cancel()
	var res struct {
		Saved bool `json:"saved"`
	}
	if err := e.s.conn.Call(ctx, "agentls/saveDocument", protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(uri)}, &res); err != nil {
		return false, fmt.Errorf("saving failed: %w", err)
	}
	return res.Saved, nil
}

// openUnder lists the open documents at path or below it.
func (e *editor) openUnder(path string) []document {
	e.s.mu.Lock()
	defer e.s.mu.Unlock()
	var out []document
	for _, d := range e.s.docs {
		if d.path == path || strings.HasPrefix(d.path, path+string(filepath.Separator)) {
			out = append(out, *d)
		}
	}
	return out
}

func (e *editor) resourceOp(kind string) bool {
	c := e.s.clientCaps()
	return c.applyEdit && c.documentChanges && slices.Contains(c.resourceOps, kind)
}

func (e *editor) Rename(ctx context.Context, from, to string, overwrite bool) (string, error) {
	open := e.openUnder(from)
	if len(open) == 0 {
		return e.disk().Rename(ctx, from, to, overwrite)
	}
	if !e.resourceOp("rename") {
		note, err := e.disk().Rename(ctx, from, to, overwrite)
		if err == nil {
			note = joinNote(note, fmt.Sprintf("%s is open in the editor, which cannot follow the move: its buffer still shows the old path", e.f.WS.Rel(from)))
		}
		return note, err
	}
	if _, err := os.Lstat(to); err == nil && !overwrite {
		return "", fmt.Errorf("%s already exists; pass overwrite to replace it", e.f.WS.Rel(to))
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return "", fmt.Errorf("creating the parent of %s: %w", e.f.WS.Rel(to), err)
	}
	op := protocol.RenameFile{Kind: "rename", OldURI: protocol.DocumentURI(pathToURI(from)), NewURI: protocol.DocumentURI(pathToURI(to))}
	if overwrite {
		op.Options = &protocol.RenameFileOptions{Overwrite: true}
	}
	res, err := e.applyEdit(ctx, "agentls: move "+e.f.WS.Rel(from), fileOpEdit[protocol.RenameFile]{DocumentChanges: []protocol.RenameFile{op}}, func() {
		e.f.WS.NotifyChanged(from)
		e.f.WS.NotifyChanged(to)
	})
	if errors.Is(err, errEditUnknown) {
		return "", fmt.Errorf("the call ended before the editor answered the move of %s; it may still happen: list the folder again", e.f.WS.Rel(from))
	}
	if err != nil {
		return "", err
	}
	if !res.Applied {
		return "", fmt.Errorf("the editor refused to move %s: %s", e.f.WS.Rel(from), res.FailureReason)
	}
	return "moved through the editor; its open buffer follows the file", nil
}

func (e *editor) Delete(ctx context.Context, abs string, recursive bool) (string, error) {
	open := e.openUnder(abs)
	if len(open) == 0 {
		return e.disk().Delete(ctx, abs, recursive)
	}
	rel := e.f.WS.Rel(abs)
	if !e.resourceOp("delete") {
		note, err := e.disk().Delete(ctx, abs, recursive)
		if err == nil {
			note = joinNote(note, fmt.Sprintf("%s was open in the editor: its buffer still holds the text", rel))
		}
		return note, err
	}
	if rel == "." || rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return "", fmt.Errorf("refusing to delete %s", rel)
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return "", fmt.Errorf("%s does not exist", rel)
	}
	if fi.IsDir() && !recursive {
		return "", fmt.Errorf("%s is a directory; pass recursive to delete it", rel)
	}
	op := protocol.DeleteFile{Kind: "delete", URI: protocol.DocumentURI(pathToURI(abs))}
	if recursive {
		op.Options = &protocol.DeleteFileOptions{Recursive: true}
	}
	res, err := e.applyEdit(ctx, "agentls: delete "+rel, fileOpEdit[protocol.DeleteFile]{DocumentChanges: []protocol.DeleteFile{op}}, func() {
		e.f.WS.NotifyChanged(abs)
	})
	if errors.Is(err, errEditUnknown) {
		return "", fmt.Errorf("the call ended before the editor answered the deletion of %s; it may still happen: list the folder again", rel)
	}
	if err != nil {
		return "", err
	}
	if !res.Applied {
		return "", fmt.Errorf("the editor refused to delete %s: %s", rel, res.FailureReason)
	}
	return "deleted through the editor, which closed its buffer", nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func (s *Server) clientCaps() clientInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}
