package search

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	bsearch "github.com/blevesearch/bleve/v2/search"
	zapx "github.com/blevesearch/zapx/v17"
)

// Process-wide settings. bleve and zapx keep part of their configuration in
// package variables shared by every index of the process, and Go's memory
// limit and GOMAXPROCS belong to the whole program. This package changes
// none of them on its own: the program calls [SetProcessSettings] once,
// before it opens an index, and chooses there the optional tunings it wants.
//
// Registering this package's analyzers (mapping.go) and scorch callbacks
// (guard.go) from init is not such a change: it adds entries under this
// package's own names to bleve's registries, which an index uses only when
// its config names them, and retunes nothing another bleve user relies on.

// ProcessSettings are the optional process-wide tunings. The zero value
// applies only what ranking needs (BM25 b, always set).
type ProcessSettings struct {
	// ProportionalSegmentBuffers sizes zapx's buffer for a new in-memory
	// segment with a 40% margin over the batch's documents, instead of
	// zapx's margin of 100 documents (NewSegmentBufferNumResultsBump and
	// NewSegmentBufferAvgBytesPerDocFactor). An audited write indexes one or
	// two files, so with zapx's margin each write's segment reserves about a
	// hundred documents' worth, held until the segment is merged; a build's
	// batches of 256 files are sized about as zapx sizes them. The buffer grows
	// when a batch needs more.
	ProportionalSegmentBuffers bool

	// LowPriorityMerges runs the thread of each index's merger mergerNice
	// levels below its own priority, where one thread's priority can be
	// lowered (Linux; see nice_linux.go).
	LowPriorityMerges bool

	// SpareProcForMerges raises GOMAXPROCS by one, with LowPriorityMerges on
	// Linux and unless the GOMAXPROCS environment variable sets it: the
	// merge goroutine is locked to its low-priority thread, and a Go thread
	// holds its P (the right to run Go code) even while the OS lets other
	// threads run first, so the spare P keeps the calls' goroutines from
	// waiting for a P the merger holds.
	SpareProcForMerges bool
}

var (
	processMu  sync.Mutex
	processSet atomic.Pointer[ProcessSettings] // nil until SetProcessSettings
	spareProcs atomic.Int32                    // Ps SetProcessSettings added (SpareProcForMerges)
)

// SetProcessSettings sets bleve's BM25 length normalisation b to the value
// the ranking is tuned for (bm25B; bleve keeps it in a package variable
// read by every search) and applies the tunings s asks for. A program calls
// it once, before [Open]; Open panics when it was not called, since
// searches would rank by bleve's default b. A second call with the same
// settings does nothing; one with other settings panics.
func SetProcessSettings(s ProcessSettings) {
	processMu.Lock()
	defer processMu.Unlock()
	if old := processSet.Load(); old != nil {
		if *old != s {
			panic(fmt.Sprintf("search: SetProcessSettings(%+v) after SetProcessSettings(%+v): the settings are set once per process", s, *old))
		}
		return
	}
	bsearch.BM25_b = bm25B
	if s.ProportionalSegmentBuffers {
		zapx.NewSegmentBufferNumResultsBump = 0
		zapx.NewSegmentBufferAvgBytesPerDocFactor = 1.4
	}
	if s.SpareProcForMerges && s.LowPriorityMerges && canLowerMergerPriority && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
		spareProcs.Store(1)
	}
	processSet.Store(&s)
}

// processSettings returns the settings of [SetProcessSettings], and panics
// when it was not called or bleve's BM25 b was changed since.
func processSettings() ProcessSettings {
	s := processSet.Load()
	if s == nil {
		panic("search: SetProcessSettings was not called before Open (bleve would rank with its default BM25 b)")
	}
	if bsearch.BM25_b != bm25B {
		panic(fmt.Sprintf("search: bleve's BM25 b is %v, not %v: something changed it after SetProcessSettings", bsearch.BM25_b, bm25B))
	}
	return *s
}

// lowPriorityMerges reports whether the program asked for
// [ProcessSettings.LowPriorityMerges].
func lowPriorityMerges() bool {
	s := processSet.Load()
	return s != nil && s.LowPriorityMerges
}
