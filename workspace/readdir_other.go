//go:build !linux

package workspace

// readDir lists dir. Here it does not check that dir stays under root when
// the tree changes during a walk (readdir_linux.go does).
func readDir(s *dirScratch, dir, root string, follow bool) error { return readDirPortable(s, dir) }
