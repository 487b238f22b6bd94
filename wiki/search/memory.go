package search

import (
	"math"
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// Memory while building. A build of a large wiki analyses files faster than
// the index writes them out, and Go's collector lets the heap grow to twice
// what is live. Three limits keep a build's peak down (docs/performance.md,
// "Process settings of the search index"):
//
//   - at most maxPendingBatches batches are applied in memory and not yet
//     persisted (unsafe_batch returns before the write; see runtimeConfig);
//     the build waits for the persister past that;
//   - when the program asked for it ([ProcessSettings.BuildMemoryLimit]),
//     while a build of at least bigBuild files runs, Go's soft memory limit
//     ([debug.SetMemoryLimit]) is that limit, unless GOMEMLIMIT is set
//     (the user's limit wins) or the program set one; the collector runs
//     more often near it (a few percent more CPU), and never lets the heap
//     past it while less is live;
//   - when the build ends the limit is restored and the freed memory is
//     returned to the system ([debug.FreeOSMemory]), so a server that built
//     its index does not keep the build's peak while it serves.
const (
	maxPendingBatches = 4
	bigBuild          = 2000
)

var buildMem struct {
	mu    sync.Mutex
	n     int   // builds under way that set the limit
	prev  int64 // the limit before the first of them
	owned bool  // the limit is ours
}

// limitBuildMemory sets the build's memory limit for a build of files files
// and returns the function that ends it.
func limitBuildMemory(files int, limit int64) (done func()) {
	if files < bigBuild || limit <= 0 {
		return func() {}
	}
	buildMem.mu.Lock()
	defer buildMem.mu.Unlock()
	if buildMem.n == 0 {
		prev := debug.SetMemoryLimit(-1)
		buildMem.prev = prev
		buildMem.owned = prev == math.MaxInt64 && os.Getenv("GOMEMLIMIT") == ""
		if buildMem.owned {
			debug.SetMemoryLimit(limit)
		}
	}
	buildMem.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			buildMem.mu.Lock()
			defer buildMem.mu.Unlock()
			buildMem.n--
			if buildMem.n == 0 && buildMem.owned {
				debug.SetMemoryLimit(buildMem.prev)
				buildMem.owned = false
				debug.FreeOSMemory()
			}
		})
	}
}

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
