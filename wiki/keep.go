package wiki

// KeepFunc returns the versions the snapshot retention must not prune, as
// [KeepKey] values (a file's path and a version's sha256): the version
// before each reviewed file of a write still awaiting review, which its
// revert restores and its diff shows. It runs when the retention runs,
// under the project lock; nil or empty keeps nothing more.
type KeepFunc func() map[string]bool

// KeepAll in a [KeepFunc]'s set keeps every snapshot (the set could not be
// known).
const KeepAll = "*"

// KeepKey is the key of one version of the file rel in a [KeepFunc]'s set.
func KeepKey(rel, sha256 string) string { return rel + "\x00" + sha256 }

// SetKeepSnapshots installs the set of versions the retention keeps (see
// wiki/review). nil removes it.
func (s *Store) SetKeepSnapshots(f KeepFunc) {
	if f == nil {
		s.keep.Store(nil)
		return
	}
	s.keep.Store(&f)
}

// keptVersions is the set the installed [KeepFunc] returns, nil without one.
func (s *Store) keptVersions() map[string]bool {
	p := s.keep.Load()
	if p == nil {
		return nil
	}
	return (*p)()
}
