package builtin

import (
	"strings"
	"testing"
)

func TestNotebookEdit(t *testing.T) {
	ctx, s := newTestSession(t, testdataArchive(t, "notebook.txtar"))
	edit := `{"path":"nb.ipynb","cell_id":"calc","new_source":"print(42)"}`
	wantErr(t, ctx, "notebook_edit", edit, "read nb.ipynb before editing it")
	mustExec(t, ctx, "read_file", `{"path":"nb.ipynb","limit":5}`)
	out := mustExec(t, ctx, "notebook_edit", edit)
	want := `Replaced code cell 1 (id calc) in nb.ipynb. Its outputs and execution count were cleared.
--- a/nb.ipynb cell 1
+++ b/nb.ipynb cell 1
@@ -1,2 +1 @@
-x = 1
-print(x + 1)
+print(42)`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	nb := readWS(t, s, "nb.ipynb")
	if !strings.Contains(nb, "   \"outputs\": [],\n   \"source\": [\n    \"print(42)\"\n   ]\n") {
		t.Errorf("notebook:\n%s", nb)
	}
	// Its own write counts as read: go on inserting and deleting.
	out = mustExec(t, ctx, "notebook_edit", `{"path":"nb.ipynb","edit_mode":"insert","cell_type":"markdown","new_source":"## Part 2","cell_number":3}`)
	wantOut(t, out, "Inserted markdown cell 3 (id ", ") in nb.ipynb.", "+## Part 2")
	out = mustExec(t, ctx, "notebook_edit", `{"path":"nb.ipynb","edit_mode":"delete","cell_id":"intro"}`)
	wantOut(t, out, "Deleted markdown cell 0 (id intro) from nb.ipynb.", "-# Title")
	if cs := cells(t, readWS(t, s, "nb.ipynb")); len(cs) != 3 || cs[0]["id"] != "calc" || cs[2]["cell_type"] != "markdown" {
		t.Errorf("cells = %v", cs)
	}
	out = mustExec(t, ctx, "notebook_edit", `{"path":"nb.ipynb","cell_number":0,"cell_type":"markdown"}`)
	wantOut(t, out, "Replaced cell 0 (id calc) in nb.ipynb, now a markdown cell (was code).")
	wantErr(t, ctx, "notebook_edit", `{"path":"nb.ipynb","cell_id":"zzz","new_source":""}`, `nb.ipynb: no cell has id "zzz"`)
	wantErr(t, ctx, "notebook_edit", `{"path":"nb.ipynb","edit_mode":"move","cell_number":0}`, "edit_mode \"move\"")
	wantErr(t, ctx, "notebook_edit", `{"path":"none.ipynb","cell_number":0,"new_source":""}`, "none.ipynb does not exist")
}

func TestNotebookEditCRLF(t *testing.T) {
	ctx, s := newTestSession(t, "")
	nb := strings.ReplaceAll(notebookFile(t, "nb.ipynb"), "\n", "\r\n")
	writeWS(t, s, "w.ipynb", nb)
	mustExec(t, ctx, "read_file", `{"path":"w.ipynb"}`)
	mustExec(t, ctx, "notebook_edit", `{"path":"w.ipynb","cell_id":"empty","new_source":"a\nb"}`)
	got := readWS(t, s, "w.ipynb")
	if strings.Count(got, "\n") != strings.Count(got, "\r\n") {
		t.Errorf("line endings mixed:\n%q", got)
	}
	if !strings.Contains(got, "   \"source\": [\r\n    \"a\\n\",\r\n    \"b\"\r\n   ]\r\n") {
		t.Errorf("notebook:\n%s", got)
	}
}
