package codeindex

import "hash/crc32"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

func (ix *Index) loadCache() (map[string]*fileEntry, error) { return nil, nil }
func (ix *Index) saveCache() error                           { return nil }
