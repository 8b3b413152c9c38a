package builtin

// Surgical editing of Jupyter notebooks: the JSON text is scanned for the
// byte spans of the cells and their members, and only the cell being changed
// is rewritten (in the layout of its neighbours), so every other byte of the
// file keeps its formatting and key order.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/jsonspan"
)

// objStyle is the layout of a JSON object: the space between "{" and the
// first key (also used after each comma), the separator between a key and its
// value, and the space before "}".
type objStyle struct {
	open, sep, close string
}

func (st objStyle) multiline() bool { return strings.Contains(st.open, "\n") }

// indent is the indentation of the object's members.
func (st objStyle) indent() string { return afterNewline(st.open) }

// unit is one level of indentation.
func (st objStyle) unit() string {
	in, out := st.indent(), afterNewline(st.close)
	if u, ok := strings.CutPrefix(in, out); ok && u != "" {
		return u
	}
	return " "
}

func (st objStyle) comma() string {
	if st.multiline() || !strings.Contains(st.sep, " ") {
		return ","
	}
	return ", "
}

func afterNewline(ws string) string {
	return ws[strings.LastIndexByte(ws, '\n')+1:]
}

func styleOf(s string, start, end int, ms []jsonspan.Member) objStyle {
	if len(ms) == 0 {
		return objStyle{sep: ": "}
	}
	return objStyle{
		open:  s[start+1 : ms[0].KeyStart],
		sep:   s[ms[0].KeyEnd:ms[0].ValStart],
		close: s[ms[len(ms)-1].ValEnd : end-1],
	}
}

// nbCell is one cell of a notebook.
type nbCell struct {
	jsonspan.Span
	members []jsonspan.Member
	id, typ string
	source  string // joined
}

// notebook is a parsed nbformat 4 document.
type notebook struct {
	text      string
	minor     int
	root      objStyle
	cellsVal  jsonspan.Span // the "cells" array
	cells     []nbCell
	cellStyle objStyle // layout of a cell: copied from the first one, or derived from the root
}

func parseNotebook(text string) (*notebook, error) {
	var head struct {
		NBFormat      *int              `json:"nbformat"`
		NBFormatMinor int               `json:"nbformat_minor"`
		Cells         []json.RawMessage `json:"cells"`
	}
	if err := json.Unmarshal([]byte(text), &head); err != nil {
		return nil, fmt.Errorf("not valid notebook JSON (%v); fix the file with edit_file or write_file", err)
	}
	if head.NBFormat == nil || *head.NBFormat != 4 {
		v := "none"
		if head.NBFormat != nil {
			v = fmt.Sprint(*head.NBFormat)
		}
		return nil, fmt.Errorf("notebook_edit edits nbformat 4 notebooks; this one's nbformat is %s", v)
	}
	nb := &notebook{text: text, minor: head.NBFormatMinor}
	start := jsonspan.SkipSpace(text, 0)
	rootMs, rootEnd, err := jsonspan.Object(text, start)
	if err != nil {
		return nil, err
	}
	nb.root = styleOf(text, start, rootEnd, rootMs)
	cm, ok := jsonspan.Find(rootMs, "cells")
	if !ok {
		return nil, errors.New(`the notebook has no "cells" array`)
	}
	elems, end, err := jsonspan.Array(text, cm.ValStart)
	if err != nil {
		return nil, errors.New(`the notebook's "cells" is not an array`)
	}
	nb.cellsVal = jsonspan.Span{Start: cm.ValStart, End: end}
	for _, e := range elems {
		ms, _, err := jsonspan.Object(text, e.Start)
		if err != nil {
			return nil, errors.New(`a cell of the notebook is not a JSON object`)
		}
		c := nbCell{Span: e, members: ms}
		if m, ok := jsonspan.Find(ms, "id"); ok {
			_ = json.Unmarshal([]byte(text[m.ValStart:m.ValEnd]), &c.id)
		}
		if m, ok := jsonspan.Find(ms, "cell_type"); ok {
			_ = json.Unmarshal([]byte(text[m.ValStart:m.ValEnd]), &c.typ)
		}
		if m, ok := jsonspan.Find(ms, "source"); ok {
			c.source = decodeSource(text[m.ValStart:m.ValEnd])
		}
		nb.cells = append(nb.cells, c)
	}
	if len(nb.cells) > 0 {
		c := nb.cells[0]
		nb.cellStyle = styleOf(text, c.Start, c.End, c.members)
	} else {
		// An element of "cells" sits one level below the root's members.
		elem := nb.root.indent() + nb.root.unit()
		nb.cellStyle = objStyle{sep: nb.root.sep}
		if nb.root.multiline() {
			nb.cellStyle.open = "\n" + elem + nb.root.unit()
			nb.cellStyle.close = "\n" + elem
		}
	}
	return nb, nil
}

// decodeSource reads a cell's source, a string or a list of strings.
func decodeSource(raw string) string {
	var s string
	if json.Unmarshal([]byte(raw), &s) == nil {
		return s
	}
	var parts []string
	_ = json.Unmarshal([]byte(raw), &parts)
	return strings.Join(parts, "")
}

