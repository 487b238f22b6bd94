package store

import (
	"io/fs"
	"sort"
	"strings"
)

// SkipNotRegular is the reason a scan gives for a FIFO, socket, device or
// other file that is not a regular file (never opened, see [ErrNotRegular]).
const SkipNotRegular = "not a regular file"

// SkipExamples is the most example paths a [Skips] report names per
// reason.
const SkipExamples = 3

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

// Set records that rel is skipped for reason; reason "" forgets rel (it
// is held now, or gone).
func (s *Skips) Set(rel, reason string) {
	if reason == "" {
		delete(s.m, rel)
		return
	}
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

// ResetReason replaces the files skipped for reason by paths (what a full
// scan found for that reason), leaving the other reasons as they are.
func (s *Skips) ResetReason(reason string, paths []string) {
	for p, r := range s.m {
		if r == reason {
			delete(s.m, p)
		}
	}
	for _, p := range paths {
		s.Set(p, reason)
	}
}

// Len is the number of skipped files.
func (s *Skips) Len() int { return len(s.m) }

// Report returns the count per reason and, per reason, the first
// [SkipExamples] paths in path order; both nil when nothing is skipped.
func (s *Skips) Report() (counts map[string]int, examples map[string][]string) {
	if len(s.m) == 0 {
		return nil, nil
	}
	counts = map[string]int{}
	examples = map[string][]string{}
	for p, why := range s.m {
		counts[why]++
		examples[why] = append(examples[why], p)
	}
	for why, ps := range examples {
		sort.Strings(ps)
		if len(ps) > SkipExamples {
			examples[why] = ps[:SkipExamples:SkipExamples]
		}
	}
	return counts, examples
}
