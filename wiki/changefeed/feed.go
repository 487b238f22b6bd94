package changefeed

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// The change feed tells consumers of the wiki's files (the page catalogue,
// the search index) which paths changed since they last looked, so that
// edits made outside the server (Obsidian, git pull, another llmwiki
// process) are picked up by re-reading those paths instead of walking the
// whole tree on every call.
//
// It is an OS file watcher (fsnotify: inotify on Linux, kqueue on macOS and
// the BSDs, ReadDirectoryChangesW on Windows) on the project root, every
// folder under pages/ and sources/ (new folders are watched as they appear;
// a folder renamed or removed loses its watches) and .llmwiki/watch/ (only
// for the sync files below). Hidden files and folders and the writer's temp
// files are ignored.
//
// A consumer walks everything when it starts, then applies the changed paths
// it takes. It walks again when the watcher overflowed or failed (the feed
// says Full), and every [FullRescanEvery] as a safety net against events a
// platform drops. When the watcher cannot be started or a folder cannot be
// watched (Linux's inotify limits, too many open files for kqueue), a warning
// is logged once and the feed says it is not Live: consumers fall back to
// rescanning when their last walk is older than ten times its cost, capped
// at [Config.MaxAge].
//
// Read-your-outside-writes: before a consumer takes its paths, the feed
// touches its own sync file (.llmwiki/watch/sync-<random>, see syncDir) and
// waits for the watcher to report that touch. On Linux one inotify queue
// carries all events in order, so every edit that finished before the call
// has been collected by then; concurrent callers share these round trips,
// and a call (see [Config.Begun]) pays for one at most: once a round
// that touched the sync file after the call began has ended, its later
// syncs return at once.
// Elsewhere events may arrive a moment later.

// FullRescanEvery is how often a consumer of a live change feed walks the
// whole tree anyway, as a safety net against lost events.
const FullRescanEvery = 60 * time.Second

// syncDir holds the sync files: each store (each llmwiki process on the
// wiki) touches its own, sync-<random>, made when its watcher starts and
// removed by [Feed.Close]. A shared file would let another process's
// touch, queued before an edit, end this one's round before the edit's event
// was read. Files left by a process that died are removed by the next start
// once a day old (a live one that idle makes its file again). The folder's
// own .gitignore keeps it out of git, and watching it alone (not all of
// .llmwiki/) spares the watcher the audit log's writes.
const syncDir = ".llmwiki/watch"

// syncPrefix begins the path of every sync file.
const syncPrefix = syncDir + "/sync-"

// syncLeftover is the age past which another store's sync file is taken for
// one left by a process that died.
const syncLeftover = 24 * time.Hour

// maxDirtyPaths bounds the changed paths kept for one consumer; past it the
// consumer is told to walk everything (a git checkout of the whole tree).
// A variable for tests.
var maxDirtyPaths = 4096

// syncTimeout bounds the wait for the sync file's event.
const syncTimeout = 250 * time.Millisecond

// Changes is what a consumer takes from the change feed ([Sub.Take]).
type Changes struct {
	// Live is false when no watcher runs (it could not be started, or it
	// failed): the consumer must find outside edits itself (by walking when
	// its last walk is older than its freshness window).
	Live bool
	// Full asks for a walk of everything: the watcher overflowed or
	// reported an error, or [FullRescanEvery] has passed since the last one.
	Full bool
	// Periodic says Full is only the safety net's ([FullRescanEvery]): no
	// event was lost, so Paths holds the changed paths as usual and a
	// consumer may apply them at once and walk in the background.
	Periodic bool
	// Paths are the project-relative paths (slash-separated) created,
	// written, removed or renamed since the last Take, sorted. A path may
	// be a folder: a folder moved in or created (walk it) or moved away or
	// removed (everything known under it may be gone).
	Paths []string
	// Gone are the paths among Paths that were watched folders when they
	// were renamed or removed: everything known under them may be gone, even
	// when a file of that name is there now (a folder replaced by a file).
	Gone []string
}

// Sub is one consumer's cursor on a change feed. Get one
// with [Feed.Subscribe]; it is safe for concurrent use.
type Sub struct {
	f        *Feed
	mu       sync.Mutex
	paths    map[string]bool // path → a watched folder that went (Changes.Gone)
	full     bool
	lastFull time.Time
	wake     chan struct{} // see [Sub.Notify]; nil until asked for
}