// jsonString encodes s as Jupyter does: non-ASCII and <>& kept as they are.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// sourceValue renders src the way the cell had it: a plain string stays a
// string, otherwise a list of lines each ending in "\n" (but the last),
// laid out with one line per row when the cell is multi-line.
func sourceValue(src string, asString bool, st objStyle) string {
	if asString {
		return jsonString(src)
	}
	lines := strings.SplitAfter(src, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return "[]"
	}
	enc := make([]string, len(lines))
	for i, l := range lines {
		enc[i] = jsonString(l)
	}
	if !st.multiline() {
		return "[" + strings.Join(enc, st.comma()) + "]"
	}
	in := st.indent()
	return "[\n" + in + st.unit() + strings.Join(enc, ",\n"+in+st.unit()) + "\n" + in + "]"
}

// renderObject writes members (key, raw value) in the layout st.
func renderObject(keys, vals []string, st objStyle) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(st.comma())
		}
		b.WriteString(st.open)
		b.WriteString(jsonString(k))
		b.WriteString(st.sep)
		b.WriteString(vals[i])
	}
	b.WriteString(st.close)
	b.WriteByte('}')
	return b.String()
}

// nbEdit is one notebook_edit request, already checked for its mode.
type nbEdit struct {
	mode     string // replace, insert or delete
	cellID   string
	number   *int
	source   *string
	cellType string
}

// nbResult says what editNotebook did.
type nbResult struct {
	Text       string // the new notebook text
	Index      int    // the cell's index (before deletion, after insertion)
	ID         string
	Type       string
	OldSource  string
	NewSource  string
	Cleared    bool // outputs and execution count cleared
	TypeChange string
}

// editNotebook applies e to the notebook text.
func editNotebook(text string, e nbEdit) (nbResult, error) {
	nb, err := parseNotebook(text)
	if err != nil {
		return nbResult{}, err
	}
	idx, err := nb.target(e)
	if err != nil {
		return nbResult{}, err
	}
	switch e.mode {
	case "insert":
		return nb.insert(idx, e)
	case "delete":
		return nb.delete(idx)
	default:
		return nb.replace(idx, e)
	}
}

// target finds the cell e names: its index, or for insert the index the new
// cell will have.
func (nb *notebook) target(e nbEdit) (int, error) {
	byID := -1
	if e.cellID != "" {
		for i, c := range nb.cells {
			if c.id == e.cellID {
				byID = i
				break
			}
		}
		if byID < 0 {
			return 0, fmt.Errorf("no cell has id %q; %s", e.cellID, nb.idHint())
		}
	}
	if e.number != nil {
		n, limit := *e.number, len(nb.cells)-1
		if e.mode == "insert" {
			limit = len(nb.cells)
		}
		if n < 0 || n > limit {
			return 0, fmt.Errorf("cell_number %d is out of range: the notebook has %d cells, numbered from 0", n, len(nb.cells))
		}
		if byID >= 0 && byID != n && !(e.mode == "insert" && byID+1 == n) {
			return 0, fmt.Errorf("cell_id %q is cell %d, not cell_number %d; pass only one of them", e.cellID, byID, n)
		}
		return n, nil
	}
	switch {
	case byID >= 0 && e.mode == "insert":
		return byID + 1, nil // after the named cell
	case byID >= 0:
		return byID, nil
	case e.mode == "insert":
		return len(nb.cells), nil // at the end
	}
	return 0, errors.New("say which cell: pass cell_id or cell_number (0-based)")
}

func (nb *notebook) idHint() string {
	var ids []string
	for _, c := range nb.cells {
		if c.id != "" {
			ids = append(ids, c.id)
		}
	}
	switch {
	case len(ids) == 0:
		return "this notebook's cells have no ids: pass cell_number (0-based) instead"
	case len(ids) > 12:
		ids = append(ids[:12], "…")
	}
	return "the cells' ids are " + strings.Join(ids, ", ") + " (or pass cell_number, 0-based)"
}

func (nb *notebook) splice(start, end int, repl string) string {
	return nb.text[:start] + repl + nb.text[end:]
}

