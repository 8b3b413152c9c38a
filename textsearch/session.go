package textsearch

import (
	"maps"
	"sync"

	"github.com/agentls/agentls/workspace"
)

// sessionTables are a session's content caches over the workspace's file
// tables, one per walk option set, kept from the session's second search on
// (a session that searches once, like the command line's, walks and
// searches in one pass).
type sessionTables struct {
	mu       sync.Mutex
	searches int
	tables   map[[2]bool]*Table
	cancel   func()
}

type sessionTablesKey struct{}

// SessionTable returns the session's table of the files a walk with opts
// (of the whole folder) lists, or nil on the session's first search. The
// file list is the workspace's (Workspace.FileTable: it follows the disk,
// the buffers and the deny list); the table keeps file contents within the
// session's grep.cacheMB setting (DefaultCacheBudget when unset), dropped
// as the workspace reports changes. It lives as long as the session.
func SessionTable(s *workspace.Session, opts workspace.WalkOptions) *Table {
	st := s.Attach(sessionTablesKey{}, func() any {
		return &sessionTables{tables: map[[2]bool]*Table{}}
	}).(*sessionTables)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.searches++
	if st.searches == 1 || st.tables == nil { // first search, or closed
		return nil
	}
	if st.cancel == nil {
		st.cancel = s.WS.OnChange(func(path string) {
			st.mu.Lock()
			tables := maps.Clone(st.tables)
			st.mu.Unlock()
			for _, t := range tables {
				t.Invalidate(path)
			}
		})
	}
	key := [2]bool{opts.Hidden, opts.IncludeIgnored}
	t := st.tables[key]
	if t == nil {
		budget := int64(DefaultCacheBudget)
		var mb int64
		if s.Setting("grep.cacheMB", &mb) && mb >= 0 {
			budget = mb << 20
		}
		t = NewTable(s.WS, s.WS.FileTable(opts.Hidden, opts.IncludeIgnored), budget)
		st.tables[key] = t
	}
	return t
}

// Close stops following the workspace's changes.
func (st *sessionTables) Close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.cancel != nil {
		st.cancel()
		st.cancel = nil
	}
	st.tables = nil
	return nil
}
