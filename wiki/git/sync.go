package git

import "context"

// syncState is what sync keeps between runs (sync.go).
type syncState struct{}

// syncStatus fills the sync half of st: remote, last sync, its error,
// ahead and behind.
func (r *Repo) syncStatus(ctx context.Context, st *Status) {}
