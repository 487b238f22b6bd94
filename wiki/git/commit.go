package git

import "context"

// commitState is what the committer keeps between writes (commit.go).
type commitState struct{}

// commitStatus fills the commit half of st: branch, head, uncommitted
// writes and the last commit error.
func (r *Repo) commitStatus(ctx context.Context, st *Status) {}
