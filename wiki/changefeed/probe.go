package changefeed

import (
	"time"

	"github.com/fsnotify/fsnotify"
)

// SyncDir is the folder (project-relative) that holds the feeds' sync
// files, one per running feed, kept out of git by its own .gitignore.
const SyncDir = syncDir

// Probe reaches into a running feed for the tests of its consumers (the
// wiki's tests drive the feed through the page catalogue): to make it lose
// events, to hold or count its sync rounds. Production code has no use for
// it.
type Probe struct{ f *Feed }

// Probe returns the feed's probe; the feed must not be nil.
func (f *Feed) Probe() Probe { return Probe{f: f} }

// Watcher is the feed's OS watcher (to remove a watch, or to send on its
// Errors channel as a watcher that lost events would).
func (p Probe) Watcher() *fsnotify.Watcher { return p.f.w }

// SyncFile is the project-relative path of the feed's sync file.
func (p Probe) SyncFile() string { return p.f.syncRel }

// SetSyncWait makes sync rounds wait up to d for the sync file's event.
func (p Probe) SetSyncWait(d time.Duration) {
	p.f.smu.Lock()
	p.f.syncWait = d
	p.f.smu.Unlock()
}

// CanSync reports whether sync rounds run (they stop when they cannot
// work, see [Feed.Sync]).
func (p Probe) CanSync() bool {
	p.f.smu.Lock()
	defer p.f.smu.Unlock()
	return p.f.canSync
}

// Rounds is how many sync rounds the feed has run.
func (p Probe) Rounds() uint64 {
	p.f.smu.Lock()
	defer p.f.smu.Unlock()
	return p.f.rounds
}

// LateRounds is how many sync rounds timed out.
func (p Probe) LateRounds() uint64 {
	p.f.smu.Lock()
	defer p.f.smu.Unlock()
	return p.f.late
}

// RoundWaiters is how many callers wait on the sync round seq; -1 when
// that round is not running.
func (p Probe) RoundWaiters(seq uint64) int {
	p.f.smu.Lock()
	defer p.f.smu.Unlock()
	if p.f.round != nil && p.f.round.seq == seq {
		return p.f.round.waiters
	}
	return -1
}

// SetRoundHook makes h run at the start of each sync round, before the
// sync file is touched (nil: none). Set it before any caller syncs.
func (p Probe) SetRoundHook(h func(seq uint64)) { p.f.testHookRound = h }

// TurnSyncOff turns sync rounds off as three timeouts in a row at at would
// have; worked says rounds had worked before.
func (p Probe) TurnSyncOff(worked bool, at time.Time) {
	p.f.smu.Lock()
	p.f.canSync, p.f.timeouts, p.f.syncWorked, p.f.syncOff = false, 3, worked, at
	p.f.smu.Unlock()
}

// ProbeAged makes the cursor's last full walk as old as at and records
// the changed paths, as events the watcher reported would.
func (c *Sub) ProbeAged(at time.Time, paths ...string) {
	c.mu.Lock()
	c.lastFull = at
	for _, p := range paths {
		c.paths[p] = false
	}
	c.mu.Unlock()
}

// SetNewWatcher makes feeds started from now on make their OS watcher with
// fn (one that fails, say); the returned func restores the default.
func SetNewWatcher(fn func() (*fsnotify.Watcher, error)) (restore func()) {
	orig := newWatcher
	newWatcher = fn
	return func() { newWatcher = orig }
}

// SetAddWatch makes every feed add its folders' watches with hook (nil:
// the watcher's own Add) until the returned func runs.
func SetAddWatch(hook func(w *fsnotify.Watcher, name string) error) (restore func()) {
	addWatchMu.Lock()
	addWatchHook = hook
	addWatchMu.Unlock()
	return func() {
		addWatchMu.Lock()
		addWatchHook = nil
		addWatchMu.Unlock()
	}
}

// SetMaxDirtyPaths sets how many changed paths a cursor keeps before it
// asks for a full walk instead; the returned func restores the default.
func SetMaxDirtyPaths(n int) (restore func()) {
	orig := maxDirtyPaths
	maxDirtyPaths = n
	return func() { maxDirtyPaths = orig }
}
