package store

import (
	"context"
	"sort"
)

// Derived is state computed from the wiki's files, such as the search index.
// The writer keeps it in step: after every committed write, while the project
// lock is still held, Apply gets the changes. An Apply that fails marks the
// state stale with its reason ([Store.Stale]); the reason is added to the
// call's warnings, logged, and reported by load_project until [Store.ClearStale].
type Derived interface {
	// Name identifies the state in stale reports ("search", "links").
	Name() string
	// Apply brings the state in step with committed changes.
	Apply(ctx context.Context, changes []Change) error
	// Close releases the state's resources.
	Close() error
}

// AddDerived registers d to be kept in step with every write.
func (s *Store) AddDerived(d Derived) {
	s.derivedMu.Lock()
	s.derived = append(s.derived, d)
	s.derivedMu.Unlock()
}

func (s *Store) applyDerived(ctx context.Context, call *Call, changes []Change) {
	s.derivedMu.Lock()
	ds := append([]Derived(nil), s.derived...)
	s.derivedMu.Unlock()
	for _, d := range ds {
		if err := d.Apply(ctx, changes); err != nil {
			reason := PublicMessage(err)
			s.MarkStale(d.Name(), reason)
			call.AddWarning(d.Name() + " is stale: " + reason)
			s.log.Error("derived state is stale", "state", d.Name(), "err", err)
		}
	}
}

func (s *Store) closeDerived() {
	s.derivedMu.Lock()
	ds := s.derived
	s.derived = nil
	s.derivedMu.Unlock()
	for _, d := range ds {
		_ = d.Close()
	}
}

// MarkStale records that the derived state name is out of step, and why.
func (s *Store) MarkStale(name, reason string) {
	s.derivedMu.Lock()
	s.stale[name] = reason
	s.derivedMu.Unlock()
}

// ClearStale records that the derived state name is in step again.
func (s *Store) ClearStale(name string) {
	s.derivedMu.Lock()
	delete(s.stale, name)
	s.derivedMu.Unlock()
}

// StaleState names one piece of derived state that is out of step.
type StaleState struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Stale lists the derived state currently out of step, sorted by name.
func (s *Store) Stale() []StaleState {
	s.derivedMu.Lock()
	defer s.derivedMu.Unlock()
	out := make([]StaleState, 0, len(s.stale))
	for n, r := range s.stale {
		out = append(out, StaleState{Name: n, Reason: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
