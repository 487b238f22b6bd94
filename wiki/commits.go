package wiki

import (
	"context"
	"strings"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// Committer records audited writes in version control (see wiki/git). The
// store calls it under the project lock, after the atomic write, so a
// commit holds exactly the files that write changed and no other writer
// can change them in between.
type Committer interface {
	// Committed is called after each transaction of call that changed
	// files. Inside [Store.OneCommit] it only notes the changes; outside,
	// it commits them. A failure is never an error of the write (the files
	// are on disk): it adds a warning to call and is retried later.
	Committed(ctx context.Context, call *store.Call, changes []store.Change)
	// Flush commits what call changed and has not committed yet, under
	// the project lock: the end of a [Store.OneCommit].
	Flush(ctx context.Context, call *store.Call)
}

// SetCommitter installs c (nil removes it): with git: commit or sync, the
// wiki's git (wiki/git) is installed when the wiki is opened for tools.
func (s *Store) SetCommitter(c Committer) {
	if c == nil {
		s.committer.Store(nil)
		return
	}
	s.committer.Store(&c)
}

type oneCommitKey struct{}

// OneCommit returns ctx under which every write of the call in ctx goes
// into one commit, made by done (which takes the project lock): an applied
// plan, an approved change set. Without a call in ctx, or without a
// committer, it changes nothing and done does nothing.
func (s *Store) OneCommit(ctx context.Context) (_ context.Context, done func()) {
	p := s.committer.Load()
	call := store.CallFrom(ctx)
	if p == nil || call == nil || InOneCommit(ctx) {
		return ctx, func() {}
	}
	ctx = context.WithValue(ctx, oneCommitKey{}, true)
	return ctx, func() {
		// The writes are done; a cancelled ctx must not skip their commit.
		lctx := context.WithoutCancel(ctx)
		if err := s.Locked(lctx, func() error { (*p).Flush(lctx, call); return nil }); err != nil {
			call.AddWarning("the writes are on disk but were not committed to git (" + store.PublicMessage(err) + "); the next write commits them")
		}
	}
}

// InOneCommit reports whether ctx is inside [Store.OneCommit].
func InOneCommit(ctx context.Context) bool {
	v, _ := ctx.Value(oneCommitKey{}).(bool)
	return v
}

// noteCommit tells the committer about a committed transaction.
func (s *Store) noteCommit(ctx context.Context, call *store.Call, changes []store.Change) {
	if p := s.committer.Load(); p != nil && len(changes) > 0 {
		(*p).Committed(ctx, call, changes)
	}
}

// LogEntryKey is the key of a call's extra (see [store.Call.SetExtra])
// holding the heading of the log.md entry the call appended
// ("2026-12-02 10:04] ingest | Raft paper"), so its commit message can be
// the log line.
const LogEntryKey = "log_entry"

// LogLineOf returns the log line ("op | title") of the last log.md entry
// call appended, or "".
func LogLineOf(call *store.Call) string {
	if call == nil {
		return ""
	}
	r := call.Record()
	h, _ := r.Extra[LogEntryKey].(string)
	if _, rest, ok := strings.Cut(h, "] "); ok {
		return rest
	}
	return h
}
