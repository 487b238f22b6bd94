package search

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/gofrs/flock"
	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// StateDir is the folder of the search index's state, inside the project.
const StateDir = ".llmwiki/search"

const (
	mainDir      = StateDir + "/index"        // the shared on-disk index, unless currentFile names another
	currentFile  = StateDir + "/current"      // the folder of the shared index, when not mainDir
	freshPrefix  = "index-"                   // shared indexes rebuilt while a server ran
	manifestFile = StateDir + "/manifest.gob" // what the index holds (see manifest; named for its first encoding, manifest.go)
	procPrefix   = "proc-"                    // private indexes of other processes
	ownerLock    = "owner.lock"
	internalID   = "llmwiki_id"
	internalVer  = "llmwiki_schema"
	// batchDocs bounds a build's batch: bleve holds every term occurrence
	// of a batch, with its analysis, in memory while it turns the batch
	// into a segment, several times the batch's text; smaller batches make
	// more segments to merge (docs/performance.md, "Build batches and the
	// build's memory").
	batchDocs = 128
	// batchBytes bounds a build's batch by the size of its files too: a
	// batch of batchDocs pages of Chinese or Japanese (three terms a
	// character) would hold far more than one of English
	// (docs/performance.md, "Figures moved out of code comments").
	batchBytes = 256 << 10
	// maxParts bounds how many batches of one build chunk are indexed at
	// once (see buildParts).
	maxParts = 4
)

// buildParts is how many batches of batchDocs files a build indexes at
// once: bleve turns each batch into a segment on the caller's goroutine,
// so batches side by side use every processor (docs/performance.md,
// "Index build at scale (issue 20)"). The spare P of
// [ProcessSettings.SpareProcForMerges] is the merger's, not a part's: a
// third batch on two cores adds its memory and no speed.
func buildParts() int { return max(1, min(runtime.GOMAXPROCS(0)-int(spareProcs.Load()), maxParts)) }

// The index states reported in [Status].
const (
	StateReady    = "ready"    // in step with the files
	StateBuilding = "building" // a build is under way; results cover what is indexed so far
	StateStale    = "stale"    // an update failed; results may miss recent changes (Reason says which)
	StateFailed   = "failed"   // the index cannot be used; searches fail with Reason
)

// Status is the index's health, carried by every search result and by
// load_project as index: {state, pages, reason}.
type Status struct {
	// State is ready, building, stale or failed.
	State string `json:"state" jsonschema:"ready: in step with the files; building: first build or rebuild under way (the reason says what results cover meanwhile); stale: an update failed and results may miss recent changes; failed: the index cannot be used"`
	// Pages is the number of pages in the index (files of kind page: not
	// sources, not context.md).
	Pages int `json:"pages" jsonschema:"pages in the index (sources and context.md are not counted)"`
	// Reason says why the state is not ready, or what the last repair did.
	Reason string `json:"reason,omitempty" jsonschema:"why the state is not ready; or what the last repair did"`
	// Skipped counts the files where pages and sources go that the index
	// does not hold, by reason (wiki.SkipBinary, wiki.SkipUnservableName,
	// wiki.SkipUnreadable, store.SkipNotRegular);
	// SkippedExamples names up to [store.SkipExamples] of each, first by path.
	// validate_structure names every one of them.
	Skipped         map[string]int      `json:"skipped,omitempty" jsonschema:"files under pages/ and sources/ that search does not cover, counted by reason (binary: not text; unservable name: a name the tools cannot use, or a hidden .md file; unreadable: reading failed; not a regular file: a FIFO, socket or device, never opened); validate_structure lists each"`
	SkippedExamples map[string][]string `json:"skipped_examples,omitempty" jsonschema:"a few paths of each skipped reason"`
}

// Options configure [Open]. The zero value is the server's configuration.
type Options struct {
	// DefaultLang is the language of files that name none and whose path and
	// text say nothing clearer ("en" when empty; schema.md's `lang` key, if
	// set, wins over this).
	DefaultLang string
	// ReconcileEvery is the least time between two reconciliations with the
	// disk before a search. 0 (the server's setting) follows the store's
	// change feed ([wiki.Store.WatchChanges]): a search re-checks only the
	// paths the file watcher reported, and walks everything at start, when
	// the watcher lost events and every [wiki.FullRescanEvery]; when no
	// watcher runs (or the index is marked stale) it walks when the last
	// walk is older than ten times its cost, at most 2 s. Positive: that
	// interval, without the feed. Negative: before every search.
	ReconcileEvery time.Duration
	// BuildWait is how long a search waits for a build in progress before it
	// answers from the part already indexed (default 20 s).
	BuildWait time.Duration
	// Logger receives progress and problems (default: the store's logger).
	Logger *slog.Logger
}

// fileRec is what the manifest knows about one indexed file.
type fileRec struct {
	Size    int64
	MTime   int64 // unix nanoseconds
	SHA     string
	Skipped bool // binary: known but not indexed
	// Len is the file's length in terms in each scored field (see
	// lensOf), for BM25's average field lengths.
	Len fieldLens
}

// manifest maps each indexed file to the size, mtime and sha256 it had when
// indexed. It is saved a little after changes (and on Close); a manifest
// that lags the index only makes the next reconciliation hash a few files
// again, because indexing a file twice is harmless.
type manifest struct {
	Schema  string
	IndexID string
	Files   map[string]fileRec
}

