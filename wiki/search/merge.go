package search

import (
	"os"
	"runtime"
	"sync"
)

// Merging. Every audited write indexes its files as one batch, which
// becomes a new segment; bleve's merger (scorch) combines segments in the
// background by a tiered policy (mergeplan, after Lucene's
// TieredMergePolicy): segments smaller than FloorSegmentSize documents
// count as that size, and the index may hold MaxSegmentsPerTier (10)
// segments of each tier, tiers growing TierGrowth times from the floor,
// before the merger combines the best-balanced run of up to 10 of them.
//
// bleve's defaults (floor 2000 documents, growth 10) let a 6k-page wiki hold
// four segments, so nearly every one-page write made the merger rewrite the
// build's large segments: 600 page updates on Obsidian Help rewrote 400 MB
// in 12 s of merging, 20 ms of CPU a write, and under the load test such
// merges took a core for seconds while reads waited (read p99 56-58 ms in
// the runs with one, 23-34 ms without). With a floor of 100 and growth 20
// (tiers of 100, 2,000 and 40,000 documents) small segments merge among
// themselves and a large one is rewritten only once ten of its size exist:
// the same 600 updates rewrite 12 MB in 0.6 s (BenchmarkWriteChurn). The
// price is more segments: 14 instead of 7-9 after a build of 44k files,
// a search about 0.5 ms slower there (p50 4.0 against 3.5 ms).
const (
	mergeFloorSegmentSize = 100
	mergeTierGrowth       = 20
)

// mergePlanOptions is scorch's "scorchMergePlanOptions" (fields of
// mergeplan.MergePlanOptions; the ones not named keep bleve's defaults).
func mergePlanOptions() map[string]any {
	return map[string]any{"FloorSegmentSize": mergeFloorSegmentSize, "TierGrowth": mergeTierGrowth}
}

// mergerNice is the OS priority (nice value, 0-19; higher is lower
// priority) of the thread that runs an index's merges, where the platform
// allows one thread's priority to be lowered (Linux). A merge is background
// work that may take a core for a second or more; at nice 10 a thread
// gets about a tenth of the CPU a call's thread gets when they compete, so
// calls answer first and merges still keep up (under the load test's
// saturation, 53 writes a second, the merger spent 18 s of 60 merging and
// ended with 12 segments).
const mergerNice = 10

var spareProc sync.Once

// SpareProcForMerges raises GOMAXPROCS by one (once per process) where
// merges run at low priority (Linux), unless the GOMAXPROCS environment
// variable sets it. The merge goroutine is locked to its low-priority
// thread, and a Go thread holds its P (the right to run Go code) even while
// the OS lets other threads run first; the spare P keeps the calls'
// goroutines from waiting for a P the merger holds. A server calls it once
// at start; elsewhere it does nothing.
func SpareProcForMerges() {
	if !canLowerMergerPriority || os.Getenv("GOMAXPROCS") != "" {
		return
	}
	spareProc.Do(func() { runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1) })
}
