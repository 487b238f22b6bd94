package main

import (
	"sync"

	"github.com/llmwiki/llmwiki/wiki/search"
)

var tuneOnce sync.Once

// tuneProcess applies the process-wide settings llmwiki runs with, once per
// process (run calls it before every command; tests call run many times).
// Each tuning is kept for what docs/performance.md measured of it, under
// "Process settings of the search index".
func tuneProcess() {
	tuneOnce.Do(func() {
		search.SetProcessSettings(search.ProcessSettings{
			ProportionalSegmentBuffers: true, // a one-page write's segment reserves one document, not ~100
			LowPriorityMerges:          true, // calls answer before background merges
			SpareProcForMerges:         true, // and never wait for a P the merger holds
		})
	})
}
