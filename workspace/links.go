package workspace

import (
	"context"
	"io/fs"
	"path/filepath"
	"sync"
	"time"
)

// fileID is a file's identity on disk: (device, inode).
type fileID struct{ dev, ino uint64 }

// linkInfo is what a stat says of a file's links.
type linkInfo struct {
	id    fileID
	nlink uint64
	ctime int64 // inode change time, Unix ns; 0 when not known
}

// deniedIDs is the set of identities of the denied regular files of the
// folder, so that a hard link to one made elsewhere in the folder (under a
// name the deny list does not cover) is denied too. Only a file with more
// than one link needs the look-up (most files have one: the set is never
// built for them). The set is built by a walk of the folder when such a
// file is first read, and built again when the deny list changed, when a
// file it does not hold changed its links (or name, or content) since
// shortly before the walk began (its inode change time: a link to a denied
// file made after the walk) and the set is older than that walk took, or
// when it is older than linkSetTTL and ten times the last walk's duration
// (so that a search meeting many hard links spends at most about a tenth
// of its time walking for them, and no more than half when they are being
// written meanwhile).
type deniedIDs struct {
	mu      sync.Mutex
	ids     map[fileID]bool
	version uint64
	start   int64 // when the walk began, Unix ns
	built   time.Time
	took    time.Duration
}

const linkSetTTL = time.Second

// ctimeSlack allows for a file system's coarse timestamps (a clock tick
// behind the time of day).
const ctimeSlack = int64(50 * time.Millisecond)

// deniedLink reports whether the file st (a file with more than one link
// that was read by a name not on the deny list) is a denied file by
// another name.
func (w *Workspace) deniedLink(st fs.FileInfo) bool {
	li, ok := statID(st)
	return ok && w.deniedID(li)
}

// deniedID reports whether the file li is a denied file of the folder (by
// any of its names).
func (w *Workspace) deniedID(li linkInfo) bool {
	if li.nlink < 2 {
		return false
	}
	d := &w.linked
	d.mu.Lock()
	defer d.mu.Unlock()
	v := w.DenyVersion()
	age := time.Since(d.built)
	if d.ids == nil || d.version != v || age > max(linkSetTTL, 10*d.took) ||
		!d.ids[li.id] && li.ctime != 0 && li.ctime >= d.start-ctimeSlack && age > d.took {
		start := time.Now()
		d.ids, d.version = w.walkDeniedIDs(), v
		d.start, d.built, d.took = start.UnixNano(), time.Now(), time.Since(start)
	}
	return d.ids[li.id]
}

// walkDeniedIDs collects the identities of the denied regular files of the
// folder: a walk of everything (hidden, ignored, denied) that stats only
// the denied files.
func (w *Workspace) walkDeniedIDs() map[fileID]bool {
	var mu sync.Mutex
	ids := map[fileID]bool{}
	opts := WalkOptions{Hidden: true, IncludeIgnored: true, IncludeDenied: true, NoStat: true, Parallel: 2}
	w.Walk(context.Background(), "", opts, func(e WalkEntry) error {
		if e.IsDir || !e.Mode.IsRegular() || !w.Denied(e.Rel) {
			return nil
		}
		if fi, err := lstatAbs(e.Abs); err == nil {
			if li, ok := statID(fi); ok {
				mu.Lock()
				ids[li.id] = true
				mu.Unlock()
			}
		}
		return nil
	})
	// The walk never enters .git; submodules' configs (on the default
	// list) are found by name, a few levels deep.
	for _, pat := range []string{".git/modules/*/config", ".git/modules/*/modules/*/config", ".git/modules/*/modules/*/modules/*/config"} {
		matches, _ := filepath.Glob(filepath.Join(w.root, filepath.FromSlash(pat)))
		for _, abs := range matches {
			if fi, err := lstatAbs(abs); err == nil && fi.Mode().IsRegular() && w.Denied(abs) {
				if li, ok := statID(fi); ok {
					ids[li.id] = true
				}
			}
		}
	}
	return ids
}

// IsDeniedLink reports whether the regular file at abs (not followed if a
// symlink) is a hard link to a denied file of the folder under a name the
// deny list does not cover; such a file reads as missing.
func (w *Workspace) IsDeniedLink(abs string) bool {
	fi, err := lstatAbs(abs)
	return err == nil && fi.Mode().IsRegular() && w.deniedLink(fi)
}

// contentDenied reports whether c, read from abs, is a denied file's under
// another name: its disk file's identity, or for an open buffer the
// identity of the file on disk at abs.
func (w *Workspace) contentDenied(abs string, c Content) bool {
	if c.info != nil {
		return w.deniedLink(c.info)
	}
	return c.FromBuffer && w.IsDeniedLink(abs)
}