// Index is the search index of one project, kept in step with its files. It
// implements [store.Derived]: register it with [wiki.Store.AddDerived] so every
// audited write updates it in the same call. Open it with [Open], then
// [Index.Start]; searches wait for the first build.
type Index struct {
	st   *wiki.Store
	opt  Options
	proc ProcessSettings // of SetProcessSettings, when the index was opened
	log  *slog.Logger
	// home is where the index keeps its state: the wiki, or on a
	// read-only wiki a folder under the user's cache folder (home.go).
	// Changed under opMu.
	home atomic.Pointer[home]

	// gen counts the batches sent to the index; counts caches the counts
	// by kind of one (index, gen), so a search does not run a query over
	// every page's kind term to say how many pages there are.
	gen    atomic.Uint64
	counts atomic.Pointer[kindCounts]

	mu      sync.RWMutex // guards the fields below
	idx     bleve.Index
	dir     string // project-relative folder of the open bleve index
	guard   *guard // watches idx's files and background work (guard.go)
	state   string
	reason  string // why failed, or a note about the last repair
	done    int    // build progress
	total   int
	ready   chan struct{} // closed when the current build is done
	private bool
	owner   *flock.Flock
	closed  bool
	closing chan struct{} // closed when Close begins
	// decided is closed once the first load knows whether a first pass
	// runs (early.go): at once without a manifest, after the walk when the
	// manifest lacks many of the files (a build stopped half way).
	decided  chan struct{}
	lastWalk time.Time
	walkCost time.Duration
	// skips maps each file the index does not hold though it lies where
	// pages and sources go to the reason (wiki.SkipBinary, ...), for
	// [Status].Skipped: binary files as the manifest records them, names
	// llmwiki will not serve as the last walk or reported change saw them.
	skips store.Skips

	opMu     sync.Mutex // serialises changes to the index and manifest
	man      manifest
	dirty    bool
	saveT    *time.Timer
	avg      avgCache // BM25 average field lengths (bm25.go)
	started  bool
	building sync.WaitGroup

	feed feedState // the change feed's cursor (wiki/changefeed)

	early atomic.Pointer[earlyPass] // answers searches during a full build (early.go)

	snips  snippetCache    // files read for snippets, by version (snippetcache.go)
	stats  store.StatCache // lstats of the hits' files
	fields fieldCache      // stored fields of hits (fieldcache.go)
}

// Open returns the project's index without touching the disk; [Index.Start]
// opens or builds it in the background.
//
// It panics when [SetProcessSettings] was not called first.
func Open(st *wiki.Store, opt Options) *Index {
	proc := processSettings()
	if opt.BuildWait == 0 {
		opt.BuildWait = 20 * time.Second
	}
	log := opt.Logger
	if log == nil {
		log = st.Logger()
	}
	x := &Index{st: st, opt: opt, proc: proc, log: log, state: StateBuilding, ready: make(chan struct{}), closing: make(chan struct{}), decided: make(chan struct{})}
	x.reason = "the index has not been opened yet"
	x.home.Store(wikiHome(st))
	return x
}

// Start opens the on-disk index (or builds it when missing, unreadable or
// made by another version) and reconciles it with the files, in the
// background. It returns at once; Start after the first call does nothing.
func (x *Index) Start() {
	x.mu.Lock()
	if x.started || x.closed {
		x.mu.Unlock()
		return
	}
	x.started = true
	ready := x.ready
	x.building.Add(1) // under mu, so that it happens before Close's Wait
	x.mu.Unlock()
	x.opMu.Lock() // released by load once the index is open
	// Without a manifest the build is a full one: searches answer from a
	// first pass meanwhile (early.go), known from here on.
	var e *earlyPass
	if _, err := x.home.Load().root.Lstat(manifestFile); err != nil {
		e = newEarlyPass()
		x.early.Store(e)
	}
	go func() {
		defer x.building.Done()
		x.load(ready, "", nil, e)
	}()
}

// Name is "search" (the name of this state in stale reports).
func (x *Index) Name() string { return "search" }

// Status reports the index's state and size.
func (x *Index) Status() Status {
	x.mu.RLock()
	s := Status{State: x.state, Reason: x.reason}
	idx := x.idx
	if x.state == StateBuilding {
		if e := x.early.Load(); e != nil {
			s.Reason = e.status(x.done, x.total)
		} else if x.total > 0 {
			s.Reason = fmt.Sprintf("building the index (%s of %s files so far); until it is done, results cover only those files", english.Thousands(x.done), english.Thousands(x.total))
		}
	}
	s.Skipped, s.SkippedExamples = x.skips.Report()
	x.mu.RUnlock()
	if idx != nil {
		s.Pages = x.pageCount(idx)
	}
	if s.State == StateReady {
		for _, st := range x.st.Stale() {
			if st.Name == x.Name() {
				s.State, s.Reason = StateStale, st.Reason
			}
		}
	}
	return s
}

// kindCounts is what one index at one batch count holds by kind.
type kindCounts struct {
	idx   bleve.Index
	gen   uint64
	pages int
	few   bool // see fewNonPages
}

// kindCounts returns the counts of idx, counted again only after a batch
// was applied or the index was replaced. gen is bumped after a batch is
// applied and before its writer goes on, so a count that may have missed
// a batch is never stored under a gen that includes it.
func (x *Index) kindCounts(idx bleve.Index) *kindCounts {
	gen := x.gen.Load()
	if c := x.counts.Load(); c != nil && c.idx == idx && c.gen == gen {
		return c
	}
	c := &kindCounts{idx: idx, gen: gen, pages: countKind(idx, KindPage)}
	if n, err := idx.DocCount(); err == nil {
		others := countKind(idx, KindSource) + countKind(idx, KindContext)
		c.few = uint64(c.pages+others) == n && others <= c.pages/4
	}
	x.counts.Store(c)
	return c
}

// pageCount returns how many pages idx holds (see kindCounts).
func (x *Index) pageCount(idx bleve.Index) int { return x.kindCounts(idx).pages }

func countKind(idx bleve.Index, kind string) int {
	sr, err := safeSearch(context.Background(), idx, bleve.NewSearchRequestOptions(term("kind", kind, 1), 0, 0, false))
	if err != nil {
		return 0
	}
	return int(sr.Total)
}

// defaultLang is the language of files that name none.
func (x *Index) defaultLang() string {
	if l := normLang(x.st.Settings().Lang); l != "" {
		return l
	}
	if l := normLang(x.opt.DefaultLang); l != "" {
		return l
	}
	return DefaultLang
}

// abs returns the host path of a project-relative state folder.
func (x *Index) abs(rel string) string {
	return filepath.Join(x.home.Load().dir, filepath.FromSlash(rel))
}

// checkStateDir makes sure .llmwiki/search is a real folder inside the
// project (never a symlink that could carry the index's writes outside).
func (x *Index) checkStateDir() error {
	root := x.home.Load().root
	for _, p := range []string{".llmwiki", StateDir} {
		fi, err := root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if err := root.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is not a folder (a symlink or a file); remove it so the index can be rebuilt", p)
		}
	}
	return nil
}

// prevIndex is the index a rebuild replaces: it is abandoned, never
// reopened, and its folder is removed once the new index is open.
type prevIndex struct {
	home    *home
	dir     string
	private bool
	guard   *guard
	owner   *flock.Flock
}

