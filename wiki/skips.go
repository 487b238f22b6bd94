package wiki

import (
	"io/fs"
	"sort"
	"strings"
)

// SkipNotRegular is the reason a scan gives for a FIFO, socket, device or
// other file that is not a regular file (never opened, see [ErrNotRegular]).
const SkipNotRegular = "not a regular file"

// SkipExamples is the most example paths a [Skips] report names.
const SkipExamples = 5

// IsSpecial reports whether type bits m (of a listing or a stat) are those
// of a file that is neither a regular file, a folder nor a symbolic link:
// a FIFO, socket or device, which no reader opens.
func IsSpecial(m fs.FileMode) bool {
	t := m.Type()
	return t != 0 && t&(fs.ModeDir|fs.ModeSymlink) == 0
}

// Skips is what a scan of the wiki (the search index, the page catalogue)
// left out and why, kept up to date as files come and go: the files by
// path, each with its reason. The zero value is empty. Not safe for
// concurrent use; its owner guards it.
type Skips struct {
	m map[string]string
}

// Set records that rel is skipped for reason.
func (s *Skips) Set(rel, reason string) {
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[rel] = reason
}

// Clear forgets rel (it is indexed now, or gone).
func (s *Skips) Clear(rel string) { delete(s.m, rel) }

// ClearUnder forgets rel and every path under the folder rel.
func (s *Skips) ClearUnder(rel string) {
	for p := range s.m {
		if p == rel || strings.HasPrefix(p, rel+"/") {
			delete(s.m, p)
		}
	}
}

// Reset forgets everything (before a full scan records again).
func (s *Skips) Reset() { s.m = nil }

// Len is the number of skipped files.
func (s *Skips) Len() int { return len(s.m) }

// Report returns the count per reason and the first [SkipExamples] paths
// in path order; both nil when nothing is skipped.
func (s *Skips) Report() (counts map[string]int, examples []string) {
	if len(s.m) == 0 {
		return nil, nil
	}
	counts = map[string]int{}
	paths := make([]string, 0, len(s.m))
	for p, why := range s.m {
		counts[why]++
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) > SkipExamples {
		paths = paths[:SkipExamples]
	}
	return counts, paths
}
