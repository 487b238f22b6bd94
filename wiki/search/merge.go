package search

import (
	"context"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// Merging. Every audited write indexes its files as one batch, which
// becomes a new segment; bleve's merger (scorch) combines segments in the
// background by a tiered policy (mergeplan, after Lucene's
// TieredMergePolicy): segments smaller than FloorSegmentSize documents
// count as that size, and the index may hold MaxSegmentsPerTier (10)
// segments of each tier, tiers growing TierGrowth times from the floor,
// before the merger combines the best-balanced run of up to 10 of them.
//
// bleve's defaults (floor 2000 documents, growth 10) let a wiki of a few
// thousand pages hold only a few segments, so nearly every one-page write
// would make the merger rewrite the build's large segments, taking a core
// while reads wait. With a floor of 100 and growth 20 (tiers of 100, 2,000
// and 40,000 documents) small segments merge among themselves and a large
// one is rewritten only once ten of its size exist (BenchmarkWriteChurn;
// the figures are in docs/performance.md, "Load test").
//
// A build under this policy would leave more segments than bleve's
// defaults, and every search pays for each segment, so a reconciliation
// that indexed compactAfter documents or more ends with one merge by
// bleve's default plan (compact), which leaves a large index in a few
// segments, all in the top tier, where writes leave them alone.
const (
	mergeFloorSegmentSize = 100
	mergeTierGrowth       = 20
	compactAfter          = 2000
)

// mergePlanOptions is scorch's "scorchMergePlanOptions" (fields of
// mergeplan.MergePlanOptions; the ones not named keep bleve's defaults).
func mergePlanOptions() map[string]any {
	return map[string]any{"FloorSegmentSize": mergeFloorSegmentSize, "TierGrowth": mergeTierGrowth}
}

// mergerNice is how many nice levels (Linux thread priorities, -20 to 19;
// higher is lower priority) the thread that runs an index's merges is put
// below its own, with [ProcessSettings.LowPriorityMerges] where the
// platform allows one thread's priority to be lowered (Linux). A merge is
// background work that may take a core for a second or more; 10 levels
// down a thread gets about a tenth of the CPU a call's thread gets when
// they compete, so calls answer first and merges still keep up
// (docs/performance.md, "Process settings of the search index"). The
// thread is lowered only once the index's first reconciliation (the build,
// when there was no index) has ended: during a build scorch's persister
// waits for the merger to catch up, so a merger that other processes'
// work starves would hold the whole build back.
const mergerNice = 10

// compact merges the open index's segments once by bleve's default merge
// plan (floor 2,000 documents, growth 10), after its batches are on disk
// (scorch merges only persisted segments), and returns when the merge is
// done, Close begins (the merge is cancelled; the segments stay as they
// were), the index is abandoned or fails, or after compactTimeout. Errors
// are logged: an index left with more segments answers the same, a little
// slower.
func (x *Index) compact() {
	x.mu.RLock()
	idx, g := x.idx, x.guard
	x.mu.RUnlock()
	if idx == nil || g == nil || g.memOnly {
		return // a read-only index has no merger
	}
	deadline := time.Now().Add(10 * time.Second)
	for g.pending.Load() > 0 && !g.isDead() && !g.abandoned.Load() && !x.isClosed() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	adv, err := idx.Advanced()
	if err != nil {
		return
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), compactTimeout)
	defer cancel()
	t0 := time.Now()
	mo := mergeplan.DefaultMergePlanOptions
	done := make(chan error, 1)
	go func() {
		_, err := protect(func() (struct{}, error) { return struct{}{}, s.ForceMerge(ctx, &mo) })
		done <- err
	}()
	// Cancelling ctx stops a merge under way. An index abandoned meanwhile
	// parks its merger forever, and ForceMerge with it: that goroutine is
	// left behind like the index's own.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				x.log.Warn("search index: merging the build's segments failed; the index answers as it is", "err", err)
				return
			}
			x.log.Debug("search index: build's segments merged", "took", time.Since(t0).Round(time.Millisecond))
			return
		case <-x.closing: // Close waits for the build: stop the merge
			return
		case <-ctx.Done():
			x.log.Warn("search index: merging the build's segments took too long; left to the background merger", "took", time.Since(t0).Round(time.Millisecond))
			return
		case <-g.dead:
			return
		case <-tick.C:
			if g.abandoned.Load() {
				return
			}
		}
	}
}

// compactTimeout bounds compact's wait.
const compactTimeout = 2 * time.Minute
