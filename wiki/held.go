package wiki

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// HeldFunc names what holds a pending change of the file rel ("change set
// #3"), or returns "" when nothing does or when ctx is the approval of the
// very set that holds it. It runs on every write to a reviewed file, under
// the project lock, so it must be cheap.
type HeldFunc func(ctx context.Context, rel string) (holder string)

// SetHeld installs the check the store's policy consults before committing
// a write to pages/ or context.md: a file a pending change set holds can be
// written only by that set's approval (see wiki/review). nil removes it.
func (s *Store) SetHeld(f HeldFunc) {
	if f == nil {
		s.held.Store(nil)
		return
	}
	s.held.Store(&f)
}

// checkHeld refuses a transaction that writes a file held by a pending
// change set (CodeConflict naming the set and what to do).
func (s *Store) checkHeld(tx *store.Tx) error {
	p := s.held.Load()
	if p == nil {
		return nil
	}
	for _, c := range tx.Changes() {
		l := LayerOf(c.Path)
		if l != LayerPages && l != LayerContext {
			continue
		}
		if h := (*p)(tx.Context(), c.Path); h != "" {
			return store.Errorf(store.CodeConflict, "%s already has a pending change in %s; approve or decline it first (llmwiki review, or the review page)", c.Path, h)
		}
	}
	return nil
}

// beforeCommit is the policy's last check of a transaction, then the
// files derived from it.
func (s *Store) beforeCommit(tx *store.Tx) error {
	if err := s.checkHeld(tx); err != nil {
		return err
	}
	return s.autoIndex(tx)
}
