package wiki

import (
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmwiki/llmwiki/wiki/changefeed"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Store is one wiki project on disk: the transactional store over the
// project directory ([store.Store]: transactions, locks, snapshots, the
// audit log, derived state) with the wiki's rules installed as its policy
// (see policy.go), and the wiki's own caches (the catalogue of pages, the
// settings of schema.md, the sources record, the change feed). A Store is
// safe for concurrent use, and several processes may open Stores on one
// directory.
type Store struct {
	*store.Store

	// Copied from the store at Open and never changed.
	dir      string // absolute host path; never shown to a model
	root     *os.Root
	log      *slog.Logger
	readOnly bool // the wiki cannot be written (see [store.Store.ReadOnly])

	sopts []store.Option // the store's options, gathered by Open's options

	pruneMu   sync.Mutex
	lastPrune time.Time // when a write last applied the snapshot retention

	cfgCache configCache

	srcMu   sync.Mutex
	srcRec  map[string]sourceRec // SourcesRecordFile as parsed; shared, never changed in place
	srcStat fs.FileInfo          // the file when parsed (see sameVersion)

	catMu    sync.Mutex
	cat      *catalogue          // the pages' metadata; nil until first scan
	catGen   uint64              // counts the sorted slices the catalogue has given (pagesSharedGen)
	catKeys  map[string][]string // PageKey -> the paths in cat with that key (catSet, catDel)
	catDirs  map[string]int      // folder -> how many pages of cat it holds (catSet, catDel)
	catAt    time.Time           // when the last scan of pages/ started
	catCost  time.Duration       // how long the last scan took
	catSub   *ChangeSub          // the catalogue's cursor on the change feed
	catSkips store.Skips         // pages/ files left out of the catalogue ([Store.PagesSkipped])
	// catFolders is [Store.folderIndex]'s answer, nil when a folder of
	// catDirs came or went since; folderKeys memoises [folderKey] by folder.
	catFolders map[string]string
	folderKeys map[string]string
	// The feed's periodic walk of pages/, run in the background (pages.go).
	catWalking atomic.Bool
	catWG      sync.WaitGroup
	catClosed  bool // under catMu: no background walk starts

	idxMemo   indexMemo  // index.md's lines by page, kept between renders (index.go)
	staleMemo staleMemo  // load_project's index_stale (project.go)
	idxLater  indexLater // a regeneration of index.md after the writes (index.go)

	feedOnce sync.Once        // starts feed (feed.go)
	feed     *changefeed.Feed // nil until first use, or when no watcher runs
	noWatch  bool             // WithoutWatcher
	viewOnly bool             // ViewOnly

	held atomic.Pointer[HeldFunc] // SetHeld; nil when nothing holds files
	keep atomic.Pointer[KeepFunc] // SetKeepSnapshots; nil when retention keeps nothing more

	committer atomic.Pointer[Committer] // SetCommitter; nil with git: off
}

// Option configures [Open].
type Option func(*Store)

// WithLogger sets the logger for problems that are also reported to callers
// (stale derived state, repaired files). Default: slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(s *Store) { s.sopts = append(s.sopts, store.WithLogger(l)) }
}

// WithClock sets the clock used for created/updated times, snapshot names and
// log entries. Tests use it for deterministic output. Default: time.Now.
func WithClock(now func() time.Time) Option {
	return func(s *Store) { s.sopts = append(s.sopts, store.WithClock(now)) }
}

// WithFaults installs a fault-injection seam for tests: fn is called before
// each step of every atomic write and a non-nil error fails that step.
func WithFaults(fn func(step, rel string) error) Option {
	return func(s *Store) { s.sopts = append(s.sopts, store.WithFaults(fn)) }
}

// Open opens the project at dir, which must be an existing directory, with
// the wiki's rules installed in its store (see [store.Open]: it creates
// .llmwiki/ and its lock files when missing, completes a write a crash
// interrupted, and sweeps temp files in the background). It does not create
// the rest of the layout: see [Init].
func Open(dir string, opts ...Option) (*Store, error) {
	s := &Store{}
	for _, o := range opts {
		o(s)
	}
	sopts := append(s.sopts, store.WithPolicy(s.policy()))
	if s.viewOnly {
		sopts = append(sopts, store.ViewOnly())
	}
	st, err := store.Open(dir, sopts...)
	if err != nil {
		return nil, err
	}
	s.Store, s.sopts = st, nil
	s.dir, s.root, s.log, s.readOnly = st.Dir(), st.Root(), st.Logger(), st.ReadOnly()
	return s, nil
}

// Close writes a pending regeneration of index.md ([Store.FlushIndex]),
// stops the change feed, then closes the store (waiting for its
// background work).
func (s *Store) Close() error {
	s.closeIndexLater()
	s.feedOnce.Do(func() {}) // no watcher starts after Close
	s.feed.Close()
	s.closeCatalogue()
	return s.Store.Close()
}
