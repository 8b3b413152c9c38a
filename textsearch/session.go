package textsearch

import (
	"context"
	"maps"
	"sync"

	"github.com/agentls/agentls/workspace"
)

// sessionTables are a session's resident file tables, one per walk option
// set, kept from the session's second search on (a session that searches
// once, like the command line's, walks and searches in one pass).
type sessionTables struct {
	mu       sync.Mutex
	searches int
	tables   map[[2]bool]*Table
	skipped  map[[2]bool]*workspace.Skipped // what each table's last walk passed over
	deny     uint64                         // the deny list version the tables were walked with
	cancel   func()
}

type sessionTablesKey struct{}

// SessionTable returns the session's table of the files a walk with opts
// (of the whole folder) lists, or nil on the session's first search, and
// what the table's walk passed over. The table follows the workspace's
// changes and its deny list; its file contents are kept within the
// session's grep.cacheMB setting (DefaultCacheBudget when unset). It lives
// as long as the session.
func SessionTable(s *workspace.Session, opts workspace.WalkOptions) (*Table, *workspace.Skipped) {
	st := s.Attach(sessionTablesKey{}, func() any {
		return &sessionTables{tables: map[[2]bool]*Table{}, skipped: map[[2]bool]*workspace.Skipped{}, deny: s.WS.DenyVersion()}
	}).(*sessionTables)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.searches++
	if st.searches == 1 || st.tables == nil { // first search, or closed
		return nil, nil
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
	if v := s.WS.DenyVersion(); v != st.deny {
		// The deny list changed: the tables' file lists may hold files now
		// denied (or lack files allowed again); walk afresh.
		clear(st.tables)
		clear(st.skipped)
		st.deny = v
	}
	key := [2]bool{opts.Hidden, opts.IncludeIgnored}
	t := st.tables[key]
	if t == nil {
		budget := int64(DefaultCacheBudget)
		var mb int64
		if s.Setting("grep.cacheMB", &mb) && mb >= 0 {
			budget = mb << 20
		}
		ws := s.WS
		skipped := &workspace.Skipped{}
		st.skipped[key] = skipped
		opts.Skipped = skipped
		t = NewTable(ws.Root(), func(ctx context.Context, fn func(abs, rel string, isDir bool)) error {
			skipped.Reset()
			return ws.Walk(ctx, ws.Root(), opts, func(e workspace.WalkEntry) error {
				if e.IsDir || e.Mode.IsRegular() {
					fn(e.Abs, e.Rel, e.IsDir)
				}
				return nil
			})
		}, budget)
		t.ws = ws // a hard link to a denied file is passed over
		t.FollowGen(ws.UnsavedVersion)
		st.tables[key] = t
	}
	return t, st.skipped[key]
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
