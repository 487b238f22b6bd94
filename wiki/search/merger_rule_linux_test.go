package search

import (
	"context"
	"runtime"
	"strconv"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"golang.org/x/sys/unix"

	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestMergerLoweredOnlyAfterBuild: the merger's thread is lowered at its
// first merge check once the index's first reconciliation has ended (the
// guard's built flag), never during the build, never by another event,
// and only once. Each case fires the event in a goroutine of its own, on
// its own thread, as scorch's merger would.
func TestMergerLoweredOnlyAfterBuild(t *testing.T) {
	if !lowPriorityMerges() {
		t.Skip("-tune leaves LowPriorityMerges off")
	}
	base := threadNice(t, strconv.Itoa(unix.Gettid()))
	if base >= 19 {
		t.Skip("the process runs at nice 19: there is no lower priority")
	}
	low := min(base+mergerNice, 19)
	for _, c := range []struct {
		name             string
		built, lowered   bool
		kind             scorch.EventKind
		wantNice         int
		wantLoweredAfter bool
	}{
		{"merge check during the build", false, false, scorch.EventKindPreMergeCheck, base, false},
		{"merge check after the build", true, false, scorch.EventKindPreMergeCheck, low, true},
		{"persister event after the build", true, false, scorch.EventKindPersisterProgress, base, false},
		{"merger progress after the build", true, false, scorch.EventKindMergerProgress, base, false},
		{"merge check, already lowered", true, true, scorch.EventKindPreMergeCheck, base, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := new(scorch.Scorch) // a key only: onScorchEvent finds the guard by it
			g := newGuard(t.TempDir(), nil)
			g.built.Store(c.built)
			g.lowered.Store(c.lowered)
			guardsByScorch.Store(s, g)
			defer guardsByScorch.Delete(s)
			nice := make(chan int, 1)
			go func() {
				// Locked and never unlocked: the thread ends with the
				// goroutine, so a lowered priority does not outlive it.
				runtime.LockOSThread()
				onScorchEvent(scorch.Event{Kind: c.kind, Scorch: s})
				// The raw system call answers 20 - nice.
				p, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
				if err != nil {
					p = 20 + 100 // reported as nice -100
				}
				nice <- 20 - p
			}()
			if got := <-nice; got != c.wantNice {
				t.Errorf("thread nice %d after the event, want %d (process %d)", got, c.wantNice, base)
			}
			if got := g.lowered.Load(); got != c.wantLoweredAfter {
				t.Errorf("guard lowered = %v, want %v", got, c.wantLoweredAfter)
			}
		})
	}
}

// TestGuardBuiltAfterFirstReconciliation: the index's guard says built
// only once the first reconciliation has ended; while it is held (a build
// under way) the merger may not be lowered.
func TestGuardBuiltAfterFirstReconciliation(t *testing.T) {
	buildHold = make(chan struct{})
	held := true
	defer func() {
		if held {
			close(buildHold)
		}
		buildHold = nil
	}()
	st, _ := teststore.New(t, map[string]string{"pages/a.md": "# A\n\nText.\n"})
	x := Open(st, Options{ReconcileEvery: -1})
	st.AddDerived(x)
	x.Start()
	// Start holds opMu until the index is open; the build is then held
	// before it walks: the guard is made, the reconciliation not yet run.
	x.opMu.Lock()
	x.mu.RLock()
	g, state := x.guard, x.state
	x.mu.RUnlock()
	x.opMu.Unlock()
	if g == nil || state != StateBuilding {
		t.Fatalf("after the open: guard %v, state %q", g != nil, state)
	}
	if g.built.Load() {
		t.Fatal("the guard says built before the first reconciliation ran")
	}
	close(buildHold)
	held = false
	if err := x.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := x.Status(); s.State != StateReady {
		t.Fatalf("state %q", s.State)
	}
	if !g.built.Load() {
		t.Error("the guard does not say built after the first reconciliation")
	}
}
