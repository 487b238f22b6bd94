//go:build !linux

package store

import "os"

// StatCache lstats files (see statcache_linux.go); here with
// os.Root.Lstat.
type StatCache struct{}

// Lstat returns the lstat of each of rels (nil for one that fails).
func (s *StatCache) Lstat(root *os.Root, rels []string) []os.FileInfo {
	out := make([]os.FileInfo, len(rels))
	for i, rel := range rels {
		out[i], _ = root.Lstat(rel)
	}
	return out
}

// Close releases nothing here.
func (s *StatCache) Close() {}

// SameFile is os.SameFile.
func SameFile(a, b os.FileInfo) bool { return os.SameFile(a, b) }