func (nb *notebook) replace(idx int, e nbEdit) (nbResult, error) {
	c := nb.cells[idx]
	typ := c.typ
	if e.cellType != "" {
		typ = e.cellType
	}
	if e.source == nil && typ == c.typ {
		return nbResult{}, errors.New("new_source is required to replace a cell (or pass a different cell_type to change its type)")
	}
	src := c.source
	if e.source != nil {
		src = toLF(*e.source)
	}
	st := styleOf(nb.text, c.Start, c.End, c.members)
	res := nbResult{Index: idx, ID: c.id, Type: typ, OldSource: c.source, NewSource: src}
	if typ != c.typ {
		res.TypeChange = c.typ
	}
	var keys, vals []string
	has := map[string]bool{}
	for _, m := range c.members {
		raw := nb.text[m.ValStart:m.ValEnd]
		switch m.Key {
		case "source":
			raw = sourceValue(src, strings.HasPrefix(raw, `"`), st)
		case "cell_type":
			raw = jsonString(typ)
		case "outputs", "execution_count":
			if typ != "code" {
				continue // only code cells have them
			}
			if m.Key == "outputs" {
				res.Cleared = res.Cleared || raw != "[]"
				raw = "[]"
			} else {
				res.Cleared = res.Cleared || raw != "null"
				raw = "null"
			}
		}
		has[m.Key] = true
		keys = append(keys, m.Key)
		vals = append(vals, raw)
	}
	if typ != "" {
		// A cell that lacked its type gets the one it now has.
		keys, vals = addMember(keys, vals, has, "cell_type", jsonString(typ))
	}
	if typ == "code" {
		keys, vals = addMember(keys, vals, has, "execution_count", "null")
		keys, vals = addMember(keys, vals, has, "outputs", "[]")
	}
	keys, vals = addMember(keys, vals, has, "source", sourceValue(src, false, st))
	res.Text = nb.splice(c.Start, c.End, renderObject(keys, vals, st))
	return res, nil
}

// addMember adds key when it is missing: in sorted position when the keys are
// sorted (as Jupyter writes them), else at the end.
func addMember(keys, vals []string, has map[string]bool, key, val string) ([]string, []string) {
	if has[key] {
		return keys, vals
	}
	has[key] = true
	at := len(keys)
	if slices.IsSorted(keys) {
		at, _ = slices.BinarySearch(keys, key)
	}
	return slices.Insert(keys, at, key), slices.Insert(vals, at, val)
}

func (nb *notebook) insert(idx int, e nbEdit) (nbResult, error) {
	if e.source == nil {
		return nbResult{}, errors.New("new_source is required to insert a cell")
	}
	typ := e.cellType
	if typ == "" {
		typ = "code"
	}
	src := toLF(*e.source)
	st := nb.cellStyle
	res := nbResult{Index: idx, Type: typ, NewSource: src}
	keys := []string{"cell_type"}
	vals := []string{jsonString(typ)}
	if typ == "code" {
		keys, vals = append(keys, "execution_count"), append(vals, "null")
	}
	if nb.minor >= 5 || slices.ContainsFunc(nb.cells, func(c nbCell) bool { return c.id != "" }) {
		res.ID = nb.newID(src)
		keys, vals = append(keys, "id"), append(vals, jsonString(res.ID))
	}
	keys, vals = append(keys, "metadata"), append(vals, "{}")
	if typ == "code" {
		keys, vals = append(keys, "outputs"), append(vals, "[]")
	}
	keys, vals = append(keys, "source"), append(vals, sourceValue(src, false, st))
	cell := renderObject(keys, vals, st)

	arr := nb.cellsVal
	n := len(nb.cells)
	if n == 0 {
		elem := afterNewline(st.close)
		if nb.root.multiline() {
			cell = "[\n" + elem + cell + "\n" + nb.root.indent() + "]"
		} else {
			cell = "[" + cell + "]"
		}
		res.Text = nb.splice(arr.Start, arr.End, cell)
		return res, nil
	}
	// What follows the comma between two cells: as between the first two,
	// else as after "[" in a multi-line file, else as in the cells' objects.
	sep := nb.text[arr.Start+1 : nb.cells[0].Start]
	if !strings.Contains(sep, "\n") {
		sep = strings.TrimPrefix(st.comma(), ",")
	}
	if n > 1 {
		between := nb.text[nb.cells[0].End:nb.cells[1].Start]
		sep = between[strings.IndexByte(between, ',')+1:]
	}
	if idx < n {
		at := nb.cells[idx].Start
		res.Text = nb.splice(at, at, cell+","+sep)
	} else {
		at := nb.cells[n-1].End
		res.Text = nb.splice(at, at, ","+sep+cell)
	}
	return res, nil
}

func (nb *notebook) delete(idx int) (nbResult, error) {
	c := nb.cells[idx]
	res := nbResult{Index: idx, ID: c.id, Type: c.typ, OldSource: c.source}
	switch {
	case len(nb.cells) == 1:
		res.Text = nb.splice(nb.cellsVal.Start, nb.cellsVal.End, "[]")
	case idx > 0:
		res.Text = nb.splice(nb.cells[idx-1].End, c.End, "")
	default:
		res.Text = nb.splice(c.Start, nb.cells[1].Start, "")
	}
	return res, nil
}

// newID returns a cell id of 8 hex digits, like Jupyter's, unused in nb.
// It is derived from the notebook and the new cell's source rather than
// drawn at random, so that the same edit always gives the same file.
func (nb *notebook) newID(src string) string {
	for n := 0; ; n++ {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%s\x00%s", n, src, nb.text)))
		id := hex.EncodeToString(sum[:4])
		if !slices.ContainsFunc(nb.cells, func(c nbCell) bool { return c.id == id }) {
			return id
		}
	}
}
