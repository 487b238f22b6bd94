package git

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// pending reads the pending commits, oldest first (a torn line is
// skipped).
func (r *Repo) pending() ([]Pending, error) {
	data, ok, err := r.st.ReadState(PendingFile)
	if err != nil || !ok {
		return nil, err
	}
	var out []Pending
	for _, line := range bytes.Split(data, []byte("\n")) {
		var p Pending
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &p) != nil || len(p.Paths) == 0 {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// writePending replaces the pending commits with list (none: the file is
// removed). The caller holds the project lock.
func (r *Repo) writePending(list []Pending) error {
	if len(list) == 0 {
		return r.st.RemoveState(PendingFile)
	}
	var b bytes.Buffer
	for _, p := range list {
		line, err := json.Marshal(p)
		if err != nil {
			return store.Internal("encode a pending commit", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return r.st.WriteState(PendingFile, b.Bytes())
}

// appendPending adds p after the pending commits.
func (r *Repo) appendPending(p Pending) error {
	list, err := r.pending()
	if err != nil {
		return err
	}
	return r.writePending(append(list, p))
}

// commitPending makes the pending commits, each its own commit, in order;
// one whose files are already committed as they are is dropped. It stops
// at the first failure, keeping it and the ones after it (with the new
// error on the first).
func (r *Repo) commitPending(ctx context.Context) error {
	list, err := r.pending()
	if err != nil || len(list) == 0 {
		return err
	}
	for i, p := range list {
		if _, err := r.commit(ctx, p); err != nil {
			rest := append([]Pending(nil), list[i:]...)
			rest[0].Error = reason(err)
			if werr := r.writePending(rest); werr != nil {
				r.st.Logger().Error("pending git commits not recorded", "err", werr)
			}
			return err
		}
	}
	return r.writePending(nil)
}

// CommitPending commits what is pending now, under the project lock (the
// CLI's and sync's way to retry without a write).
func (r *Repo) CommitPending(ctx context.Context) error {
	if !r.enabled() {
		return nil
	}
	return r.st.Locked(ctx, func() error { return r.commitPending(ctx) })
}

// CommitFiles commits paths (from the wiki root) as they are on disk as
// one commit of call (its tool, client and log line name it; nil: a
// commit by the person), after what is pending. The caller holds the
// project lock ([wiki.Store.Locked]); sync commits outside edits with it.
// It returns the short hash of the commit, "" when the files were already
// committed as they are.
func (r *Repo) CommitFiles(ctx context.Context, call *store.Call, paths []string) (string, error) {
	if err := r.commitPending(ctx); err != nil {
		return "", err
	}
	commit, err := r.commit(ctx, r.describe(ctx, call, uniqueSorted(paths)))
	if len(commit) > 12 {
		commit = commit[:12]
	}
	return commit, err
}