// load opens or creates the index, then reconciles it. It is called with
// opMu held (by Start or restart) and releases it once the index is open.
// A rebuild (prev != nil) builds into a fresh folder (see guard.go). early
// is the first pass of a full build Start found, nil otherwise.
func (x *Index) load(ready chan struct{}, why string, prev *prevIndex, early *earlyPass) {
	defer close(ready)
	decide := sync.OnceFunc(func() {
		if prev == nil {
			close(x.decided)
		}
	})
	defer decide()
	if early != nil || prev != nil {
		// A full build: searches answer from a first pass meanwhile, which
		// starts first (its walk lists names only).
		x.startEarly(ready, early, nil)
		decide()
	}
	// The files are walked while the index and its manifest are opened.
	walk := x.startWalk()
	note, err := x.openLocked(why, prev)
	x.opMu.Unlock()
	w := <-walk
	if err != nil {
		x.fail("the search index cannot be opened or created: " + err.Error())
		return
	}
	if prev != nil {
		x.mu.RLock()
		dir := x.dir
		x.mu.RUnlock()
		if prev.dir != "" && (prev.dir != dir || prev.home != x.home.Load()) {
			x.removeIndexDir(prev.home, prev.dir, prev.guard)
		}
		if prev.owner != nil {
			_ = prev.owner.Close()
		}
	}
	if w := x.where(); w != "" {
		note = joinNotes(w, note)
	}
	if x.early.Load() == nil && prev == nil {
		// A build stopped half way (a command that answered from the pass
		// and exited) leaves a manifest of some of the files: when it
		// lacks many, the searches meanwhile answer from a pass too.
		x.opMu.Lock()
		known := len(x.man.Files)
		x.opMu.Unlock()
		if n := w.files.count(); n-known >= earlyMinFiles && n-known > n/4 {
			x.startEarly(ready, nil, w.files)
		}
	}
	decide()
	t0 := time.Now()
	holdForTest()
	// The pass first: the first searches wait for it, the build takes
	// tens of seconds either way.
	x.WaitFirstPass(context.Background(), earlyHold)
	if err := x.reconcileWalk(true, w); err != nil {
		x.fail("building the search index failed: " + err.Error())
		return
	}
	x.mu.Lock()
	x.state, x.reason, x.total, x.done = StateReady, note, 0, 0
	if x.guard != nil {
		x.guard.built.Store(true) // merges from now on may run at low priority (merge.go)
	}
	x.mu.Unlock()
	x.st.ClearStale(x.Name())
	x.log.Info("search index ready", "pages", x.Status().Pages, "took", time.Since(t0).Round(time.Millisecond))
}

// joinNotes joins two notes of the status, either of which may be "".
func joinNotes(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

func (x *Index) fail(reason string) {
	reason = x.public(reason)
	x.mu.Lock()
	x.state, x.reason = StateFailed, reason
	x.mu.Unlock()
	x.st.MarkStale(x.Name(), reason)
	x.log.Error("search index failed", "reason", reason)
}

// currentDir is the project-relative folder of the shared index: the one
// named by .llmwiki/search/current, else .llmwiki/search/index.
func (x *Index) currentDir() string {
	data, ok, err := x.home.Load().read(currentFile)
	if err != nil || !ok {
		return mainDir
	}
	name := strings.TrimSpace(string(data))
	if name == "index" {
		return mainDir
	}
	rest, ok := strings.CutPrefix(name, freshPrefix)
	if !ok || rest == "" || strings.Trim(rest, "0123456789abcdef") != "" {
		return mainDir
	}
	return StateDir + "/" + name
}

// freshDir names a new folder for the shared index.
func freshDir() string {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	return StateDir + "/" + freshPrefix + hex.EncodeToString(rnd[:])
}

// openLocked opens the shared index, or creates it when it is missing,
// unreadable or of another schema; when another process holds it, it
// creates a private one. A rebuild (prev != nil) creates a new index in a
// fresh folder (private again if the previous one was). It returns a note
// for the status (a repair made).
func (x *Index) openLocked(why string, prev *prevIndex) (string, error) {
	if x.home.Load().readOnly {
		if prev == nil {
			if ok := x.openInPlaceLocked(); ok {
				return why, nil
			}
		}
		if err := x.toCacheLocked(); err != nil {
			return "", err
		}
	}
	if err := x.checkStateDir(); err != nil {
		return "", err
	}
	note := why
	if prev != nil {
		if prev.private {
			dir, err := x.privateDir()
			if err != nil {
				return "", err
			}
			return note, x.createLocked(dir)
		}
		return note, x.createLocked(freshDir())
	}
	cur := x.currentDir()
	idx, g, err := openGuarded(x.abs(cur), x.onBackgroundError, false)
	switch {
	case err == nil:
		id, ver := internal(idx, internalID), internal(idx, internalVer)
		man, ok := x.loadManifest()
		if ver != schemaVersion || id == "" || !ok || man.IndexID != id {
			_ = x.closeIndex(idx, g)
			if ver != schemaVersion && ver != "" {
				note = "rebuilt: the index was made by another version of llmwiki"
			}
			return note, x.createLocked(cur)
		}
		x.man = man
		x.skipsFromManifest()
		x.setIndex(idx, cur, false, g)
		x.removeOrphans()
		return note, nil
	case errors.Is(err, bleve.ErrorIndexPathDoesNotExist) || errors.Is(err, bleve.ErrorIndexMetaMissing):
		return note, x.createLocked(cur)
	case strings.Contains(err.Error(), "timeout"):
		// Another llmwiki process serves this wiki and holds the index.
		dir, err := x.privateDir()
		if err != nil {
			return "", err
		}
		return "another llmwiki process holds the shared index; this process keeps its own under " + StateDir, x.createLocked(dir)
	default:
		// Unreadable: whatever the failed open left behind is never
		// reused; the new index goes to a fresh folder.
		x.log.Warn("search index unreadable; rebuilding it", "err", err)
		if note == "" {
			note = "rebuilt: the index on disk was unreadable (" + shortErr(err) + ")"
		}
		if err := x.createLocked(freshDir()); err != nil {
			return "", err
		}
		_ = x.home.Load().root.RemoveAll(cur)
		return note, nil
	}
}

// runtimeConfig is scorch's configuration: a second process waits at most
// a second for the index's lock, batches return once applied in memory
// (persisted in the background within milliseconds; the manifest is saved
// only when every batch is persisted, so a crash costs a re-index of the
// files changed since, never a file the index silently lacks), and the
// callbacks of guard.go watch the background goroutines; merges follow
// mergePlanOptions (merge.go).
func runtimeConfig() map[string]any {
	return map[string]any{"bolt_timeout": "1s", "unsafe_batch": true,
		"eventCallbackName": callbackName, "asyncErrorCallbackName": callbackName,
		"scorchMergePlanOptions": mergePlanOptions()}
}

func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && len(s)-i < 120 {
		s = s[i+2:]
	}
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

func internal(idx bleve.Index, key string) string {
	b, err := idx.GetInternal([]byte(key))
	if err != nil {
		return ""
	}
	return string(b)
}

// createLocked makes an empty index in dir, replacing whatever is there.
// A shared index's folder is recorded in .llmwiki/search/current.
func (x *Index) createLocked(dir string) error {
	h := x.home.Load()
	root := h.root
	if err := root.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the old index: %w", err)
	}
	// Created with durable batches, so the mapping and our keys are on disk
	// before it is reopened with the runtime configuration.
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	id := hex.EncodeToString(rnd[:])
	_, err := protect(func() (struct{}, error) {
		idx, err := bleve.NewUsing(x.abs(dir), newMapping(), "scorch", "scorch", map[string]any{"bolt_timeout": "1s", "eventCallbackName": callbackName})
		if err != nil {
			return struct{}{}, err
		}
		b := idx.NewBatch()
		b.SetInternal([]byte(internalID), []byte(id))
		b.SetInternal([]byte(internalVer), []byte(schemaVersion))
		err = idx.Batch(b)
		if cerr := idx.Close(); err == nil {
			err = cerr
		}
		return struct{}{}, err
	})
	if err != nil {
		return err
	}
	idx, g, err := openGuarded(x.abs(dir), x.onBackgroundError, false)
	if err != nil {
		return err
	}
	private := strings.HasPrefix(path.Base(dir), procPrefix)
	if !private {
		name := path.Base(dir)
		if err := h.write(currentFile, []byte(name+"\n")); err != nil {
			x.log.Warn("search: the index folder could not be recorded", "err", err)
		}
	}
	x.man = manifest{Schema: schemaVersion, IndexID: id, Files: map[string]fileRec{}}
	x.skipsFromManifest()
	x.dirty = true
	x.setIndex(idx, dir, private, g)
	if !private {
		x.removeOrphans()
	}
	return nil
}

