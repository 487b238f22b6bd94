package wiki

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// SyncConflictsKeptFile holds the sync conflicts a person settled by
// keeping the file as the sync left it (see [Store.KeepSyncConflict]), one
// JSON object per line.
const SyncConflictsKeptFile = ".llmwiki/git/conflicts-kept.jsonl"

// KeptSyncConflict records that a sync conflict was closed by keeping the
// file as it is: the local version stays a snapshot.
type KeptSyncConflict struct {
	// ID is the conflict's id ([SyncConflict.ID]).
	ID string `json:"id"`
	// Kept is when it was kept (UTC).
	Kept time.Time `json:"kept"`
	// By says who kept it: a reviewer ("web", "cli") or a session.
	By     string `json:"by,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// KeptSyncConflicts returns the kept conflicts by id (a torn or unreadable
// line is skipped).
func (s *Store) KeptSyncConflicts() (map[string]KeptSyncConflict, error) {
	data, ok, err := s.ReadState(SyncConflictsKeptFile)
	if err != nil || !ok {
		return nil, err
	}
	return parseKept(data), nil
}

func parseKept(data []byte) map[string]KeptSyncConflict {
	out := map[string]KeptSyncConflict{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var k KeptSyncConflict
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &k) != nil || k.ID == "" {
			continue
		}
		if _, seen := out[k.ID]; !seen {
			out[k.ID] = k
		}
	}
	return out
}

// KeepSyncConflict closes the open sync conflict c by keeping the file as
// the sync left it, checked and recorded under the project lock: a
// conflict that is no longer open (the file was written since, or it was
// kept already) is a CodeConflict error and nothing is recorded.
func (s *Store) KeepSyncConflict(ctx context.Context, c SyncConflict, by, reason string) error {
	return s.UpdateState(ctx, SyncConflictsKeptFile, func(old []byte, _ bool) ([]byte, error) {
		if k, ok := parseKept(old)[c.ID]; ok {
			return nil, SyncConflictKept(c, k)
		}
		if !s.syncConflictFileIsRemote(c) {
			return nil, SyncConflictClosed(c)
		}
		line, err := json.Marshal(KeptSyncConflict{ID: c.ID, Kept: s.Now().UTC(), By: by, Reason: strings.TrimSpace(reason)})
		if err != nil {
			return nil, store.Internal("encode a kept sync conflict", err)
		}
		if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
			old = append(old, '\n')
		}
		return append(append(old, line...), '\n'), nil
	})
}

// SyncConflictKept is the error for settling a conflict that k kept.
func SyncConflictKept(c SyncConflict, k KeptSyncConflict) error {
	return store.Errorf(store.CodeConflict, "sync conflict %s on %s was already settled: kept by %s on %s; nothing to do", c.ID, c.Path, orSomeone(k.By), k.Kept.UTC().Format(time.RFC3339))
}

// SyncConflictClosed is the error for settling a conflict whose file was
// written since the sync: the write settled it.
func SyncConflictClosed(c SyncConflict) error {
	return store.Errorf(store.CodeConflict, "sync conflict %s is no longer open: %s was written since the sync, which settled it; nothing was changed (its history and snapshots keep both versions)", c.ID, c.Path)
}

// syncConflictFileIsRemote reports whether c's file is still the version
// the sync left.
func (s *Store) syncConflictFileIsRemote(c SyncConflict) bool {
	cur, exists, err := s.ReadRaw(c.Path)
	if err != nil {
		return false
	}
	if !exists {
		return c.RemoteSHA256 == ""
	}
	return store.SHA256Hex(cur) == c.RemoteSHA256
}

func orSomeone(by string) string {
	if by == "" {
		return "someone"
	}
	return by
}
