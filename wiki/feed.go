package wiki

import (
	"context"
	"io/fs"
	"os"
	"path"
	"reflect"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki/changefeed"
)

// The store's change feed (package changefeed) tells the page catalogue,
// the search index and the link graph which files changed outside the
// server. Without a watcher (WithoutWatcher, ViewOnly, or none could start)
// each of them finds outside edits with a plain stat walk of its files when
// its last walk is older than its freshness window (see [MaxCatalogueAge]).

// ChangeSub is one consumer's cursor on the store's change feed
// ([Store.WatchChanges]).
type ChangeSub = changefeed.Sub

// Changes is what a consumer takes from the change feed ([ChangeSub.Take]).
type Changes = changefeed.Changes

// FullRescanEvery is how often a consumer of a live change feed walks the
// whole tree anyway, as a safety net against lost events.
const FullRescanEvery = changefeed.FullRescanEvery

// WatchChanges returns a new cursor on the store's change feed, starting the
// watcher on first use. Changes made after WatchChanges returns are reported
// by the cursor's Take; the consumer walks the files once itself to start.
// When no watcher can run, Take always reports Live false.
func (s *Store) WatchChanges() *ChangeSub {
	return s.changeFeed().Subscribe()
}

// WatchChangesVisit is [Store.WatchChanges] for a consumer that walks the
// folders the feed covers (pages/ and sources/ and every non-hidden folder
// below them) to start: when this call starts the watcher, the watcher's
// own walk calls visit for each such folder, once the folder is watched,
// with the folder open for stats ([Dir]; valid only during the call) and
// its entries, and visited is true. The folder's path is project-relative
// and slash-separated. So the tree is listed once at start, not once for
// the watches and once more for the consumer. When visited is false (the
// watcher already ran, or none can run, or its walk failed part way), the
// consumer walks the files itself as after WatchChanges; visit may have
// been called for some folders then. visit must not call back into the
// store's change feed.
func (s *Store) WatchChangesVisit(visit func(rel string, d *Dir, ents []DirEntry)) (c *ChangeSub, visited bool) {
	c = changefeed.NewSub()
	started := false
	f := s.startFeedOnce(func() *changefeed.Feed {
		started = true
		return startFeed(s, c, visit)
	})
	if f == nil {
		return c, false
	}
	if started {
		return c, true // c was subscribed before the walk (startFeed)
	}
	return f.Subscribe(), false
}

// changeFeed starts the store's watcher on first use; nil when none runs.
func (s *Store) changeFeed() *changefeed.Feed {
	return s.startFeedOnce(func() *changefeed.Feed { return startFeed(s, nil, nil) })
}

// startFeedOnce runs start to make the store's feed on first use (unless
// watching is off) and returns the feed; nil when none runs.
func (s *Store) startFeedOnce(start func() *changefeed.Feed) *changefeed.Feed {
	s.feedOnce.Do(func() {
		if s.noWatch {
			s.log.Info("file watching is off; edits made outside llmwiki are found by rescanning the wiki at most every " + MaxCatalogueAge.String())
			return
		}
		s.feed = start()
		s.startSweep() // with the watcher's first walk, if one ran (sweepHint)
	})
	return s.feed
}

// syncFeed waits for the watcher to deliver the events of edits that
// finished before the call (see [ChangeSub.Take]).
func (s *Store) syncFeed(ctx context.Context) {
	s.changeFeed().Sync(ctx)
}

// startFeed starts the store's watcher on the project folder; nil when none
// can run. A first subscriber (nil for none) is subscribed before the
// watcher's walk, which calls visit (when set) for each folder once it is
// watched (see [Store.WatchChangesVisit]), and is kept for the temp-file
// sweep (sweepHint) when it completes.
func startFeed(s *Store, first *ChangeSub, visit func(rel string, d *Dir, ents []DirEntry)) *changefeed.Feed {
	hint := &sweepHint{listed: map[string]bool{}}
	f := changefeed.Start(changefeed.Config{
		Dir:      s.dir,
		Root:     s.root,
		Log:      s.log,
		ReadOnly: s.readOnly,
		MaxAge:   MaxCatalogueAge,
		Ignore:   IsTempName,
		OpenDir:  OpenRootDir,
		List: func(r *os.Root, rel string, firstWalk bool) []changefeed.Entry {
			d, err := OpenDir(r)
			if err != nil {
				if firstWalk {
					hint.note(rel, nil, err)
				}
				return nil
			}
			ents, err := d.Entries()
			if firstWalk {
				hint.note(rel, ents, err)
				if visit != nil {
					visit(rel, d, ents)
				}
			}
			d.Close()
			out := make([]changefeed.Entry, len(ents))
			for i, e := range ents {
				out[i] = changefeed.Entry(e)
			}
			return out
		},
		Unlisted: func(rel string) { hint.unlisted = append(hint.unlisted, rel) }, // the sweep tries
		Begun: func(ctx context.Context) time.Time {
			if c := CallFrom(ctx); c != nil {
				return c.begun
			}
			return time.Time{}
		},
	}, first)
	if f != nil {
		s.setSweepHint(hint)
	}
	return f
}

