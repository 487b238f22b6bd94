package review

import (
	"context"
	"fmt"
	"path"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// How a person settles a sync conflict ([Service.SettleSyncConflict]).
const (
	// SettleKeep keeps the file as the sync left it (the remote version);
	// the local version stays a snapshot.
	SettleKeep = "keep"
	// SettleTake takes the local version: the snapshot is restored through
	// the audited restore (or, when the local side deleted the file, the
	// file is deleted).
	SettleTake = "take"
)

// SyncConflict is an open sync conflict as a person reviews it: the
// recorded conflict, the id of its lint finding and the diff from the local
// version (the snapshot) to the file now.
type SyncConflict struct {
	wiki.SyncConflict
	// FindingID is its sync_conflict lint finding's id.
	FindingID string `json:"finding_id"`
	// Diff goes from the local version to the file now; Diff.Diff says why
	// when the local version is no longer stored.
	Diff FileDiff `json:"diff"`
}

// SyncConflicts returns the open sync conflicts, oldest first, each with
// its diff.
func (s *Service) SyncConflicts() ([]SyncConflict, error) {
	all, open, err := s.st.SyncConflicts()
	if err != nil {
		return nil, err
	}
	out := []SyncConflict{}
	for i, c := range all {
		if open[i] {
			out = append(out, SyncConflict{SyncConflict: c, FindingID: lint.SyncConflictFindingID(c), Diff: s.syncConflictDiff(c)})
		}
	}
	return out, nil
}

// syncConflictDiff is the diff of c from the local version to the file now.
func (s *Service) syncConflictDiff(c wiki.SyncConflict) FileDiff {
	fd := FileDiff{Path: c.Path, Change: "updated"}
	var local, now []byte
	if c.Snapshot != "" {
		data, ok, err := s.st.ReadRaw(c.Snapshot)
		if err != nil || !ok {
			fd.Diff = "(your version is no longer stored: its snapshot " + c.Snapshot + " is gone)"
			return fd
		}
		local = Present(data)
	} else {
		fd.Change = "created" // the local side deleted it; the remote has it
	}
	if c.RemoteSHA256 != "" {
		data, _, err := s.st.ReadRaw(c.Path)
		if err != nil {
			fd.Diff = "(the file cannot be read: " + store.PublicMessage(err) + ")"
			return fd
		}
		now = Present(data)
	} else {
		fd.Change = "deleted" // the remote side deleted it
	}
	fd.Diff, fd.Added, fd.Removed = UnifiedDiff(c.Path, local, now)
	return fd
}

// SettleResult says how a sync conflict was settled.
type SettleResult struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Settled string `json:"settled"` // keep or take
	// Restore is what taking the local version restored (absent for keep,
	// and when the local side had deleted the file).
	Restore *wiki.RestoreResult `json:"restore,omitempty"`
	// Deleted is true when taking the local version deleted the file.
	Deleted bool `json:"deleted,omitempty"`
}

// SettleSyncConflict settles the open sync conflict id as a person chose
// (how: [SettleKeep] or [SettleTake]), in the call of ctx or an audit line
// of its own. Keep records that the file stays as the sync left it; take
// restores the local version's snapshot through the audited restore, which
// closes the conflict since the file changes, and notes it in log.md. A
// conflict that is no longer open (the file was written since, or it was
// settled already) is a CodeConflict error and nothing changes; an unknown
// id is CodeNotFound.
func (s *Service) SettleSyncConflict(ctx context.Context, id, how, reviewer string) (res SettleResult, err error) {
	if err := checkReviewer(reviewer); err != nil {
		return res, err
	}
	if how != SettleKeep && how != SettleTake {
		return res, store.Errorf(store.CodeInvalid, "settle a sync conflict with %q (keep the file as it is) or %q (take your version), not %q", SettleKeep, SettleTake, how)
	}
	c, err := s.openSyncConflict(id)
	if err != nil {
		return res, err
	}
	call := store.CallFrom(ctx)
	if call == nil {
		call = store.NewCall("review:sync_"+how, s.st.SessionID(), map[string]any{"conflict": id, "reviewer": reviewer})
		ctx = store.WithCall(ctx, call)
		defer func() {
			if aerr := s.st.Audit(call, err); aerr != nil && err == nil {
				err = aerr
			}
		}()
	}
	call.SetExtra("sync_conflict", id)
	call.SetExtra("settled", how)
	call.SetExtra("reviewer", reviewer)
	res = SettleResult{ID: c.ID, Path: c.Path, Settled: how}
	if how == SettleKeep {
		return res, s.st.KeepSyncConflict(ctx, c, reviewer, "")
	}
	ctx, done := s.st.OneCommit(ctx)
	defer done()
	if c.Snapshot == "" {
		// The local side deleted the file: taking it is deleting it.
		err = s.st.Update(ctx, func(tx *store.Tx) error {
			if err := tx.Delete(c.Path, c.RemoteSHA256); err != nil {
				if store.CodeOf(err) == store.CodeConflict || store.CodeOf(err) == store.CodeNotFound {
					return wiki.SyncConflictClosed(c)
				}
				return err
			}
			_, err := s.st.AppendLogTx(tx, takeLog(c, reviewer, "deleted, as your side had"))
			return err
		})
		res.Deleted = err == nil
		return res, err
	}
	in := wiki.RestoreInput{Path: c.Path, Snapshot: c.Snapshot, BaseSHA256: c.RemoteSHA256}
	if c.RemoteSHA256 == "" {
		// The remote side deleted the file: there is no version to expect,
		// only its absence, checked just before.
		in.BaseSHA256 = ""
	}
	r, err := s.st.RestoreSnapshot(ctx, in)
	if err != nil {
		if store.CodeOf(err) == store.CodeConflict {
			return res, wiki.SyncConflictClosed(c)
		}
		return res, err
	}
	res.Restore = &r
	if r.Changed {
		if _, lerr := s.st.AppendLog(ctx, takeLog(c, reviewer, "restored from "+path.Base(r.Restored))); lerr != nil {
			call.AddWarning("log.md entry not written: " + store.PublicMessage(lerr))
		}
	}
	return res, nil
}

// openSyncConflict returns the sync conflict id when it is open, else the
// error saying why not.
func (s *Service) openSyncConflict(id string) (wiki.SyncConflict, error) {
	all, open, err := s.st.SyncConflicts()
	if err != nil {
		return wiki.SyncConflict{}, err
	}
	for i := len(all) - 1; i >= 0; i-- {
		c := all[i]
		if c.ID != id {
			continue
		}
		if open[i] {
			return c, nil
		}
		if kept, err := s.st.KeptSyncConflicts(); err == nil {
			if k, ok := kept[id]; ok {
				return c, wiki.SyncConflictKept(c, k)
			}
		}
		return c, wiki.SyncConflictClosed(c)
	}
	return wiki.SyncConflict{}, store.Errorf(store.CodeNotFound, "no sync conflict has the id %s; `llmwiki review` lists the open ones", id)
}

// takeLog is the log.md entry of taking the local version.
func takeLog(c wiki.SyncConflict, reviewer, what string) wiki.LogInput {
	return wiki.LogInput{Op: "restore", Title: fmt.Sprintf("Took your version of %s in sync conflict %s (%s)", c.Path, c.ID, reviewer),
		Details: fmt.Sprintf("The file was the remote version (commit %s); it is now your version (commit %s), %s. The remote version is kept as a snapshot.", lint.ShortCommit(c.Remote), lint.ShortCommit(c.Local), what)}
}
