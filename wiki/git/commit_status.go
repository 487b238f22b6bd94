package git

import (
	"context"
	"strings"
)

// commitStatus fills the commit half of st: branch, head, uncommitted
// writes and the last commit error.
func (r *Repo) commitStatus(ctx context.Context, st *Status) {
	if out, err := r.git.Run(ctx, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
		st.Branch = strings.TrimSpace(string(out))
	}
	if out, err := r.git.Run(ctx, "rev-parse", "-q", "--verify", "--short", "HEAD^{commit}"); err == nil {
		st.Head = strings.TrimSpace(string(out))
	}
	list, err := r.pending()
	if err != nil {
		st.CommitError = "the pending commits cannot be read"
		return
	}
	st.Uncommitted = len(list)
	if len(list) > 0 {
		st.CommitError = list[0].Error
	}
}
