package review

import (
	"github.com/llmwiki/llmwiki/wiki/store"
)

// WriteDiffs returns the diffs of one queued write: from the version
// before it to the version it wrote (from snapshots and the current file).
func (s *Service) WriteDiffs(id string) ([]FileDiff, error) {
	q, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	out := make([]FileDiff, 0, len(q.w.Files))
	for _, f := range q.w.Files {
		var gone string
		before, ok := s.version(f.Path, f.Before)
		if !ok {
			gone = "(the version before this write is no longer stored: the snapshot retention pruned it)"
		}
		after, ok := s.version(f.Path, f.After)
		if !ok && gone == "" {
			gone = "(the version written is gone: the file changed since, and no snapshot holds that version)"
		}
		fd := FileDiff{Path: f.Path, Change: changeOf(f)}
		if gone != "" {
			fd.Diff = gone
		} else {
			fd.Diff, fd.Added, fd.Removed = UnifiedDiff(f.Path, before, after)
		}
		out = append(out, fd)
	}
	return out, nil
}

// changeOf names what a write did to a file.
func changeOf(w store.WriteRecord) string {
	switch {
	case w.Before == "":
		return "created"
	case w.After == "":
		return "deleted"
	}
	return "updated"
}
