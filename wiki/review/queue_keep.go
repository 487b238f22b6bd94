package review

import "github.com/llmwiki/llmwiki/wiki"

// keepVersions is the [wiki.KeepFunc] the service installs in its store:
// for every write awaiting review, the version before and after each file
// it wrote (its revert restores the one, its diff shows both). Once the
// write is accepted or reverted the retention prunes them as usual. It
// also keeps the local version of every open sync conflict.
func (s *Service) keepVersions() map[string]bool {
	var keep map[string]bool
	err := s.withIndex(func(all []queued, _ map[string]int, decs map[string]Decision) error {
		for _, q := range all {
			if _, done := decs[q.w.ID]; done {
				continue
			}
			if keep == nil {
				keep = map[string]bool{}
			}
			for _, f := range q.w.Files {
				if f.Before != "" {
					keep[wiki.KeepKey(f.Path, f.Before)] = true
				}
				if f.After != "" {
					keep[wiki.KeepKey(f.Path, f.After)] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		// The queue cannot be read: keep every snapshot rather than
		// prune one a revert may need.
		s.st.Logger().Error("review queue unreadable; snapshot retention deletes nothing", "err", err)
		return map[string]bool{wiki.KeepAll: true}
	}
	// The local side of every open sync conflict: its snapshot is the
	// only copy a person merges from or takes back.
	all, open, err := s.st.SyncConflicts()
	if err != nil {
		s.st.Logger().Error("sync conflicts unreadable; snapshot retention deletes nothing", "err", err)
		return map[string]bool{wiki.KeepAll: true}
	}
	for i, c := range all {
		if open[i] && c.LocalSHA256 != "" {
			if keep == nil {
				keep = map[string]bool{}
			}
			keep[wiki.KeepKey(c.Path, c.LocalSHA256)] = true
		}
	}
	return keep
}
