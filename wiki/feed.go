package wiki

import (
	"context"
	"os"
	"time"

	"github.com/llmwiki/llmwiki/wiki/changefeed"
	"github.com/llmwiki/llmwiki/wiki/store"
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
// with the folder open for stats ([store.Dir]; valid only during the call) and
// its entries, and visited is true. The folder's path is project-relative
// and slash-separated. So the tree is listed once at start, not once for
// the watches and once more for the consumer. When visited is false (the
// watcher already ran, or none can run, or its walk failed part way), the
// consumer walks the files itself as after WatchChanges; visit may have
// been called for some folders then. visit must not call back into the
// store's change feed.
func (s *Store) WatchChangesVisit(visit func(rel string, d *store.Dir, ents []store.DirEntry)) (c *ChangeSub, visited bool) {
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
		s.StartSweep() // with the watcher's first walk, if one ran ([store.SweepHint])
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
// sweep ([store.SweepHint]) when it completes.
func startFeed(s *Store, first *ChangeSub, visit func(rel string, d *store.Dir, ents []store.DirEntry)) *changefeed.Feed {
	hint := store.NewSweepHint()
	f := changefeed.Start(changefeed.Config{
		Dir:      s.dir,
		Root:     s.root,
		Log:      s.log,
		ReadOnly: s.readOnly,
		MaxAge:   MaxCatalogueAge,
		Ignore:   store.IsTempName,
		OpenDir:  store.OpenRootDir,
		ReadDir:  s.ReadDir,
		List: func(r *os.Root, rel string, firstWalk bool) []changefeed.Entry {
			d, err := store.OpenDir(r)
			if err != nil {
				if firstWalk {
					hint.Note(rel, nil, err)
				}
				return nil
			}
			ents, err := d.Entries()
			if firstWalk {
				hint.Note(rel, ents, err)
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
		Unlisted: func(rel string, err error) { hint.Note(rel, nil, err) }, // the sweep tries
		Begun: func(ctx context.Context) time.Time {
			if c := store.CallFrom(ctx); c != nil {
				return c.Begun()
			}
			return time.Time{}
		},
	}, first)
	if f != nil {
		s.SetSweepHint(hint)
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
