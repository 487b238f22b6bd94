package search

import "time"

// maxPendingBatches bounds a build's memory: at most that many batches are
// applied in memory and not yet persisted (unsafe_batch returns before the
// write; see runtimeConfig); the build waits for the persister past that
// (docs/performance.md, "Process settings of the search index").
const maxPendingBatches = 4

// waitPersisted waits (up to 10 s) while more than maxPendingBatches
// batches of g are not yet on disk.
func (x *Index) waitPersisted(g *guard) {
	if g == nil {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for g.pending.Load() > maxPendingBatches && !g.isDead() && !g.abandoned.Load() && !x.isClosed() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}