func (x *Index) setIndex(idx bleve.Index, dir string, private bool, g *guard) {
	x.mu.Lock()
	x.idx, x.dir, x.private, x.guard = idx, dir, private, g
	x.mu.Unlock()
}

// privateDir makes a folder for this process's own index, held by a lock so
// that another process can tell it is in use.
func (x *Index) privateDir() (string, error) {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	dir := StateDir + "/" + procPrefix + fmt.Sprintf("%d-%s", os.Getpid(), hex.EncodeToString(rnd[:]))
	if err := x.home.Load().root.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	fl := flock.New(filepath.Join(x.abs(dir), ownerLock))
	if ok, err := fl.TryLock(); err != nil || !ok {
		return "", fmt.Errorf("cannot lock the private index folder")
	}
	x.owner = fl
	return dir, nil
}

// removeOrphans deletes private index folders whose process has gone, and
// shared index folders other than the current one that no process holds.
func (x *Index) removeOrphans() {
	h := x.home.Load()
	if h.readOnly {
		return
	}
	var ents []fs.DirEntry
	var err error
	if h.st != nil {
		ents, err = h.st.ReadDir(StateDir) // the wiki's own: never waits on a FIFO
	} else {
		ents, err = fs.ReadDir(h.root.FS(), StateDir) // the user's cache folder
	}
	if err != nil {
		return
	}
	cur := path.Base(x.currentDir())
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() {
			continue
		}
		lock := ""
		switch {
		case strings.HasPrefix(name, procPrefix):
			lock = ownerLock
		case (name == "index" || strings.HasPrefix(name, freshPrefix)) && name != cur:
			lock = "store/root.bolt" // bbolt holds it with flock while open
		default:
			continue
		}
		dir := StateDir + "/" + name
		lp := filepath.Join(x.abs(dir), filepath.FromSlash(lock))
		if _, err := os.Stat(lp); err != nil {
			if errors.Is(err, fs.ErrNotExist) && lock != ownerLock {
				_ = h.root.RemoveAll(dir)
			}
			continue
		}
		fl := flock.New(lp)
		if ok, err := fl.TryLock(); err == nil && ok {
			_ = h.root.RemoveAll(dir)
			_ = fl.Close()
		}
	}
}

// removeIndexDir removes the folder of an abandoned index, unless it was
// replaced meanwhile (by another process, say): unlinking files that are
// still mapped is safe, the mappings stay valid.
func (x *Index) removeIndexDir(h *home, dir string, g *guard) {
	if h == nil || h.readOnly {
		return
	}
	if g != nil {
		fi, err := os.Stat(filepath.Join(h.dir, filepath.FromSlash(dir), "index_meta.json"))
		if err == nil && g.meta != nil && !os.SameFile(fi, g.meta) {
			return
		}
	}
	_ = h.root.RemoveAll(dir)
}

func (x *Index) loadManifest() (manifest, bool) {
	data, ok, err := x.home.Load().read(manifestFile)
	if err != nil || !ok {
		return manifest{}, false
	}
	m, err := decodeManifest(data)
	if err != nil || m.Schema != schemaVersion || m.Files == nil {
		return manifest{}, false
	}
	return m, true
}

// saveManifest writes the manifest when it changed. Call with opMu held.
func (x *Index) saveManifestLocked() {
	x.mu.RLock()
	private, g := x.private, x.guard
	x.mu.RUnlock()
	h := x.home.Load()
	if !x.dirty || private || x.man.Files == nil || g == nil || g.abandoned.Load() || g.memOnly || h.readOnly {
		return
	}
	if g.pending.Load() > 0 {
		// Some batch is not on disk yet: saving now could claim what the
		// index on disk lacks. Try again shortly.
		x.saveSoon()
		return
	}
	if err := h.write(manifestFile, encodeManifest(&x.man)); err != nil {
		// Not fatal: the next start re-hashes what changed since.
		x.log.Warn("search manifest not saved", "err", err)
		return
	}
	x.dirty = false
}

// saveSoon saves the manifest two seconds after the first unsaved change.
func (x *Index) saveSoon() {
	if x.saveT != nil {
		return
	}
	x.saveT = time.AfterFunc(2*time.Second, func() {
		x.opMu.Lock()
		defer x.opMu.Unlock()
		x.saveT = nil
		if !x.isClosed() {
			x.saveManifestLocked()
		}
	})
}