// ViewOnly opens the wiki as a read-only one (see [Store.ReadOnly]) without
// probing it: nothing is created, repaired or swept, and every write is
// refused. llmwiki status opens the wiki this way.
func ViewOnly() Option { return func(s *Store) { s.viewOnly = true; s.noWatch = true } }

// WithoutWatcher turns the change feed off: outside edits are found by the
// time-window rescans alone (see [MaxCatalogueAge]). For tests and for file
// systems where watching misbehaves.
func WithoutWatcher() Option { return func(s *Store) { s.noWatch = true } }

// refreshPagesLocked applies changed paths to the page catalogue: reported
// files are re-read; a folder that appeared is walked; entries under a path
// that is no longer a folder, or under a folder in gone (one that went, even
// if a file took its name), are checked. Call with catMu held and the
// catalogue loaded.
func (s *Store) refreshPagesLocked(paths, gone []string) {
	var prefixes map[string]bool
	changed := false
	for _, p := range gone { // a folder that went, even if a file took its name
		if prefixes == nil {
			prefixes = map[string]bool{}
		}
		prefixes[p] = true
		s.catSkips.ClearUnder(p)
	}
	for _, p := range paths {
		if p != "pages" && !strings.HasPrefix(p, "pages/") {
			continue
		}
		fi, err := s.root.Lstat(p)
		s.catSkips.ClearUnder(p) // what is still there is found again below
		if err == nil && fi.Mode().IsRegular() {
			changed = s.refreshPageLocked(p, fi, true) || changed
			continue
		}
		if err == nil && IsSpecial(fi.Mode()) && catalogued(p) {
			s.catSkips.Set(p, SkipNotRegular)
		}
		if prefixes == nil {
			prefixes = map[string]bool{}
		}
		prefixes[p] = true
		if _, ok := s.cat[p]; ok {
			delete(s.cat, p)
			changed = true
		}
		if err != nil || !fi.IsDir() || (p != "pages" && !addressable(p)) {
			continue
		}
		_ = fs.WalkDir(s.root.FS(), p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if q != p && (strings.HasPrefix(d.Name(), ".") || !addressable(q)) {
					return fs.SkipDir
				}
				return nil
			}
			if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
				changed = s.refreshPageLocked(q, info, false) || changed
			} else if IsSpecial(d.Type()) && catalogued(q) {
				s.catSkips.Set(q, SkipNotRegular)
			}
			return nil
		})
	}
	if len(prefixes) > 0 {
		for k := range s.cat {
			for d := path.Dir(k); d != "."; d = path.Dir(d) {
				if prefixes[d] {
					if fi, err := s.root.Lstat(k); err != nil || !fi.Mode().IsRegular() {
						delete(s.cat, k)
						changed = true
					}
					break
				}
			}
		}
	}
	if changed {
		s.catSorted = nil
	}
}

// refreshPageLocked brings the catalogue entry of the regular file p (stat
// fi) in step; it reports whether the catalogue changed. A file the watcher
// reported (reported) is read again even when its size and mtime are
// unchanged: an edit of the same length within the file system's timestamp
// granularity (a save by rename, a script, git) keeps both, and the event
// is the only sign of it. Our own writes are read once more that way.
func (s *Store) refreshPageLocked(p string, fi fs.FileInfo, reported bool) bool {
	prev, had := s.cat[p]
	if !isCataloguePage(p) {
		if had {
			delete(s.cat, p)
		}
		return had
	}
	if had && !reported && prev.size == fi.Size() && prev.mtime.Equal(fi.ModTime()) {
		return false
	}
	data, ok, err := s.readRaw(p)
	if err != nil || !ok {
		if had {
			delete(s.cat, p)
		}
		return had
	}
	pi := pageInfoFrom(p, data)
	pi.size, pi.mtime, pi.key = fi.Size(), fi.ModTime(), PageKey(p)
	s.cat[p] = pi
	return !had || !reflect.DeepEqual(prev, pi) // unchanged: the sorted list stands
}

// isCataloguePage reports whether the scan of pages/ lists the file p: a
// .md file, no hidden folder or name on the way, not a writer temp file,
// and a path the store can address.
func isCataloguePage(p string) bool {
	if !strings.HasPrefix(p, "pages/") || !strings.EqualFold(path.Ext(p), ".md") || IsTempName(p) || !addressable(p) {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return false
		}
	}
	for d := path.Dir(p); d != "pages"; d = path.Dir(d) {
		if !addressable(d) {
			return false
		}
	}
	return true
}
