package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// A Workspace is one workspace folder: its root, the overlay of open editor
// buffers over the disk, and the locks that serialise writes. It is safe for
// concurrent use.
//
// Paths handed to a Workspace are absolute and cleaned; Resolve turns what a
// tool was given into such a path and refuses anything outside the root.
type Workspace struct {
	root string // absolute, symlinks resolved, cleaned

	src    Source // the read view: overlay over Disk{Root: root}
	rawSrc Source // the same over Disk{NoFollow: true, Root: root}, for ReadRaw

	// mu guards writers of bufs, waiters and subs. Readers load bufs
	// without it: the map it points to is never modified once published.
	mu      sync.Mutex
	bufs    atomic.Pointer[map[string]*overlay]
	changed chan struct{} // closed and replaced on every overlay change
	subs    map[int]func(path string)
	nextSub int
	unsaved atomic.Uint64 // see UnsavedVersion

	locksMu sync.Mutex
	locks   map[string]*pathLock

	deny        atomic.Pointer[denyList] // nil: DefaultDeny only
	denyVersion atomic.Uint64            // SetDeny calls
	linked      deniedIDs                // identities of denied files (hard links)

	dir rootDir // the hold on the folder: every read, walk and write beneath it

	tablesMu sync.Mutex
	tables   map[[2]bool]*FileTable // by hidden, includeIgnored
}

// New returns the workspace rooted at root, which must be a directory. The
// root is made absolute and its symlinks are resolved, so that Root and
// every path the workspace hands out are canonical.
func New(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("workspace root %q is not a directory", root)
	}
	w := &Workspace{
		root:    filepath.Clean(real),
		changed: make(chan struct{}),
		subs:    map[int]func(string){},
		locks:   map[string]*pathLock{},
	}
	w.src = overlaySource{w: w, next: Disk{Root: w.root, w: w}}
	w.rawSrc = overlaySource{w: w, next: Disk{NoFollow: true, Root: w.root, w: w}}
	empty := map[string]*overlay{}
	w.bufs.Store(&empty)
	return w, nil
}

// Root is the absolute, symlink-resolved root directory.
func (w *Workspace) Root() string { return w.root }

// Contains reports whether the absolute path abs is the root or lies under
// it. The test is lexical and component-wise (/src-evil is not inside /src);
// it does not resolve symlinks — Resolve does.
func (w *Workspace) Contains(abs string) bool {
	return within(w.root, filepath.Clean(abs))
}

// Rel is the '/'-separated path of abs relative to the root ("." for the
// root itself). For a path outside the root it returns abs unchanged (with
// '/' separators), so that messages stay readable.
func (w *Workspace) Rel(abs string) string {
	abs = filepath.Clean(abs)
	if !within(w.root, abs) {
		return filepath.ToSlash(abs)
	}
	if abs == w.root {
		return "."
	}
	return filepath.ToSlash(abs[len(w.root)+len(sepAfter(w.root)):])
}

// ErrOutside is wrapped by every confinement refusal.
var ErrOutside = errors.New("path is outside the workspace")

// Resolve turns p — relative to the root, or absolute — into a cleaned
// absolute path inside the workspace and its '/'-separated relative form
// ("." for the root). An empty p is the root.
//
// It refuses, with an error that wraps ErrOutside and names the root:
// paths that leave the root lexically ("../x", "/etc/passwd"), and paths
// whose symlinks lead out. For the symlink check the deepest existing
// ancestor of p is resolved (links followed one by one, dangling ones
// included) and the result compared component by component with the root.
//
// A path on the secrets deny list (see DefaultDeny), as named or where its
// symlinks lead, gets an error wrapping fs.ErrNotExist that reads exactly
// like a missing file's, whether it exists or not.
//
// The returned abs is the path as named (symlinks inside the root are kept
// as they are), so that it matches the editor's buffer keys; only an
// absolute p that reaches the root through a symlinked alias is returned in
// its resolved form.
func (w *Workspace) Resolve(p string) (abs, rel string, err error) {
	abs, rel, real, err := w.resolve(p)
	if err != nil {
		return "", "", err
	}
	if w.deniedPath(abs, real) {
		return "", "", errDenied{rel: rel}
	}
	return abs, rel, nil
}

