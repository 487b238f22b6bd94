package review

import (
	"context"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// Write is one audited write in the review queue.
type Write struct {
	// ID is the audit line's id.
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Client  string    `json:"client,omitempty"`
	Session string    `json:"session"`
	Tool    string    `json:"tool"`
	// Files are the reviewed files the call wrote (pages/, context.md).
	Files []store.WriteRecord `json:"files"`
	// Status is "unreviewed", "accepted" or "reverted".
	Status string `json:"status"`
}

// Queue returns the writes awaiting review, newest first, at most limit
// from cursor (an opaque position, "" for the start); next is "" at the
// end.
func (s *Service) Queue(limit int, cursor string) (ws []Write, next string, total int, err error) {
	return nil, "", 0, errTODO
}

// WriteDiffs returns the diffs of one queued write: from the version
// before it to the version it wrote (from snapshots and the current file).
func (s *Service) WriteDiffs(id string) ([]FileDiff, error) { return nil, errTODO }

// Accept marks the writes ids as accepted (nothing on disk changes).
func (s *Service) Accept(ctx context.Context, ids []string, reviewer string) error { return errTODO }

// AcceptAll accepts every write in the queue and returns how many.
func (s *Service) AcceptAll(ctx context.Context, reviewer string) (int, error) { return 0, errTODO }

// RevertResult says what a revert restored.
type RevertResult struct {
	ID    string   `json:"id"`
	Files []string `json:"files"`
}

// Revert restores, in one audited write, the version of every file the
// write id replaced (a file it created is deleted, one it deleted is put
// back), and marks it reverted. A file changed since the write is a
// conflict naming it, and nothing is restored.
func (s *Service) Revert(ctx context.Context, id, reviewer string) (RevertResult, error) {
	return RevertResult{}, errTODO
}

// Counts is what awaits a person.
type Counts struct {
	Pending    int `json:"pending"`
	Unreviewed int `json:"unreviewed"`
}

// Count returns what awaits a person.
func (s *Service) Count() (Counts, error) { return Counts{}, errTODO }