// Close saves the manifest and closes the index. A build in progress is
// abandoned (the next start resumes it from the manifest). An index whose
// files were damaged is not closed (see guard.go): its folder is removed,
// so the next start builds it again.
func (x *Index) Close() error {
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return nil
	}
	x.closed = true
	close(x.closing)
	x.mu.Unlock()
	x.building.Wait()
	x.opMu.Lock()
	defer x.opMu.Unlock()
	if x.saveT != nil {
		x.saveT.Stop()
		x.saveT = nil
	}
	x.mu.Lock()
	idx, private, dir, owner, g := x.idx, x.private, x.dir, x.owner, x.guard
	x.idx = nil
	x.mu.Unlock()
	var err error
	if idx != nil {
		// Let the background persister catch up (it takes milliseconds).
		for i := 0; i < 200 && g.pending.Load() > 0 && !g.isDead(); i++ {
			time.Sleep(5 * time.Millisecond)
		}
		if derr := g.check(idx); derr != nil || g.abandoned.Load() {
			g.abandon()
			x.log.Warn("search index damaged; left open and removed, the next start rebuilds it", "reason", derr)
			x.removeIndexDir(x.home.Load(), dir, g)
		} else {
			if g.pending.Load() <= 0 {
				x.saveManifestLocked()
			}
			err = x.closeIndex(idx, g)
		}
	}
	if x.saveT != nil {
		x.saveT.Stop()
		x.saveT = nil
	}
	if private {
		_ = x.home.Load().root.RemoveAll(dir)
	}
	if owner != nil {
		_ = owner.Close()
	}
	x.home.Load().close()
	x.stats.Close()
	return err
}

// closeIndex closes a sound bleve index, giving up after 10 s so that
// closing never hangs the server.
func (x *Index) closeIndex(idx bleve.Index, g *guard) error {
	done := make(chan error, 1)
	go func() {
		_, err := protect(func() (struct{}, error) { return struct{}{}, idx.Close() })
		done <- err
	}()
	select {
	case err := <-done:
		g.unregister(idx)
		return err
	case <-time.After(10 * time.Second):
		x.log.Error("search index did not close within 10 s; left behind")
		return errors.New("the search index did not close in time")
	}
}

func (x *Index) isClosed() bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.closed
}

// fileStat is what a walk sees of one file.
type fileStat struct {
	size  int64
	mtime int64
}

// walk lists every indexable file with its size and mtime: pages/**.md,
// sources/** and context.md. Hidden files and folders, writer temp files and
// symlinks are skipped. Each folder is listed without a stat per entry and
// each file stated by name in its folder ([store.Dir]): one system call per
// file, not the two an os.Root's ReadDir and Info make (see listing.go).
func (x *Index) walk() *listing {
	return x.walkFrom(nil)
}

// walkFrom is walk with pages/ and sources/ already listed by l when l is
// not nil (see [Index.subscribeWalk]); it finishes l.
func (x *Index) walkFrom(l *lister) *listing {
	if l == nil {
		return x.walkWith(newLister())
	}
	return x.finishWalk(l)
}

// walkWith lists pages/ and sources/ into l, then finishes the walk.
func (x *Index) walkWith(l *lister) *listing {
	root := x.st.Root()
	for _, top := range []string{"pages", "sources"} {
		if fi, err := root.Lstat(top); err != nil || !fi.IsDir() {
			continue
		}
		r, err := store.OpenRootDir(root, top)
		if err != nil {
			continue
		}
		walkDir(r, top, l)
		r.Close()
	}
	return x.finishWalk(l)
}

// finishWalk adds context.md to a walk of pages/ and sources/ and finishes it.
func (x *Index) finishWalk(l *lister) *listing {
	root := x.st.Root()
	if fi, err := root.Lstat("context.md"); err == nil && fi.Mode().IsRegular() {
		l.addStat("", "context.md", fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano()})
	} else if err == nil && store.IsSpecial(fi.Mode()) {
		l.special = append(l.special, "context.md")
	}
	return l.finish()
}

// indexable reports whether the regular file at rel is one the index holds:
// a kind of file it indexes, not hidden, not a writer's temp file. Every walk
// of the index (the start walk, a reported folder) uses it.
func indexable(rel string) bool {
	return !strings.HasPrefix(path.Base(rel), ".") && !store.IsTempName(rel) && kindOf(rel) != "" && wiki.UnservableName(rel) == ""
}

// skipReason is the reason a file the manifest records is not indexed, ""
// when it is.
func skipReason(binary bool) string {
	if binary {
		return wiki.SkipBinary
	}
	return ""
}

// setSkip records that the index does not hold p, for reason (or, with
// reason "", that it holds p or p is gone).
func (x *Index) setSkip(p, reason string) {
	x.mu.Lock()
	x.setSkipLocked(p, reason)
	x.mu.Unlock()
}

func (x *Index) setSkipLocked(p, reason string) { x.skips.Set(p, reason) }

// resetSkipsLocked replaces the files skipped for reason by paths (a walk's
// findings). Call with mu held.
func (x *Index) resetSkipsLocked(reason string, paths []string) {
	x.skips.ResetReason(reason, paths)
}

// skipsFromManifest sets the binary files skipped from the manifest (after
// it was loaded or replaced). Call with opMu held.
func (x *Index) skipsFromManifest() {
	var bin []string
	for p, r := range x.man.Files {
		if r.Skipped {
			bin = append(bin, p)
		}
	}
	x.mu.Lock()
	x.resetSkipsLocked(wiki.SkipBinary, bin)
	x.mu.Unlock()
}

// reconcile brings the index in step with the files on disk: files whose
// size or mtime differ from the manifest are hashed, and re-indexed when the
// hash differs too; files gone from disk are removed. It works in batches,
// holding opMu for one batch at a time so that writes are not held up.
func (x *Index) reconcile(progress bool) error {
	w := x.startWalk()
	return x.reconcileWalk(progress, <-w)
}

// walkResult is a walk of the files, and when it started.
type walkResult struct {
	files *listing
	t0    time.Time
}

// startWalk subscribes to the change feed and then walks the files in the
// background; the walk arrives on the channel.
func (x *Index) startWalk() <-chan walkResult {
	out := make(chan walkResult, 1)
	t0 := time.Now()
	go func() {
		// Subscribe before the walk, so no outside edit falls between. The
		// first subscription starts the store's watcher, whose walk lists
		// the files for this one too.
		files := x.walkFrom(x.subscribeWalk())
		out <- walkResult{files, t0}
	}()
	return out
}

