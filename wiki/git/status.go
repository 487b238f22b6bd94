package git

import (
	"context"
	"time"
)

// Status is the wiki's git state as load_project, `llmwiki status` and the
// review page show it.
type Status struct {
	// Mode is schema.md's git mode (off, commit, sync).
	Mode string `json:"mode"`
	// Branch is the branch checked out; Head the short hash of its commit.
	Branch string `json:"branch,omitempty"`
	Head   string `json:"head,omitempty"`
	// Uncommitted counts the audited writes on disk whose commit failed;
	// the next write commits them first. CommitError is the last failure.
	Uncommitted int    `json:"uncommitted"`
	CommitError string `json:"commit_error,omitempty"`
	// Remote is the remote sync uses ("origin/main"), under git: sync.
	Remote string `json:"remote,omitempty"`
	// Synced is when the last sync succeeded; SyncError why the last one
	// failed (it is retried at the next sync).
	Synced    *time.Time `json:"synced,omitempty"`
	SyncError string     `json:"sync_error,omitempty"`
	// Ahead and Behind count commits not yet pushed and not yet pulled, as
	// of the last fetch.
	Ahead  int `json:"ahead,omitempty"`
	Behind int `json:"behind,omitempty"`
	// Conflicts counts the open sync conflicts (lint sync_conflict).
	Conflicts int `json:"conflicts"`
}

// Status returns the git state now. It is cheap: no fetch, no walk of the
// tree.
func (r *Repo) Status(ctx context.Context) Status {
	st := Status{Mode: r.Mode()}
	r.commitStatus(ctx, &st)
	r.syncStatus(ctx, &st)
	if all, open, err := r.st.SyncConflicts(); err == nil {
		_ = all
		for _, o := range open {
			if o {
				st.Conflicts++
			}
		}
	}
	return st
}