// resolve is Resolve without the deny list; it also returns where abs's
// symlinks lead.
func (w *Workspace) resolve(p string) (abs, rel, real string, err error) {
	if strings.ContainsRune(p, 0) {
		return "", "", "", fmt.Errorf("path %q contains a NUL byte", p)
	}
	if p == "" {
		p = "."
	}
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
	} else {
		abs = filepath.Join(w.root, p)
	}
	if !within(w.root, abs) {
		// An absolute path may still name the root through a symlinked
		// alias (/var -> /private/var); accept it in resolved form.
		if filepath.IsAbs(p) {
			if real, rerr := resolveLinks(abs); rerr == nil && within(w.root, real) {
				return real, w.Rel(real), real, nil
			}
		}
		return "", "", "", w.outside(p)
	}
	real, err = resolveLinks(abs)
	if err != nil {
		return "", "", "", fmt.Errorf("resolve %s: %w", p, err)
	}
	if !within(w.root, real) {
		return "", "", "", fmt.Errorf("%w: %s leads through a symlink to %s, outside the workspace root %s",
			ErrOutside, p, real, w.root)
	}
	return abs, w.Rel(abs), real, nil
}

// ResolveWrite is Resolve for a path about to be written, renamed or
// deleted: it also refuses anything inside a .git directory (and .git
// itself), whether named directly or reached through a symlink, and
// anything on the secrets deny list (which Resolve treats as missing). The
// root itself is accepted here; Delete refuses it.
func (w *Workspace) ResolveWrite(p string) (abs, rel string, err error) {
	abs, rel, real, err := w.resolve(p)
	if err != nil {
		return "", "", err
	}
	if inGitDir(rel) {
		return "", "", fmt.Errorf("refusing to write %s: files inside .git are managed by git", rel)
	}
	if real != abs && within(w.root, real) {
		if r := w.Rel(real); inGitDir(r) {
			return "", "", fmt.Errorf("refusing to write %s: it leads to %s, inside .git", rel, r)
		}
	}
	if w.deniedPath(abs, real) {
		return "", "", fmt.Errorf("refusing to write %s: it is on the workspace's secrets deny list (setting secrets.deny), so the agent may neither read nor change it", rel)
	}
	return abs, rel, nil
}

func (w *Workspace) outside(p string) error {
	return fmt.Errorf("%w: %s is not inside the workspace root %s; use a path relative to the root",
		ErrOutside, p, w.root)
}

// inGitDir reports whether a '/'-separated relative path is .git or lies
// under any directory named .git.
func inGitDir(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if part == ".git" {
			return true
		}
	}
	return false
}

// within reports whether path is root or under it, component-wise. Both
// must be clean and absolute.
func within(root, path string) bool {
	if path == root {
		return true
	}
	if !strings.HasPrefix(path, root) {
		return false
	}
	if strings.HasSuffix(root, string(filepath.Separator)) { // "/" or "C:\"
		return true
	}
	return path[len(root)] == filepath.Separator
}

// sepAfter is the separator that follows root in a path under it ("" when
// root already ends in one).
func sepAfter(root string) string {
	if strings.HasSuffix(root, string(filepath.Separator)) {
		return ""
	}
	return string(filepath.Separator)
}

// maxLinks bounds symlink hops, like the kernel's MAXSYMLINKS.
const maxLinks = 40

// resolveLinks resolves every symlink along the absolute path p, including
// a dangling final link, and returns the cleaned result. Components that do
// not exist are appended lexically: the result is where p would lead if it
// were created.
func resolveLinks(p string) (string, error) {
	vol := filepath.VolumeName(p)
	rest := p[len(vol):]
	done := vol + string(filepath.Separator)
	hops := 0
	missing := false
	for rest != "" {
		rest = strings.TrimLeft(rest, string(filepath.Separator))
		if rest == "" {
			break
		}
		name := rest
		if i := strings.IndexByte(rest, filepath.Separator); i >= 0 {
			name, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		switch name {
		case ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, name)
		if missing {
			done = next
			continue
		}
		st, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				missing = true
				done = next
				continue
			}
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		hops++
		if hops > maxLinks {
			return "", fmt.Errorf("too many levels of symbolic links at %s", next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			vol = filepath.VolumeName(target)
			done = vol + string(filepath.Separator)
			target = target[len(vol):]
		}
		rest = target + string(filepath.Separator) + rest
	}
	return filepath.Clean(done), nil
}