// reconcileWalk is reconcile with the walk done.
func (x *Index) reconcileWalk(progress bool, w walkResult) error {
	t0 := w.t0
	x.mu.Lock()
	x.resetSkipsLocked(wiki.SkipUnservableName, w.files.unserved)
	// Unreadable files are not in the manifest, so the walk's todo
	// holds every one still there and reading it records it again.
	x.resetSkipsLocked(wiki.SkipUnreadable, nil)
	x.resetSkipsLocked(store.SkipNotRegular, w.files.special)
	x.mu.Unlock()
	todo, gone := x.compareWalk(w.files)
	sort.Slice(todo, func(i, j int) bool { return todo[i].path < todo[j].path })
	if progress {
		x.mu.Lock()
		x.total, x.done = len(todo), 0
		x.mu.Unlock()
	}
	changed := 0
	parts := buildParts()
	for len(todo) > 0 || len(gone) > 0 {
		if x.isClosed() {
			return nil
		}
		x.mu.RLock()
		g := x.guard
		x.mu.RUnlock()
		x.waitPersisted(g)
		n, sum := 0, int64(0)
		for n < len(todo) && n < parts*batchDocs && (n == 0 || sum+todo[n].size <= int64(parts)*batchBytes) {
			sum += todo[n].size
			n++
		}
		chunk := make([]string, n)
		for i := range chunk {
			chunk[i] = todo[i].path
		}
		todo = todo[n:]
		var dels []string
		if len(chunk) == 0 {
			dels, gone = gone, nil
		}
		c, err := x.indexPaths(chunk, dels, nil)
		if err != nil {
			return err
		}
		changed += c
		if progress {
			x.mu.Lock()
			x.done += n
			x.mu.Unlock()
		}
	}
	if changed >= compactAfter && !x.isClosed() {
		x.compact()
	}
	x.opMu.Lock()
	if changed > 0 {
		x.saveManifestLocked()
	}
	x.opMu.Unlock()
	x.mu.Lock()
	x.lastWalk, x.walkCost = time.Now(), time.Since(t0)
	x.mu.Unlock()
	return nil
}

// todoFile is a file a reconciliation re-reads, and its size then.
type todoFile struct {
	path string
	size int64
}

// compareWalk compares a walk with the manifest (under opMu): the files
// whose size or mtime differ from it or that it lacks (todo), and the
// files it holds that the walk did not find (gone). The manifest is looked
// up without a path allocated per file; the files gone are looked for only
// when fewer of the manifest's files were found than it holds.
func (x *Index) compareWalk(files *listing) (todo []todoFile, gone []string) {
	x.opMu.Lock()
	defer x.opMu.Unlock()
	found := 0
	var buf []byte
	for _, d := range files.dirs {
		for i, st := range d.stats {
			if st.size < 0 {
				continue
			}
			buf = d.path(buf, i)
			rec, ok := x.man.Files[string(buf)]
			if ok {
				found++
			}
			if !ok || rec.Size != st.size || rec.MTime != st.mtime {
				todo = append(todo, todoFile{path: string(buf), size: st.size})
			}
		}
	}
	if found < len(x.man.Files) {
		all := files.paths()
		for p := range x.man.Files {
			if _, ok := all[p]; !ok {
				gone = append(gone, p)
			}
		}
	}
	return todo, gone
}

// indexPaths re-reads paths from disk and indexes those whose content
// changed, and removes dels, in one batch under opMu. It returns how many
// documents changed; an index found damaged is a *damageError.
//
// A path in reported (the change feed named it) is hashed even when its size
// and mtime match the manifest: an edit of the same length within the file
// system's timestamp granularity keeps both, and the event is the only sign
// of it.
func (x *Index) indexPaths(paths, dels []string, reported map[string]bool) (int, error) {
	x.opMu.Lock()
	defer x.opMu.Unlock()
	x.mu.RLock()
	idx, g := x.idx, x.guard
	x.mu.RUnlock()
	if idx == nil {
		return 0, errors.New("the index is closed")
	}
	if err := g.check(idx); err != nil {
		return 0, &damageError{err}
	}
	root := x.st.Root()
	lang := x.defaultLang()
	// The files go into parts of at most batchDocs files and batchBytes
	// of text, indexed side by side (buildParts); a part holds distinct
	// IDs, so their order does not matter.
	b := idx.NewBatch()
	batches := []*bleve.Batch{b}
	partDocs, partBytes := 0, int64(0)
	changed := 0
	// The field lengths of the files indexed, known once bleve analysed them.
	type indexed struct {
		path string
		doc  fileDoc
	}
	var docs []indexed
	// A batch's paths are sorted: each folder is opened once.
	var dirs store.FolderCache
	defer dirs.Close()
	for _, p := range paths {
		fi, err := dirs.Lstat(root, p)
		if err != nil || !fi.Mode.IsRegular() {
			if _, ok := x.man.Files[p]; ok {
				b.Delete(p)
				delete(x.man.Files, p)
				changed++
			}
			reason := "" // gone, or a folder or link: nothing to count
			if err == nil && store.IsSpecial(fi.Mode) && indexable(p) {
				reason = store.SkipNotRegular // a FIFO or device: never opened
			}
			x.setSkip(p, reason)
			continue
		}
		if wiki.UnservableName(p) != "" {
			// Reported by the change feed, or there since the walk: a
			// name the tools cannot use is counted, never indexed.
			if _, ok := x.man.Files[p]; ok {
				b.Delete(p)
				delete(x.man.Files, p)
				changed++
			}
			x.setSkip(p, wiki.SkipUnservableName)
			continue
		}
		rec, had := x.man.Files[p]
		st := fileStat{size: fi.Size, mtime: fi.ModTime.UnixNano()}
		if had && rec.Size == st.size && rec.MTime == st.mtime && !reported[p] {
			continue // a write indexed it meanwhile
		}
		data, err := dirs.ReadFile(root, p)
		if err != nil {
			x.log.Warn("search: cannot read file", "path", p, "err", err)
			x.setSkip(p, wiki.SkipUnreadable)
			continue
		}
		sum := store.SHA256Hex(data)
		if had && rec.SHA == sum {
			rec.Size, rec.MTime = st.size, st.mtime
			x.man.Files[p] = rec
			x.dirty = true
			continue
		}
		// The text read_page shows is the text indexed (mdoc.Decode).
		dec := mdoc.Decode(data)
		skipped := dec.Binary
		var lens fieldLens
		if skipped {
			if had && !rec.Skipped {
				b.Delete(p)
			}
		} else {
			if partDocs > 0 && (partDocs >= batchDocs || partBytes+st.size > batchBytes) {
				b = idx.NewBatch()
				batches = append(batches, b)
				partDocs, partBytes = 0, 0
			}
			partDocs++
			partBytes += st.size
			doc, _ := buildDoc(p, dec.Text, lang)
			if err := indexDocument(b, idx.Mapping(), p, doc); err != nil {
				return changed, err
			}
			docs = append(docs, indexed{p, doc})
		}
		x.man.Files[p] = fileRec{Size: st.size, MTime: st.mtime, SHA: sum, Skipped: skipped, Len: lens}
		x.setSkip(p, skipReason(skipped))
		x.dirty = true
		changed++
	}
	for _, p := range dels {
		reason := ""
		if fi, err := root.Lstat(p); err == nil && fi.Mode().IsRegular() {
			if wiki.UnservableName(p) == "" {
				// Back since the walk that found it gone (a write or the
				// change feed indexes it): not gone.
				continue
			}
			// There, but under a name the walk leaves out (indexed by an
			// older version): out of the index, counted.
			reason = wiki.SkipUnservableName
		}
		b.Delete(p)
		delete(x.man.Files, p)
		x.setSkip(p, reason)
		x.dirty = true
		changed++
	}
	if err := x.safeBatches(idx, g, batches); err != nil {
		return changed, &damageError{err}
	}
	for _, d := range docs {
		if rec, ok := x.man.Files[d.path]; ok {
			rec.Len = d.doc.lens()
			x.man.Files[d.path] = rec
		}
	}
	return changed, nil
}

