//go:build !linux

package workspace

func readDir(s *dirScratch, dir string) error { return readDirPortable(s, dir) }