// Notify returns a channel that receives (without blocking the watcher;
// several changes may come as one signal) whenever the cursor has new
// changes to Take, for a consumer that follows the feed instead of taking
// at its own calls (the MCP resources' notifications). It is closed by
// nothing: stop waiting on it when done.
func (c *Sub) Notify() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wake == nil {
		c.wake = make(chan struct{}, 1)
	}
	return c.wake
}

// wakeLocked signals [Sub.Notify]'s channel, if any.
func (c *Sub) wakeLocked() {
	if c.wake != nil {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// Sync waits until the watcher has delivered the events of every edit that
// finished before the call (on Linux; see the notes at the top of feed.go),
// so that a [Sub.Take] after it sees them. Concurrent callers share
// the round trip; it gives up after a quarter of a second, or when ctx ends.
func (c *Sub) Sync(ctx context.Context) {
	if c != nil && c.f.isLive() {
		c.f.sync(ctx)
	}
}

// Take returns the changes since the last Take; call [Sub.Sync] first
// to include edits that finished a moment ago. A consumer that cannot finish
// the walk or the refresh Take asked for calls [Sub.Redo] so the next
// Take asks again. A consumer that applies the changes while other callers
// may read its state holds its own lock from Take until they are applied.
func (c *Sub) Take() Changes { return c.take() }

// Live reports whether the feed runs (see [Changes.Live]).
func (c *Sub) Live() bool { return c != nil && c.f.isLive() }

func (c *Sub) take() Changes {
	if c == nil || !c.f.isLive() {
		return Changes{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := Changes{Live: true, Full: c.full}
	if !ch.Full && time.Since(c.lastFull) >= FullRescanEvery {
		ch.Full, ch.Periodic = true, true
	}
	if ch.Full {
		c.full, c.lastFull = false, time.Now()
		if !ch.Periodic {
			c.paths = map[string]bool{}
			return ch
		}
	}
	if len(c.paths) > 0 {
		ch.Paths = make([]string, 0, len(c.paths))
		for p, gone := range c.paths {
			ch.Paths = append(ch.Paths, p)
			if gone {
				ch.Gone = append(ch.Gone, p)
			}
		}
		sort.Strings(ch.Paths)
		sort.Strings(ch.Gone)
		c.paths = map[string]bool{}
	}
	return ch
}

// Redo puts changes a consumer took but could not apply back, so the next
// Take returns them again (a Full one as Full).
func (c *Sub) Redo(ch Changes) {
	if c == nil || !ch.Live {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch.Full {
		c.full = true
		return
	}
	for _, p := range ch.Paths {
		c.addLocked(p, false)
	}
	for _, p := range ch.Gone {
		c.addLocked(p, true)
	}
}

// addLocked records p (gone: a watched folder renamed or removed).
func (c *Sub) addLocked(p string, gone bool) {
	if c.full {
		return
	}
	if _, ok := c.paths[p]; !ok && len(c.paths) >= maxDirtyPaths {
		c.full, c.paths = true, map[string]bool{}
		return
	}
	c.paths[p] = c.paths[p] || gone
}

// Feed is a watcher on one project folder and its consumers. Start one
// with [Start]; a nil *Feed is a feed that does not run.
type Feed struct {
	s       *env
	w       *fsnotify.Watcher
	done    chan struct{} // closed by close
	stopped chan struct{} // closed when loop returns

	mu        sync.Mutex
	live      bool
	closeOnce sync.Once
	subs      []*Sub
	warns     int

	// dirs are the folders watched (project-relative), so that the watches
	// of a folder renamed or removed are dropped: fsnotify keeps a watch's
	// first path, and a folder moved within the tree would otherwise report
	// its events under its old name (or, moved out of the root, keep being
	// watched there). Guarded by dmu (Windows adds folders off the loop).
	// byID finds a folder's watched path by its identity, for a folder
	// added under a new path before the move of its old one is reported.
	dmu  sync.Mutex
	dirs map[string]fileID
	byID map[fileID]string
	// winOp orders the watch changes that run off the loop on Windows.
	winOp chan struct{}
	// first is true during the first walk ([Start]), before the loop
	// runs: folders are listed with [Config.List]'s first set.
	first bool

	// sync rounds: one at a time; a caller rides a round that started
	// after it arrived.
	smu        sync.Mutex
	round      *syncRound
	rounds     uint64
	syncRel    string        // this store's sync file (see syncPrefix)
	kept       keptTouch     // touches syncRel while its folders stay
	synced     chan struct{} // the sync file's event was seen
	canSync    bool
	timeouts   int       // rounds in a row that timed out
	late       uint64    // rounds that timed out, in all
	syncWorked bool      // a round has succeeded
	syncOff    time.Time // when timeouts turned rounds off
	// syncWait is how long a round waits for the sync file's event:
	// syncTimeout, or longer in tests that check read-your-outside-writes
	// and must not see a round time out only because the machine is busy.
	// Under smu.
	syncWait time.Duration
	// doneTouch is when the last round that succeeded touched the sync
	// file (monotonic): a call that began before it needs no round of its
	// own (see sync).
	doneTouch time.Time
	// testHookRound, when set (tests only, before any caller), runs at
	// the start of each round, before the sync file is touched; seq is
	// the round's number.
	testHookRound func(seq uint64)
}

type syncRound struct {
	seq     uint64
	done    chan struct{}
	waiters int // callers waiting on this round, under Feed.smu
}

// newWatcher and addWatch are seams for tests (a watcher that cannot
// start; a folder that cannot be watched, as with inotify's limits).
var (
	newWatcher = fsnotify.NewWatcher

	addWatchMu   sync.Mutex
	addWatchHook func(w *fsnotify.Watcher, name string) error // set by tests while feeds run
)

// addWatch adds a watch for the folder name (see addWatchHook).
func addWatch(w *fsnotify.Watcher, name string) error {
	addWatchMu.Lock()
	hook := addWatchHook
	addWatchMu.Unlock()
	if hook != nil {
		return hook(w, name)
	}
	return w.Add(name)
}

// Start starts a watcher on cfg's folder; nil when none can run (a warning
// is logged). A first subscriber (nil for none; see [NewSub]) is subscribed
// before the watcher's walk, which lists each folder with [Config.List]'s
// first set once the folder is watched.
func Start(cfg Config, first *Sub) *Feed {
	s := newEnv(cfg)
	w, err := newWatcher()
	if err != nil {
		s.log.Warn("cannot watch the wiki for outside edits; rescanning it at most every "+s.maxAge.String()+" instead", "err", err)
		return nil
	}
	f := &Feed{s: s, w: w, done: make(chan struct{}), stopped: make(chan struct{}), live: true, synced: make(chan struct{}, 1), syncWait: syncTimeout, dirs: map[string]fileID{}, byID: map[fileID]string{}}
	if first != nil {
		first.f = f
		f.subs = append(f.subs, first)
	}
	f.first = true
	err = f.watchTree(".")
	f.first = false // the loop's later walks (folders created) are not the first
	if err != nil {
		if first != nil {
			first.f = nil
		}
		w.Close()
		s.log.Warn("cannot watch the wiki for outside edits; rescanning it at most every "+s.maxAge.String()+" instead", "err", err)
		return nil
	}
	f.syncRel = syncPrefix + randomHex(6)
	// A read-only wiki gets no sync file (nothing can be written there);
	// without one, an outside edit may show up a moment late.
	if !s.readOnly {
		sweepSyncFiles(s)
		if err := f.makeSyncFile(); err == nil {
			f.canSync = true
		} else {
			s.log.Warn("cannot make the file watcher's sync file; outside edits may show up a moment late", "err", err)
		}
	}
	go func() {
		defer close(f.stopped)
		f.loop()
	}()
	return f
}

// watchTree adds watches for rel and the folders under it that the feed
// covers: the root itself (not recursively), pages/ and sources/ and every
// non-hidden folder below them.
func (f *Feed) watchTree(rel string) error {
	if rel == "." {
		if err := f.w.Add(f.s.dir); err != nil {
			return err
		}
		for _, top := range []string{"pages", "sources"} {
			if err := f.watchTree(top); err != nil {
				return err
			}
		}
		return nil
	}
	// Each folder is listed without a stat per entry ([Config.List]; a
	// walk of an os.Root's FS stats every file, where only the folders
	// matter); each folder is stated once for its identity.
	fi, err := f.s.root.Lstat(rel)
	if err != nil || !fi.IsDir() {
		return nil // gone, or not a folder: nothing to watch
	}
	r, err := f.s.openDir(f.s.root, rel)
	if err != nil {
		return nil
	}
	defer r.Close()
	return f.watchDir(r, rel, idOf(fi))
}

// watchDir adds watches for the folder r (at rel, whose identity is id) and
// the non-hidden folders under it. Unreadable folders are skipped; a watch
// that cannot be added is an error.
func (f *Feed) watchDir(r *os.Root, rel string, id fileID) error {
	if id != (fileID{}) {
		// The same folder already watched under another path (moved
		// before the move was reported): fsnotify would keep the old
		// watch and path, so drop it first.
		// (Only while the old path is still known as that folder: an
		// inode number is reused once its folder is gone.)
		f.dmu.Lock()
		old, ok := f.byID[id]
		ok = ok && old != rel && f.dirs[old] == id
		f.dmu.Unlock()
		if ok {
			f.unwatchTree(old)
		}
	}
	if err := addWatch(f.w, filepath.Join(f.s.dir, filepath.FromSlash(rel))); err != nil {
		return err
	}
	f.dmu.Lock()
	f.dirs[rel] = id
	if id != (fileID{}) {
		f.byID[id] = rel
	}
	f.dmu.Unlock()
	ents := f.s.list(r, rel, f.first)
	var subs []string
	for _, e := range ents {
		if e.Type.IsDir() && !strings.HasPrefix(e.Name, ".") {
			subs = append(subs, e.Name)
		}
	}
	slices.Sort(subs)
	for _, name := range subs {
		var sid fileID
		if fi, err := r.Lstat(name); err == nil {
			if !fi.IsDir() {
				continue // replaced meanwhile
			}
			sid = idOf(fi)
		}
		sub, err := f.s.openDir(r, name)
		if err != nil {
			if f.first && f.s.unlisted != nil {
				f.s.unlisted(rel+"/"+name, err)
			}
			continue
		}
		err = f.watchDir(sub, rel+"/"+name, sid)
		sub.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// unwatchTree drops the watches of the folder rel and the folders under it
// (rel was renamed or removed). Without it a folder renamed inside the tree
// keeps its watches under the old name (fsnotify maps a re-added folder to
// its existing watch and path, then drops that watch when the kernel
// reports the move), so edits in it would go unseen until the next full
// walk; and a folder moved out of the root would still be watched there.
func (f *Feed) unwatchTree(rel string) {
	f.dmu.Lock()
	if _, ok := f.dirs[rel]; !ok {
		f.dmu.Unlock()
		return
	}
	var gone []string
	for d, id := range f.dirs {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			gone = append(gone, d)
			delete(f.dirs, d)
			if f.byID[id] == d {
				delete(f.byID, id)
			}
		}
	}
	f.dmu.Unlock()
	for _, d := range gone {
		_ = f.w.Remove(filepath.Join(f.s.dir, filepath.FromSlash(d))) // already gone with the folder: fine
	}
}

// offLoop runs op after the previous one, off the event loop (Windows:
// fsnotify's Add and Remove wait for the goroutine that delivers events to
// the loop, so calling them inline could deadlock). Called by the loop only.
func (f *Feed) offLoop(op func()) {
	prev := f.winOp
	done := make(chan struct{})
	f.winOp = done
	go func() {
		if prev != nil {
			<-prev
		}
		op()
		close(done)
	}()
}

func (f *Feed) isLive() bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.live
}

// stop turns the feed off for good: consumers fall back to time windows.
func (f *Feed) stop(why string, err error) {
	f.mu.Lock()
	was := f.live
	f.live = false
	f.mu.Unlock()
	if was {
		f.s.log.Warn("stopped watching the wiki for outside edits ("+why+"); rescanning it at most every "+f.s.maxAge.String()+" instead", "err", err)
		go f.w.Close()
	}
}

// close stops the watcher ([Feed.Close]).
func (f *Feed) close() {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.live = false
	f.mu.Unlock()
	f.w.Close()
	f.closeOnce.Do(func() { close(f.done) })
	<-f.stopped
	f.kept.close()
	if fi, err := f.s.root.Lstat(f.syncRel); err == nil && !fi.IsDir() {
		_ = f.s.root.Remove(f.syncRel)
	}
}

// sweepSyncFiles removes the sync files of stores whose process died (see
// syncPrefix): older than syncLeftover, never a folder.
func sweepSyncFiles(s *env) {
	des, err := s.readDir(syncDir)
	if err != nil {
		return
	}
	prefix := path.Base(syncPrefix)
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), prefix) || de.IsDir() {
			continue
		}
		if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > syncLeftover {
			_ = s.root.Remove(syncDir + "/" + de.Name())
		}
	}
}

// makeSyncFile makes the store's sync file, and syncDir (with a .gitignore
// that keeps it out of git) when missing, and watches syncDir; neither
// folder may be a symlink.
func (f *Feed) makeSyncFile() error {
	root := f.s.root
	for _, d := range []string{".llmwiki", syncDir} {
		fi, err := root.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) {
			if err := root.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return errors.New(d + " is not a folder")
		}
	}
	if h, err := root.OpenFile(syncDir+"/.gitignore", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
		_, _ = h.WriteString("# llmwiki's file-watcher sync files, one per running server\n*\n")
		h.Close()
	}
	if err := f.w.Add(filepath.Join(f.s.dir, filepath.FromSlash(syncDir))); err != nil {
		return err
	}
	h, err := root.OpenFile(f.syncRel, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return h.Close()
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// loop reads the watcher's events until it is closed.
func (f *Feed) loop() {
	for {
		select {
		case ev, ok := <-f.w.Events:
			if !ok {
				return
			}
			f.event(ev)
		case err, ok := <-f.w.Errors:
			if !ok {
				return
			}
			// An overflow or a read error: events were lost, so every
			// consumer walks everything once.
			f.mu.Lock()
			for _, c := range f.subs {
				c.mu.Lock()
				c.full, c.paths = true, map[string]bool{}
				c.wakeLocked()
				c.mu.Unlock()
			}
			f.warns++
			warn := f.warns == 1 || errors.Is(err, fsnotify.ErrEventOverflow) && f.warns%100 == 0
			f.mu.Unlock()
			if warn {
				f.s.log.Warn("the file watcher lost events; the wiki is rescanned", "err", err)
			}
		}
	}
}

// event records one watcher event for every consumer.
func (f *Feed) event(ev fsnotify.Event) {
	rel, err := filepath.Rel(f.s.dir, ev.Name)
	if err != nil {
		return
	}
	rel = filepath.ToSlash(rel)
	if rel == f.syncRel {
		// Only a touch ends a round (a change of times: Chmod; Windows
		// reports it as Write). The file's removal, creation or
		// replacement queued before the round's touch must not end it
		// before the edits queued after them are read.
		if !ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) {
			return
		}
		select {
		case f.synced <- struct{}{}:
		default:
		}
		return
	}
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || f.s.ignore(rel) {
		return
	}
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return // .llmwiki/, .git/, .obsidian/, dot files
		}
	}
	if !strings.Contains(rel, "/") && rel != "pages" && rel != "sources" && !strings.EqualFold(path.Ext(rel), ".md") {
		return // nothing at the top level but pages/, sources/ and .md files matters
	}
	inTree := rel == "pages" || rel == "sources" || strings.HasPrefix(rel, "pages/") || strings.HasPrefix(rel, "sources/")
	gone := false
	if inTree && (ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove)) {
		f.dmu.Lock()
		_, gone = f.dirs[rel]
		f.dmu.Unlock()
		if runtime.GOOS == "windows" {
			f.offLoop(func() { f.unwatchTree(rel) })
		} else {
			f.unwatchTree(rel)
		}
	}
	if inTree && ev.Has(fsnotify.Create) {
		if fi, err := f.s.root.Lstat(rel); err == nil && fi.IsDir() {
			add := func() {
				if err := f.watchTree(rel); err != nil {
					f.stop("a new folder could not be watched", err)
				}
			}
			if runtime.GOOS == "windows" {
				// fsnotify's Windows Add waits for the goroutine that
				// delivers events to this loop: adding inline could
				// deadlock. The consumers walk the new folder anyway.
				f.offLoop(add)
			} else {
				add() // before consumers see the folder, so nothing in it is missed
			}
		}
	}
	f.mu.Lock()
	for _, c := range f.subs {
		c.mu.Lock()
		c.addLocked(rel, gone)
		c.wakeLocked()
		c.mu.Unlock()
	}
	f.mu.Unlock()
}

