package store

import "context"

// SaveSnapshot stores data as a snapshot of rel (a version that is not, or
// no longer, the file on disk: the local side of a sync conflict) and adds
// it to call's snapshots, so restore_snapshot can bring it back. Call it
// with the project lock held.
func (s *Store) SaveSnapshot(call *Call, rel string, data []byte) (string, error) {
	rel, err := s.cleanPath(rel)
	if err != nil {
		return "", err
	}
	name, err := s.snapshot(rel, data)
	if err != nil {
		return "", err
	}
	if call != nil {
		call.addWrites(nil, []string{name})
	}
	return name, nil
}

// ApplyOutside tells the derived state (see [Derived]) of changes another
// engine made to the files (a git checkout during a sync), as a commit of
// the store's own would, and adds records to call's writes so the audit
// line names every path changed. Call it with the project lock held, after
// the files are on disk.
func (s *Store) ApplyOutside(ctx context.Context, call *Call, records []WriteRecord, changes []Change) {
	if call != nil && len(records) > 0 {
		call.addWrites(records, nil)
	}
	if len(changes) > 0 {
		s.applyDerived(ctx, call, changes)
	}
}
