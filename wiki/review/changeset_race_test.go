package review_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestApproveTwiceAtOnce approves one change set twice at the same time,
// from two goroutines of one process (two reviewers on the web page) and
// from two processes on the same folder (the web page and the CLI):
// exactly one approval runs the actions, each action's file is written
// once, and the other approval is a conflict that says the set is being
// or has been applied.
func TestApproveTwiceAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name      string
		processes int
	}{{"one process", 1}, {"two processes", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			var mu sync.Mutex
			runs := map[string]int{} // real (not dry) runs per tool
			counting := func(st *wiki.Store) *review.Service {
				g := links.Open(st)
				inner := runner(st, g)
				return review.New(st, g, func(ctx context.Context, tool string, raw json.RawMessage) (any, error) {
					if !store.IsDryRun(ctx) {
						mu.Lock()
						runs[tool]++
						mu.Unlock()
						// Widen the window in which the other approval may enter.
						time.Sleep(20 * time.Millisecond)
					}
					return inner(ctx, tool, raw)
				})
			}
			services := []*review.Service{counting(f.st), counting(f.st)}
			if tc.processes == 2 {
				other, err := wiki.Open(f.dir, wiki.WithClock(f.clk.now), wiki.WithLogger(teststore.Quiet()))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { other.Close() })
				services[1] = counting(other)
			}
			p, err := services[0].Propose(f.ctx, review.ProposeInput{Actions: f.three(t)})
			if err != nil {
				t.Fatal(err)
			}
			var (
				wg       sync.WaitGroup
				start    = make(chan struct{})
				ok       atomic.Int32
				errs     = make([]error, 2)
				reviewer = []string{review.ByWeb, review.ByCLI}
			)
			for i, rv := range services {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					out, err := rv.Approve(f.ctx, "#1", nil, reviewer[i])
					errs[i] = err
					if err == nil && out.Plan.Status == plan.StatusApplied {
						ok.Add(1)
					}
				}()
			}
			close(start)
			wg.Wait()
			if ok.Load() != 1 {
				t.Fatalf("%d approvals applied the set (errors %v), want exactly 1", ok.Load(), errs)
			}
			for _, err := range errs {
				if err == nil {
					continue
				}
				msg := err.Error()
				if store.CodeOf(err) != store.CodeConflict || !(strings.Contains(msg, "change set #1 is being applied") || strings.Contains(msg, "change set #1 is applied")) {
					t.Fatalf("the other approval: %v, want a conflict saying #1 is being or was applied", err)
				}
			}
			for _, tool := range []string{"write_page", "edit_page", "atomic_write_context"} {
				if runs[tool] != 1 {
					t.Fatalf("real runs = %v, want each tool once", runs)
				}
			}
			for i, path := range []string{"pages/gamma.md", "pages/alpha.md", "context.md"} {
				if got := f.sha(t, path); got != p.Actions[i].Files[0].After {
					t.Fatalf("%s sha %s, proposed %s", path, got, p.Actions[i].Files[0].After)
				}
			}
			if got, _ := services[0].Get(p.ID); got.Status != plan.StatusApplied || len(got.Results) != 3 {
				t.Fatalf("stored status %s, %d results", got.Status, len(got.Results))
			}
		})
	}
}