// sync waits until the watcher has delivered the events of every edit that
// finished before the call (see the package notes), sharing rounds between
// concurrent callers. It gives up after syncTimeout (f.syncWait), and stops trying after
// three rounds in a row time out (a platform that does not report the sync
// file's changes; when rounds had worked before, the machine was only busy
// and rounds resume after FullRescanEvery).
func (f *Feed) sync(ctx context.Context) {
	f.smu.Lock()
	if !f.canSync && f.syncWorked && !f.syncOff.IsZero() && time.Since(f.syncOff) >= FullRescanEvery {
		// Rounds timed out after they had worked: the machine was busy, not
		// a platform that does not report. Try again.
		f.canSync, f.timeouts, f.syncOff = true, 0, time.Time{}
	}
	if !f.canSync {
		f.smu.Unlock()
		return
	}
	if f.seenSinceLocked(ctx) {
		f.smu.Unlock()
		return
	}
	arrived := f.rounds
	for {
		r := f.round
		if r == nil {
			break
		}
		r.waiters++
		f.smu.Unlock()
		select {
		case <-r.done:
		case <-ctx.Done():
		}
		f.smu.Lock()
		r.waiters--
		if ctx.Err() != nil || r.seq > arrived || f.seenSinceLocked(ctx) {
			// that round started after the caller arrived, or touched
			// the sync file after its call began
			f.smu.Unlock()
			return
		}
	}
	f.rounds++
	r := &syncRound{seq: f.rounds, done: make(chan struct{})}
	f.round = r
	wait := f.syncWait
	f.smu.Unlock()
	if h := f.testHookRound; h != nil {
		h(r.seq)
	}

	select { // a late signal of an earlier round
	case <-f.synced:
	default:
	}
	ok := false
	touchAt := time.Now() // before the touch: the touch is not earlier
	touched, why := f.touchSync()
	if touched {
		t := time.NewTimer(wait)
		select {
		case <-f.synced:
			ok = true
		case <-t.C:
		case <-f.done:
		}
		t.Stop()
	}
	f.smu.Lock()
	f.round = nil
	switch {
	case ok:
		f.timeouts, f.syncWorked = 0, true
		if touchAt.After(f.doneTouch) {
			f.doneTouch = touchAt
		}
	case why != "":
		f.canSync = false // never retried: see touchSync
		f.s.log.Warn(why + "; outside edits may show up a moment late")
	default:
		f.late++
		if f.timeouts++; f.timeouts >= 3 {
			f.canSync, f.syncOff = false, time.Now()
			if !f.syncWorked {
				f.s.log.Warn("the file watcher does not report changes promptly; outside edits may show up a moment late")
			}
		}
	}
	f.smu.Unlock()
	close(r.done)
}

