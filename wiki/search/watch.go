package search

import (
	"context"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// feedState is the index's cursor on the store's change feed
// ([wiki.Store.WatchChanges]): with it, a search re-checks only the paths
// the file watcher reported since the last search instead of walking every
// file, and walks everything only when the feed asks (the watcher lost
// events, or [wiki.FullRescanEvery] passed). Without a live feed (no
// watcher could run) the time rule of [Options.ReconcileEvery] applies.
type feedState struct {
	once sync.Once
	sub  *wiki.ChangeSub
	mu   sync.Mutex  // held from Take until the changes are applied
	bg   atomic.Bool // a background walk runs (walkInBackground)
}

// subscribe takes the index's cursor once, before its first walk, so no
// edit falls between the walk and the feed.
func (x *Index) subscribe() *wiki.ChangeSub {
	if l := x.subscribeWalk(); l != nil {
		l.finish() // not the start's walk: its stat goroutines must end
	}
	return x.feed.sub
}

// subscribeWalk takes the index's cursor when it is not taken yet; when
// taking it started the store's watcher, the watcher's walk listed the
// files for the index too ([wiki.Store.WatchChangesVisit]) and they are
// returned (pages/ and sources/, as [Index.walk] lists them, without
// context.md; stats may still be under way: finish the lister); else nil.
func (x *Index) subscribeWalk() *lister {
	var files *lister
	x.feed.once.Do(func() {
		files = newLister()
		sub, ok := x.st.WatchChangesVisit(func(rel string, d *store.Dir, ents []store.DirEntry) {
			if rel == "pages" || rel == "sources" || strings.HasPrefix(rel, "pages/") || strings.HasPrefix(rel, "sources/") {
				files.add(d, rel, ents)
			}
		})
		x.feed.sub = sub
		if !ok {
			files.finish() // partial: the index walks itself
			files = nil
		}
	})
	return files
}

// reconcileChanges applies what the change feed reports. It returns false
// when the feed cannot be used (no watcher, or the index is marked stale:
// then the time rule's walk repairs it as before), so the caller falls back.
func (x *Index) reconcileChanges(ctx context.Context) (bool, error) {
	sub := x.subscribe()
	if !sub.Live() {
		return false, nil
	}
	if x.markedStale() {
		return false, nil
	}
	sub.Sync(context.WithoutCancel(ctx))
	x.feed.mu.Lock()
	defer x.feed.mu.Unlock()
	ch := sub.Take()
	if !ch.Live {
		return false, nil
	}
	var err error
	switch {
	case ch.Full && ch.Periodic:
		// The safety net's walk: the paths the watcher reported are applied
		// now (an edit finished before this search is seen); the walk of
		// everything, which finds only what a platform's watcher dropped,
		// runs in the background so that no search waits for it.
		if len(ch.Paths) > 0 {
			err = x.reconcilePaths(ch.Paths, ch.Gone)
		}
		if err == nil {
			x.walkInBackground(sub)
		}
	case ch.Full:
		err = x.reconcile(false)
	case len(ch.Paths) > 0:
		err = x.reconcilePaths(ch.Paths, ch.Gone)
	default:
		return true, nil
	}
	if err != nil {
		sub.Redo(ch)
	}
	return true, err
}

// reconcilePaths brings the index in step with the files at paths (and,
// for a folder, under it), by size+mtime then hash as [Index.reconcile]
// does for everything.
//
// A path in gone was a folder when it went: what the index holds under it is
// checked even when a file of that name is there now.
func (x *Index) reconcilePaths(paths, gone []string) error {
	root := x.st.Root()
	todo := map[string]bool{}
	reported := map[string]bool{} // files the feed named: hashed even if size+mtime match
	prefixes := map[string]bool{}
	for _, p := range gone {
		prefixes[p] = true
	}
	for _, p := range paths {
		fi, err := root.Lstat(p)
		if err == nil && fi.Mode().IsRegular() {
			if kindOf(p) != "" {
				todo[p], reported[p] = true, true
			}
			continue
		}
		prefixes[p] = true
		todo[p] = true // removed from the index if it was there
		if err != nil || !fi.IsDir() {
			continue
		}
		_ = fs.WalkDir(root.FS(), p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if q != p && strings.HasPrefix(d.Name(), ".") {
					return fs.SkipDir
				}
				return nil
			}
			if (d.Type().IsRegular() || store.IsSpecial(d.Type())) && indexable(q) {
				todo[q] = true // a FIFO or device: counted as skipped
			}
			return nil
		})
	}
	x.mu.Lock()
	for p := range prefixes {
		x.skips.ClearUnder(p) // what is still there is found again below
	}
	x.mu.Unlock()
	x.opMu.Lock()
	for k := range x.man.Files {
		for d := path.Dir(k); d != "."; d = path.Dir(d) {
			if prefixes[d] {
				todo[k] = true
				break
			}
		}
	}
	x.opMu.Unlock()
	list := make([]string, 0, len(todo))
	for p := range todo {
		if _, err := root.Lstat(p); err == nil || x.known(p) {
			list = append(list, p)
		}
	}
	sort.Strings(list)
	changed := 0
	for len(list) > 0 {
		n := min(batchDocs, len(list))
		c, err := x.indexPaths(list[:n], nil, reported)
		if err != nil {
			return err
		}
		changed += c
		list = list[n:]
	}
	if changed > 0 {
		x.opMu.Lock()
		x.saveManifestLocked()
		x.opMu.Unlock()
	}
	return nil
}

// known reports whether the manifest holds p.
func (x *Index) known(p string) bool {
	x.opMu.Lock()
	defer x.opMu.Unlock()
	_, ok := x.man.Files[p]
	return ok
}

// walkInBackground reconciles everything in the background (the change
// feed's periodic safety walk), one walk at a time. A walk that fails asks
// the feed for another and marks the index stale (or rebuilds a damaged
// one) as a walk before a search does; one that succeeds clears nothing: a
// stale mark set meanwhile is repaired by the next search's own walk.
func (x *Index) walkInBackground(sub *wiki.ChangeSub) {
	if !x.feed.bg.CompareAndSwap(false, true) {
		return
	}
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		x.feed.bg.Store(false)
		return
	}
	x.building.Add(1) // under mu, so that it happens before Close's Wait
	x.mu.Unlock()
	go func() {
		defer x.building.Done()
		defer x.feed.bg.Store(false)
		if err := x.reconcile(false); err != nil {
			sub.Redo(wiki.Changes{Live: true, Full: true})
			x.reconciled(err)
		}
	}()
}
