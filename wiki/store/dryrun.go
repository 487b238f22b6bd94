package store

import (
	"context"
	"errors"
	"sync"
)

// ErrDryRun is what [Store.Update] returns in a dry run (see [WithDryRun]):
// every check passed and nothing was written. A caller that started the dry
// run treats it as success and reads [DryRun.Changes].
var ErrDryRun = errors.New("dry run: nothing was written")

// DryRun collects what the Updates of a dry run would have committed.
type DryRun struct {
	mu      sync.Mutex
	changes []StagedChange
}

type dryRunKey struct{}

// WithDryRun returns ctx marking every [Store.Update] made with it as a dry
// run: the function runs, the policy's checks run (BeforeCommit included),
// and then, instead of committing, Update records the staged changes in the
// returned DryRun and returns [ErrDryRun]. Nothing is written, snapshotted
// or audited as a write; the project lock is held as for a real write, so
// the checks see the wiki as a write would.
func WithDryRun(ctx context.Context) (context.Context, *DryRun) {
	d := &DryRun{}
	return context.WithValue(ctx, dryRunKey{}, d), d
}

// IsDryRun reports whether ctx is a dry run's.
func IsDryRun(ctx context.Context) bool { return dryRunFrom(ctx) != nil }

func dryRunFrom(ctx context.Context) *DryRun {
	d, _ := ctx.Value(dryRunKey{}).(*DryRun)
	return d
}

// Changes returns the changes staged by the dry run's Updates, in order.
func (d *DryRun) Changes() []StagedChange {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]StagedChange(nil), d.changes...)
}

func (d *DryRun) add(c []StagedChange) {
	d.mu.Lock()
	d.changes = append(d.changes, c...)
	d.mu.Unlock()
}
