package review

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// staleApplying is how long a change set may stay applying under another
// process's approval before it counts as abandoned: an approval runs a few
// writes, each under the project lock, and records its outcome as soon as
// they are done.
const staleApplying = time.Minute

// StatusNotRun is the result of an action a recovered change set's
// approval had not written (its Error says whether its files changed
// since).
const StatusNotRun = "not_run"

// approvals are the change sets an [Service.Approve] of this process is
// applying now (of any service: several may share one store, and its
// session).
type approvals struct {
	mu  sync.Mutex
	ids map[string]int
	// ended counts the approvals that ended: a set whose approval ended
	// without recording its outcome stops holding its files, so a held
	// list loaded before then is stale (changeset_held.go).
	ended atomic.Uint64
}

// start records that this process applies set id, until the returned
// func is called.
func (a *approvals) start(id string) func() {
	a.mu.Lock()
	if a.ids == nil {
		a.ids = map[string]int{}
	}
	a.ids[id]++
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		if a.ids[id]--; a.ids[id] <= 0 {
			delete(a.ids, id)
		}
		a.mu.Unlock()
		a.ended.Add(1)
	}
}

var approving approvals

func (a *approvals) running(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ids[id] > 0
}

// applier is this process's [plan.Applier], starting now.
func (s *Service) applier() *plan.Applier {
	return &plan.Applier{Session: s.st.SessionID(), PID: os.Getpid(), Started: s.st.Now()}
}

// staleAt is when change set p, applying, counts as abandoned: never while
// an approval of this process runs it; at once when it names this
// process's session (no approval of it runs here, so the one that did
// ended without recording its outcome); otherwise [staleApplying] after
// its applier started (or, recorded by an older version, after the set
// was proposed).
func (s *Service) staleAt(p *plan.Plan) (time.Time, bool) {
	if p.Op != plan.OpChangeSet || p.Status != plan.StatusApplying || approving.running(p.ID) {
		return time.Time{}, false
	}
	if p.Applier == nil {
		return p.Created.Add(staleApplying), true
	}
	if p.Applier.Session == s.st.SessionID() {
		return time.Time{}, true
	}
	return p.Applier.Started.Add(staleApplying), true
}

func (s *Service) isStale(p *plan.Plan, now time.Time) bool {
	at, ok := s.staleAt(p)
	return ok && !now.Before(at)
}

// recoverStale ends every change set left applying by an approval that is
// gone (its process died, see [Service.staleAt]): marked failed, each
// selected action's result saying whether it ran (all its files are as
// it would have written them: ok; otherwise not_run), audited, logged,
// and its files freed. It is cheap when no set is applying.
func (s *Service) recoverStale(ctx context.Context) {
	ids := s.applyingNow()
	if len(ids) == 0 || s.st.ReadOnly() {
		return
	}
	for _, id := range ids {
		p, err := s.book.Load(id)
		if err != nil || !s.isStale(p, s.st.Now()) {
			continue
		}
		s.recoverOne(ctx, p.ID)
	}
}

func (s *Service) recoverOne(ctx context.Context, id string) {
	ctx, finish := s.ownCall(ctx, "review:recover", map[string]any{"change_set": id})
	var was *plan.Applier
	p, err := s.book.Update(ctx, id, func(q *plan.Plan) error {
		now := s.st.Now()
		if !s.isStale(q, now) {
			return errNotStale
		}
		was = q.Applier
		q.Results = s.recoveredResults(q)
		q.Status, q.Finished, q.Applier = plan.StatusFailed, &now, nil
		return nil
	})
	s.held.invalidate()
	if errors.Is(err, errNotStale) {
		return // recovered by another process, or its approval finished
	}
	defer func() { finish(err) }()
	if err != nil {
		s.st.Logger().Error("could not recover a change set left applying", "plan", id, "err", err)
		return
	}
	ran := 0
	for _, r := range p.Results {
		if r.Status == "ok" {
			ran++
		}
	}
	attrs := []any{"plan", p.ID, "change_set", p.Number, "ran", ran, "selected", len(p.Selected)}
	if was != nil {
		attrs = append(attrs, "applier_session", was.Session, "applier_pid", was.PID, "started", was.Started)
	}
	s.st.Logger().Warn("change set left applying by an approval that stopped; marked failed", attrs...)
	call := store.CallFrom(ctx)
	call.SetExtra("change_set", p.Number)
	call.SetExtra("decision", "recovered")
	s.logDecision(ctx, p, fmt.Sprintf("%s: approval interrupted, %d of %d selected actions had run (%s)", p.Name(), ran, len(p.Selected), p.Reviewer))
}

var errNotStale = store.Errorf(store.CodeConflict, "the change set is no longer left applying")

// recoveredResults says, for each action of p, what the interrupted
// approval did, judged from the files on disk.
func (s *Service) recoveredResults(p *plan.Plan) []plan.Result {
	selected := map[int]bool{}
	for _, n := range p.Selected {
		selected[n] = true
	}
	var out []plan.Result
	for i, a := range p.Actions {
		n := i + 1
		r := plan.Result{N: n, Kind: a.Tool, Path: mainFile(a)}
		switch {
		case !selected[n]:
			r.Status = StatusNotSelected
		case s.filesAre(a, func(f plan.FileChange) string { return f.After }):
			r.Status = "ok"
			if data, exists, _ := s.st.ReadRaw(r.Path); exists {
				r.SHA256 = store.SHA256Hex(data)
			}
		default:
			r.Status = StatusNotRun
			r.Error = "the approval stopped (its process ended) before this action was written; ask the agent to propose it again"
			if !s.filesAre(a, func(f plan.FileChange) string { return f.Before }) {
				r.Error = "the approval stopped (its process ended) and this action's files changed since; check them (their history has every version) before proposing it again"
			}
		}
		out = append(out, r)
	}
	return out
}

// filesAre reports whether every file of a has the version want names
// ("" for absent).
func (s *Service) filesAre(a plan.Action, want func(plan.FileChange) string) bool {
	for _, f := range a.Files {
		data, exists, err := s.st.ReadRaw(f.Path)
		if err != nil {
			return false
		}
		cur := ""
		if exists {
			cur = store.SHA256Hex(data)
		}
		if cur != want(f) {
			return false
		}
	}
	return true
}
