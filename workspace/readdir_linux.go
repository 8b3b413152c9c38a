package workspace

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// readDir fills s.ents with the entries of dir using getdents64 directly:
// no os.File, no poller registration, no allocation per entry.
//
// With root set (the walk's: s.root holds the workspace's folder), dir is
// opened beneath the folder's descriptor (see openBeneath): a directory of
// the tree swapped for a symlink that leads out, after the walk saw it as a
// directory, is refused rather than listed. Unless follow, no symlink is
// followed (the walk never follows; the directory a walk starts at may be a
// symlink inside the folder). Without root, dir is opened by path (tests).
// With s.ignores the directory's ignore files are read relative to the
// same descriptor, so they too come from the directory that was checked.
func readDir(s *dirScratch, dir, root string, follow bool) error {
	var fd int
	var err error
	if root == "" {
		fd, err = openDirPath(dir, follow)
	} else {
		fd, err = s.openBeneath(dir, root, follow)
	}
	if err != nil {
		return err
	}
	defer sysClose(fd)
	if len(s.buf) == 0 {
		s.buf = make([]byte, 32<<10)
	}
	s.arena, s.ents = s.arena[:0], s.ents[:0]
	s.gitignore, s.ignore = nil, nil
	for {
		n, err := sysGetdents(fd, s.buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			break
		}
		b := s.buf[:n]
		for len(b) >= 19 {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			ino := binary.NativeEndian.Uint64(b[0:8])
			dtype := b[18]
			name := b[19:reclen]
			if i := indexNUL(name); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if ino == 0 || len(name) == 0 || name[0] == '.' && (len(name) == 1 || len(name) == 2 && name[1] == '.') {
				continue
			}
			typ, known := direntType(dtype)
			ent := dirent{off: len(s.arena), n: len(name), typ: typ, known: known}
			if s.wantStat(name, known) {
				// Relative to fd: the directory that was listed and checked.
				var st unix.Stat_t
				err := unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW)
				for err == unix.EINTR {
					err = unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW)
				}
				if err == nil {
					ent.statted, ent.mode, ent.size, ent.mtime = true, fileMode(st.Mode), st.Size, st.Mtim.Nano()
					ent.link = linkInfo{id: fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nlink: uint64(st.Nlink), ctime: st.Ctim.Nano()}
				}
			}
			s.ents = append(s.ents, ent)
			s.arena = append(s.arena, name...)
			if s.ignores && name[0] == '.' {
				switch string(name) {
				case ".gitignore":
					s.gitignore = readAt(fd, ".gitignore")
				case ".ignore":
					s.ignore = readAt(fd, ".ignore")
				}
			}
		}
	}
	return nil
}

// fileMode is the fs.FileMode of a stat mode, as os.Lstat gives it.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// readAt returns the content of the regular file name in the open
// directory dirfd (a final symlink is followed, as os.ReadFile would), or
// nil.
func readAt(dirfd int, name string) []byte {
	fd, err := syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	}
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil
	}
	data, _, err := readFD(fd, st.Size, 0, make([]byte, 0, st.Size+1), nil)
	if err != nil {
		return nil
	}
	return data
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

func direntType(t uint8) (fs.FileMode, bool) {
	switch t {
	case syscall.DT_REG:
		return 0, true
	case syscall.DT_DIR:
		return fs.ModeDir, true
	case syscall.DT_LNK:
		return fs.ModeSymlink, true
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe, true
	case syscall.DT_SOCK:
		return fs.ModeSocket, true
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case syscall.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}

// openDirPath opens the directory dir by path (nothing checks where it is).
func openDirPath(dir string, follow bool) (int, error) {
	flags := syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_CLOEXEC
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	fd, err := syscall.Open(dir, flags, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(dir, flags, 0)
	}
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return fd, nil
}

// openBeneath opens the directory dir (root or under it) beneath the
// descriptor of the folder root that s.root holds: the root itself as "."
// of it, another directory with no symlink on the way (openDirBeneath), or,
// with follow, with symlinks that stay inside followed (openat2
// RESOLVE_BENEATH, else os.Root).
func (s *dirScratch) openBeneath(dir, root string, follow bool) (int, error) {
	rel, ok := relBeneath(root, dir)
	if !ok || s.root == nil {
		return -1, &fs.PathError{Op: "open", Path: dir, Err: ErrOutside}
	}
	var fd int
	var err error
	switch {
	case rel == ".":
		fd, err = unix.Openat(s.root.fd, ".", dirFlags, 0)
		for err == unix.EINTR {
			fd, err = unix.Openat(s.root.fd, ".", dirFlags, 0)
		}
	case follow:
		fd, err = s.root.openFollow(filepath.ToSlash(rel), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	default:
		fd, err = openDirBeneath(s.root.fd, filepath.ToSlash(rel))
	}
	if err != nil {
		if err == unix.ELOOP || err == unix.EXDEV || err == unix.ENOTDIR {
			err = fmt.Errorf("%w: a directory on the way is no longer a directory inside the folder (the tree changed during the walk)", ErrOutside)
		}
		return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return fd, nil
}
