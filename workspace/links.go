package workspace

import (
	"context"
	"io/fs"
	"sync"
	"time"
)

// fileID is a file's identity on disk: (device, inode).
type fileID struct{ dev, ino uint64 }

// deniedIDs is the set of identities of the denied regular files of the
// folder, so that a hard link to one made elsewhere in the folder (under a
// name the deny list does not cover) is denied too. It is built by a walk
// of the denied files when a file with more than one link is read, and
// rebuilt once it is older than linkSetTTL or the deny list changed.
type deniedIDs struct {
	mu      sync.Mutex
	ids     map[fileID]bool
	version uint64
	built   time.Time
}

const linkSetTTL = time.Second

// deniedLink reports whether the file st (a file with more than one link
// that was read by a name not on the deny list) is a denied file by
// another name.
func (w *Workspace) deniedLink(st fs.FileInfo) bool {
	id, nlink, ok := statID(st)
	if !ok || nlink < 2 {
		return false
	}
	d := &w.linked
	d.mu.Lock()
	defer d.mu.Unlock()
	if v := w.DenyVersion(); d.ids == nil || d.version != v || time.Since(d.built) > linkSetTTL {
		ids := map[fileID]bool{}
		opts := WalkOptions{Hidden: true, IncludeIgnored: true, IncludeDenied: true}
		w.Walk(context.Background(), "", opts, func(e WalkEntry) error {
			if e.IsDir || !e.Mode.IsRegular() || !w.Denied(e.Rel) {
				return nil
			}
			if fi, err := lstatAbs(e.Abs); err == nil {
				if id, _, ok := statID(fi); ok {
					ids[id] = true
				}
			}
			return nil
		})
		d.ids, d.version, d.built = ids, v, time.Now()
	}
	return d.ids[id]
}
