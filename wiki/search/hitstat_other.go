//go:build !linux

package search

import "os"

// hitStats lstats the files of search hits (see hitstat_linux.go); here
// with os.Root.Lstat.
type hitStats struct{}

// stat returns the lstat of each of rels (nil for one that fails).
func (s *hitStats) stat(root *os.Root, rels []string) []os.FileInfo {
	out := make([]os.FileInfo, len(rels))
	for i, rel := range rels {
		out[i], _ = root.Lstat(rel)
	}
	return out
}

func (s *hitStats) close() {}

func sameFile(a, b os.FileInfo) bool { return os.SameFile(a, b) }
