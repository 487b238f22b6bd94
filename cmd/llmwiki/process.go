package main

import (
	"context"
	"runtime/debug"
	"sync"

	"github.com/llmwiki/llmwiki/wiki"
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

// serveMemoryLimit is the soft memory limit of llmwiki serve, in bytes,
// and serveBytesPerPage the limit per page of a wiki where that is more.
// A first index build holds the build's batches, the first pass and the
// catalogue, and the link graph's first walk after it holds every page's
// links: at 144k pages about 350 MB live at either peak, which the
// collector's default goal (twice the live heap) let grow to 700 MB and
// more. Under the limit the collector runs more often instead; the limit
// grows with the wiki, since one under the live heap makes the collector
// run without end (docs/performance.md, "Build batches and the build's
// memory").
const (
	serveMemoryLimit  = 450 << 20
	serveBytesPerPage = 3 << 10
)

// limitServeMemory sets serve's soft memory limit unless GOMEMLIMIT sets
// one: serveMemoryLimit at once, raised to serveBytesPerPage a page when a
// listing of pages/ (in the background: serving does not wait for it)
// finds more pages. restore waits for the listing and puts the previous
// limit back (run is called many times in one test process).
func limitServeMemory(ctx context.Context, e env, st *wiki.Store) (restore func()) {
	if e.getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(serveMemoryLimit)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if n, _, _, err := st.PagesListed(ctx); err == nil && int64(n)*serveBytesPerPage > serveMemoryLimit {
			debug.SetMemoryLimit(int64(n) * serveBytesPerPage)
		}
	}()
	return func() {
		cancel()
		<-done
		debug.SetMemoryLimit(prev)
	}
}