// seenSinceLocked reports whether a round that touched the sync file after
// the call in ctx began has ended: every edit that finished before the call
// was read then, so the call needs no round of its own (a call that syncs
// twice, through the page catalogue and the link graph say, or that began
// before a round it then waited for, pays for no second round). Call with
// smu held.
func (f *Feed) seenSinceLocked(ctx context.Context) bool {
	begun := f.s.begun(ctx)
	return !begun.IsZero() && !f.doneTouch.IsZero() && !f.doneTouch.Before(begun)
}

// touchSync changes the sync file's times so the watcher reports it. It
// never follows a symlink (a link there could point at a page, whose mtime
// would change): a symlink put in its place is removed (the link only).
// A sync file removed while serving (git clean -x, a tidy-up of .llmwiki/)
// is made again, then touched. When it cannot be made, why says so and sync
// rounds stop for good. While its folders stay what they were, the touch
// goes through their kept descriptors (keptTouch, Linux).
func (f *Feed) touchSync() (touched bool, why string) {
	if f.kept.touch(f.s.root, f.syncRel) {
		return true, ""
	}
	root := f.s.root
	fi, err := root.Lstat(f.syncRel)
	switch {
	case err == nil && (fi.Mode().IsRegular() || fi.IsDir()):
	case err == nil:
		// A symlink (or a pipe, a device) in llmwiki's own state folder:
		// the link goes, never what it points at, and the file is made
		// again below.
		if err := root.Remove(f.syncRel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, "cannot replace " + f.syncRel + ", which is not a file: " + err.Error()
		}
		fallthrough
	case errors.Is(err, fs.ErrNotExist):
		// Made again, in folders made again if need be (whose old watch
		// went with them).
		if err := f.makeSyncFile(); err != nil && !errors.Is(err, fs.ErrExist) {
			return false, "cannot make " + f.syncRel + " again: " + err.Error()
		}
		if fi, err := root.Lstat(f.syncRel); err != nil || !fi.Mode().IsRegular() {
			return false, "" // replaced meanwhile: a late round at worst
		}
	default:
		return false, "" // counted as a late round
	}
	now := time.Now()
	return root.Chtimes(f.syncRel, now, now) == nil, ""
}
