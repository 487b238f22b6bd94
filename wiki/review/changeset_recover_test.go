package review_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// crashedApproval proposes a two-action set (create gamma, replace
// context.md) and approves it with a runner that stops its goroutine, as a
// dying process would, when the second action is about to be written: the
// set is left applying with gamma written.
func crashedApproval(t *testing.T, f *fixture) *plan.Plan {
	t.Helper()
	g := links.Open(f.st)
	inner := runner(f.st, g)
	rv := review.New(f.st, g, func(ctx context.Context, tool string, args json.RawMessage) (any, error) {
		if review.InApproval(ctx) && !store.IsDryRun(ctx) && tool == "atomic_write_context" {
			runtime.Goexit()
		}
		return inner(ctx, tool, args)
	})
	p, err := rv.Propose(f.ctx, review.ProposeInput{Actions: []review.ActionInput{
		call("write_page", map[string]any{"title": "Gamma", "slug": "gamma", "content": "New page.\n"}),
		call("atomic_write_context", map[string]any{"content": "# Context\n\nWhat matters.\n", "base_sha256": f.sha(t, "context.md")}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = rv.Approve(f.ctx, p.ID, nil, review.ByWeb)
	}()
	<-done
	left, err := plan.NewBook(f.st).Load(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if left.Status != plan.StatusApplying || left.Applier == nil || left.Applier.Session != f.st.SessionID() || f.sha(t, "pages/gamma.md") == "" {
		t.Fatalf("the simulated crash left %s, applier %+v, gamma %q", left.Status, left.Applier, f.sha(t, "pages/gamma.md"))
	}
	return left
}

func checkRecovered(t *testing.T, f *fixture, rv *review.Service, p *plan.Plan) {
	t.Helper()
	got, err := rv.Get(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != plan.StatusFailed || got.Finished == nil || got.Applier != nil || len(got.Results) != 2 {
		t.Fatalf("recovered set: status %s, finished %v, applier %+v, results %+v", got.Status, got.Finished, got.Applier, got.Results)
	}
	r1, r2 := got.Results[0], got.Results[1]
	if r1.Status != "ok" || r1.Path != "pages/gamma.md" || r1.SHA256 != f.sha(t, "pages/gamma.md") {
		t.Errorf("the action that ran: %+v", r1)
	}
	if r2.Status != review.StatusNotRun || r2.Path != "context.md" || !strings.Contains(r2.Error, "before this action was written") {
		t.Errorf("the action that did not run: %+v", r2)
	}
	if rec := teststore.LastCall(t, f.dir, "review:recover"); rec == nil || rec.Outcome != "ok" {
		t.Errorf("no audit line of the recovery: %+v", rec)
	}
	if !strings.Contains(readLog(t, f), p.Name()+": approval interrupted, 1 of 2 selected actions had run (web)") {
		t.Error("no log.md entry of the recovery")
	}
}

func readLog(t *testing.T, f *fixture) string {
	t.Helper()
	data, ok, err := f.st.ReadRaw("log.md")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	return string(data)
}

// A set left applying by an approval of another process (a dead session)
// holds its files for a minute at most; the next service then marks it
// failed, saying which actions had run, and frees its files.
func TestRecoverApplyingFromDeadProcess(t *testing.T) {
	f := newFixture(t)
	p := crashedApproval(t, f)
	// The next process: another store (its own session) on the wiki.
	st2, err := wiki.Open(f.dir, wiki.WithClock(f.clk.now), wiki.WithLogger(teststore.Quiet()))
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	g2 := links.Open(st2)
	rv2 := review.New(st2, g2, runner(st2, g2))
	if got, _ := rv2.Get(p.ID); got.Status != plan.StatusApplying {
		t.Fatalf("a set applying for less than a minute was recovered: %s", got.Status)
	}
	if _, err := st2.WriteContext(f.ctx, wiki.ContextInput{Content: "# Other\n"}); store.CodeOf(err) != store.CodeConflict {
		t.Fatalf("context.md while the set may still be applying: %v", err)
	}
	f.clk.add(2 * time.Minute)
	if _, err := rv2.Pending(); err != nil {
		t.Fatal(err)
	}
	fr := &fixture{st: st2, dir: f.dir, clk: f.clk, rv: rv2, ctx: f.ctx}
	checkRecovered(t, fr, rv2, p)
	if _, err := st2.WriteContext(f.ctx, wiki.ContextInput{Content: "# Other\n", BaseSHA256: f.sha(t, "context.md")}); err != nil {
		t.Fatalf("context.md after the recovery: %v", err)
	}
}

// A set left applying under this process's own session, with no approval
// of it running, holds nothing, and the next Pending recovers it at once;
// an action whose files changed meanwhile is reported as such.
func TestRecoverApplyingOwnSession(t *testing.T) {
	f := newFixture(t)
	p := crashedApproval(t, f)
	if _, err := f.st.WriteContext(f.ctx, wiki.ContextInput{Content: "# Other\n", BaseSHA256: f.sha(t, "context.md")}); err != nil {
		t.Fatalf("context.md held by an approval that is gone: %v", err)
	}
	if _, err := f.rv.Pending(); err != nil {
		t.Fatal(err)
	}
	got, err := f.rv.Get(p.ID)
	if err != nil || got.Status != plan.StatusFailed || len(got.Results) != 2 {
		t.Fatalf("recovered: %+v %v", got, err)
	}
	if r := got.Results[0]; r.Status != "ok" || r.SHA256 != f.sha(t, "pages/gamma.md") {
		t.Errorf("the action that ran: %+v", r)
	}
	if r := got.Results[1]; r.Status != review.StatusNotRun || !strings.Contains(r.Error, "files changed since") {
		t.Errorf("the action that did not run, its file changed since: %+v", r)
	}
}
