package wiki

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// SyncConflictsFile holds the sync conflicts (see [SyncConflict]), one JSON
// object per line, appended by each sync that found some.
const SyncConflictsFile = ".llmwiki/git/conflicts.jsonl"

// SyncConflict is a file both sides of a sync changed in ways git could not
// merge cleanly (wiki/git): the remote version is the file now, the local
// one is kept as a snapshot, and a person merges them. It stays open while
// the file is still the version the sync left (RemoteSHA256): the next
// write of the file, by anyone, closes it, and so does dismissing its lint
// finding.
type SyncConflict struct {
	// ID names the conflict ("c-" and 12 hex digits); its lint finding's
	// id is derived from it.
	ID string `json:"id"`
	// Path is the file, from the wiki root.
	Path string `json:"path"`
	// Found is when the sync found the conflict (UTC).
	Found time.Time `json:"found"`
	// Local is the local commit whose version of the file was set aside;
	// Remote the remote commit whose version the file now holds.
	Local  string `json:"local"`
	Remote string `json:"remote"`
	// LocalSHA256 and RemoteSHA256 are the two versions' sha256 ("" for a
	// side that deleted or moved the file).
	LocalSHA256  string `json:"local_sha256"`
	RemoteSHA256 string `json:"remote_sha256"`
	// Snapshot is the local version's snapshot under .llmwiki/snapshots/
	// ("" when the local side deleted the file).
	Snapshot string `json:"snapshot,omitempty"`
	// Summary says in one sentence what happened and what to do.
	Summary string `json:"summary"`
}

// RecordSyncConflicts appends conflicts to [SyncConflictsFile] under the
// project lock.
func (s *Store) RecordSyncConflicts(ctx context.Context, conflicts []SyncConflict) error {
	if len(conflicts) == 0 {
		return nil
	}
	var add bytes.Buffer
	for _, c := range conflicts {
		line, err := json.Marshal(c)
		if err != nil {
			return store.Internal("encode a sync conflict", err)
		}
		add.Write(line)
		add.WriteByte('\n')
	}
	return s.UpdateState(ctx, SyncConflictsFile, func(old []byte, _ bool) ([]byte, error) {
		if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
			old = append(old, '\n')
		}
		return append(old, add.Bytes()...), nil
	})
}

// SyncConflicts returns every recorded sync conflict, oldest first, with
// open reporting whether each is still open: the file is the version the
// sync left and no one kept it ([Store.KeepSyncConflict]; a torn or
// unreadable line is skipped).
func (s *Store) SyncConflicts() (all []SyncConflict, open []bool, err error) {
	data, ok, err := s.ReadState(SyncConflictsFile)
	if err != nil || !ok {
		return nil, nil, err
	}
	kept, err := s.KeptSyncConflicts()
	if err != nil {
		return nil, nil, err
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var c SyncConflict
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &c) != nil || c.Path == "" {
			continue
		}
		_, isKept := kept[c.ID]
		all = append(all, c)
		open = append(open, !isKept && s.syncConflictFileIsRemote(c))
	}
	return all, open, nil
}