// indexDocument adds the file at path to b.
func indexDocument(b *bleve.Batch, m mapping.IndexMapping, path string, d fileDoc) error {
	doc, err := d.document(path, m)
	if err != nil {
		return err
	}
	return b.IndexAdvanced(doc)
}

// safeBatches applies the non-empty batches with safeBatch, side by side
// when there are several.
func (x *Index) safeBatches(idx bleve.Index, g *guard, batches []*bleve.Batch) error {
	batches = slices.DeleteFunc(batches, func(b *bleve.Batch) bool { return b.Size() == 0 })
	if len(batches) == 1 {
		return x.safeBatch(idx, g, batches[0])
	}
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Go(func() { errs[i] = x.safeBatch(idx, g, b) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// damageError is an index found damaged, or failing as a damaged one
// does: it is abandoned and rebuilt, never repaired in place.
type damageError struct{ err error }

func (e *damageError) Error() string { return e.err.Error() }
func (e *damageError) Unwrap() error { return e.err }

// safeBatch runs idx.Batch with faults and panics turned into errors. It
// gives up when a background goroutine of the index fails meanwhile (a
// batch would then wait for it for ever).
func (x *Index) safeBatch(idx bleve.Index, g *guard, b *bleve.Batch) error {
	var once sync.Once
	done := func(error) {}
	if !g.memOnly {
		// A read-only index never persists a batch (it stays in memory).
		g.pending.Add(1)
		done = func(error) { once.Do(func() { g.pending.Add(-1) }) }
		b.SetPersistedCallback(done)
	}
	res := make(chan error, 1)
	go func() {
		_, err := protect(func() (struct{}, error) { return struct{}{}, idx.Batch(b) })
		// After the batch is applied and before the writer goes on: the
		// next Status, even the writer's own, counts again.
		x.gen.Add(1)
		res <- err
	}()
	var err error
	select {
	case err = <-res:
	case <-g.dead:
		err = errors.New("a background task of the index failed")
	}
	if err != nil {
		done(err)
	}
	return err
}

// Apply indexes the committed changes of one audited write (store.Derived).
// It runs inside the write, under the project lock; an error makes the store
// mark the index stale and say so in the call's warnings.
func (x *Index) Apply(ctx context.Context, changes []store.Change) (err error) {
	var todo []store.Change
	for _, c := range changes {
		if kindOf(c.Path) == "" {
			continue
		}
		if wiki.UnservableName(c.Path) != "" {
			// Written under a name the catalogue and the walk leave out
			// (a hidden .md source): counted, never indexed, as the walk
			// would have it.
			reason := wiki.SkipUnservableName
			if c.Op == store.OpDelete {
				reason = ""
			}
			x.setSkip(c.Path, reason)
			continue
		}
		todo = append(todo, c)
	}
	if len(todo) == 0 {
		return nil
	}
	var damaged error
	defer func() {
		// After opMu is released: the rebuild takes it.
		if damaged != nil {
			x.repair(damaged)
		}
	}()
	x.opMu.Lock()
	defer x.opMu.Unlock()
	x.mu.RLock()
	idx, g, state, reason := x.idx, x.guard, x.state, x.reason
	x.mu.RUnlock()
	if idx == nil {
		if state == StateFailed {
			return store.Errorf(store.CodeInternal, "the search index is unavailable (%s); the next search rebuilds it from the files, this change included", reason)
		}
		return store.Errorf(store.CodeInternal, "the search index is being built; the build picks up this change")
	}
	if err := g.check(idx); err != nil {
		damaged = err
		return store.Errorf(store.CodeInternal, "the search index was found damaged (%s) and is being rebuilt from the files, this change included", shortErr(err))
	}
	// forget makes the manifest forget these files, so that the next
	// reconciliation (at once, since the store marks the index stale)
	// indexes them again: the manifest must not claim what the index lacks.
	forget := func() {
		for _, c := range todo {
			delete(x.man.Files, c.Path)
		}
		x.dirty = true
	}
	lang := x.defaultLang()
	b := idx.NewBatch()
	recs := map[string]fileRec{}
	for _, c := range todo {
		if c.Op == store.OpDelete {
			b.Delete(c.Path)
			continue
		}
		fi, err := x.st.Root().Lstat(c.Path)
		if err != nil {
			forget()
			return store.Errorf(store.CodeInternal, "search index: %s vanished after it was written; the next search reconciles the index with the files", c.Path)
		}
		dec := mdoc.Decode(c.Data)
		skipped := dec.Binary
		var lens fieldLens
		if !skipped {
			doc, _ := buildDoc(c.Path, dec.Text, lang)
			if err := indexDocument(b, idx.Mapping(), c.Path, doc); err != nil {
				forget()
				return &store.Error{Code: store.CodeInternal, Msg: "search index: " + c.Path + " could not be indexed; the next search tries again", Err: err}
			}
			lens = doc.lens()
		} else if rec, ok := x.man.Files[c.Path]; ok && !rec.Skipped {
			b.Delete(c.Path)
		}
		recs[c.Path] = fileRec{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), SHA: store.SHA256Hex(c.Data), Skipped: skipped, Len: lens}
	}
	if err := x.safeBatch(idx, g, b); err != nil {
		forget()
		damaged = err
		return &store.Error{Code: store.CodeInternal, Msg: "the search index failed while indexing this change and is being rebuilt from the files, this change included", Err: err}
	}
	for _, c := range todo {
		if c.Op == store.OpDelete {
			delete(x.man.Files, c.Path)
			x.setSkip(c.Path, "")
		} else {
			x.man.Files[c.Path] = recs[c.Path]
			x.setSkip(c.Path, skipReason(recs[c.Path].Skipped))
		}
	}
	x.dirty = true
	x.saveSoon()
	return nil
}

// repair abandons an index found damaged and rebuilds it in a fresh folder.
func (x *Index) repair(err error) {
	why := "rebuilt: the index files were changed or damaged while the server ran (" + shortErr(err) + ")"
	if errors.Is(err, errFolderGone) {
		why = "rebuilt: the index folder was deleted or replaced while the server ran"
	}
	x.restart(x.public(why))
}

// public removes the project's host path from a message (status reasons
// reach the model, which works with project-relative paths only).
func (x *Index) public(msg string) string {
	msg = strings.ReplaceAll(msg, x.st.Dir()+string(os.PathSeparator), "")
	if h := x.home.Load(); h.cache() {
		msg = strings.ReplaceAll(msg, h.dir+string(os.PathSeparator), h.cacheName+"/")
	}
	return msg
}

// onBackgroundError is told (by guard.go) that a background goroutine of
// the index in g failed: a persister or merger that hit damaged files.
func (x *Index) onBackgroundError(g *guard, err error) {
	x.mu.RLock()
	current := x.guard == g
	x.mu.RUnlock()
	if !current {
		return
	}
	x.log.Error("search index background task failed", "err", err)
	if g.folderGone() {
		x.repair(errFolderGone)
		return
	}
	what := "a background task"
	var se *scorch.ScorchError
	if errors.As(err, &se) && se.Source != "" {
		what = "its " + se.Source
	}
	x.restart("rebuilt: " + what + " of the index failed, most likely on files changed or damaged while the server ran")
}

// restart abandons the current index (never reading, writing or closing it
// again; see guard.go) and builds a new one in a fresh folder in the
// background, saying why in the status.
func (x *Index) restart(why string) {
	x.mu.Lock()
	if x.closed || x.state == StateBuilding {
		x.mu.Unlock()
		return
	}
	x.state, x.reason, x.total, x.done = StateBuilding, why, 0, 0
	ready := make(chan struct{})
	x.ready = ready
	prev := &prevIndex{home: x.home.Load(), dir: x.dir, private: x.private, guard: x.guard, owner: x.owner}
	x.idx, x.guard = nil, nil
	x.building.Add(1) // under mu, so that it happens before Close's Wait
	x.mu.Unlock()
	prev.guard.abandon()
	x.log.Warn("search index is rebuilt", "reason", why)
	x.opMu.Lock()
	x.man = manifest{}
	x.skipsFromManifest()
	go func() {
		defer x.building.Done()
		x.load(ready, why, prev, nil)
	}()
}

// ensure readies the index for a search: it waits for a build in progress
// (up to BuildWait or ctx), rebuilds an index that failed or whose files
// were deleted, replaced or damaged, and reconciles with the disk when that
// is due.
func (x *Index) ensure(ctx context.Context) {
	x.Start()
	x.wait(ctx, x.opt.BuildWait)
	x.mu.RLock()
	state, reason, idx, g, closed := x.state, x.reason, x.idx, x.guard, x.closed
	x.mu.RUnlock()
	if closed || state == StateBuilding {
		return
	}
	if state == StateFailed || idx == nil {
		x.restart("rebuilt after a failure (" + clip(reason, 160) + ")")
		x.wait(ctx, x.opt.BuildWait)
		return
	}
	if err := g.check(idx); err != nil {
		x.repair(err)
		x.wait(ctx, x.opt.BuildWait)
		return
	}
	x.reconcileIfDue(ctx)
}

func (x *Index) wait(ctx context.Context, d time.Duration) {
	x.mu.RLock()
	ready := x.ready
	x.mu.RUnlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ready:
	case <-t.C:
	case <-ctx.Done():
	}
}

// reconcileIfDue reconciles when the interval has passed, or at once when
// the index is marked stale (an update failed: the reconciliation indexes
// the files it missed).
func (x *Index) reconcileIfDue(ctx context.Context) {
	if x.opt.ReconcileEvery == 0 {
		if ok, err := x.reconcileChanges(ctx); ok {
			x.reconciled(err)
			return
		}
	}
	x.mu.RLock()
	last, cost := x.lastWalk, x.walkCost
	x.mu.RUnlock()
	every := x.opt.ReconcileEvery
	if every == 0 {
		every = min(10*cost, 2*time.Second)
	}
	if every > 0 && time.Since(last) < every && !x.markedStale() {
		return
	}
	x.reconciled(x.reconcile(false))
}

// reconciled records the outcome of a reconciliation: a damaged index is
// rebuilt, another failure marks the index stale.
func (x *Index) reconciled(err error) {
	if err != nil {
		var de *damageError
		if errors.As(err, &de) {
			x.repair(de.err)
			return
		}
		reason := "reconciling the search index with the files failed: " + err.Error()
		x.st.MarkStale(x.Name(), reason)
		x.log.Error("search index is stale", "err", err)
		return
	}
	x.st.ClearStale(x.Name())
}

// markedStale reports whether the store holds the index stale.
func (x *Index) markedStale() bool {
	for _, s := range x.st.Stale() {
		if s.Name == x.Name() {
			return true
		}
	}
	return false
}

// Reconcile brings the index in step with the files now, whatever the
// interval (the command line and tests use it).
func (x *Index) Reconcile(ctx context.Context) error {
	x.Start()
	x.wait(ctx, 24*time.Hour)
	if err := x.reconcile(false); err != nil {
		return err
	}
	x.st.ClearStale(x.Name())
	return nil
}

// Wait blocks until the current build is done or ctx ends.
func (x *Index) Wait(ctx context.Context) error {
	x.Start()
	x.wait(ctx, 24*time.Hour)
	return ctx.Err()
}

var _ store.Derived = (*Index)(nil)

// relPath is used in error messages; it never names a host path.
func relPath(p string) string { return path.Clean(p) }
