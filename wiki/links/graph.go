package links

import (
	"context"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// MaxParseBytes is the largest markdown file whose links and headings are
// read; a larger file is still a link target, but links out of it and into
// its headings are not checked.
const MaxParseBytes = 8 << 20

// RefreshEvery is how long [Graph.View] trusts what it knows before it
// walks the disk again for edits made outside the server when no file
// watcher runs. With one ([wiki.Store.WatchChanges]) a View re-reads just
// the paths it reported, and walks everything only when the feed asks
// ([wiki.FullRescanEvery]). Writes through the store are seen at once.
const RefreshEvery = 5 * time.Second

// The problems a resolved link can have ([Resolved].Problem).
const (
	ProblemDangling     = "dangling"      // no file matches the target
	ProblemMissingEmbed = "missing_embed" // an embed whose file does not exist
	ProblemHeading      = "heading"       // the file exists, the heading does not
	ProblemBlock        = "block"         // the file exists, the block id does not
	ProblemAmbiguous    = "ambiguous"     // several files match equally well
)

// IsSource reports whether links written in the file rel count: pages,
// index.md, context.md and guidelines.md. Links in log.md (history),
// schema.md and sources/ (raw documents) are not the wiki's links.
func IsSource(rel string) bool {
	switch wiki.LayerOf(rel) {
	case wiki.LayerPages:
		return isMarkdown(rel)
	case wiki.LayerIndex, wiki.LayerContext, wiki.LayerGuidelines:
		return true
	}
	return false
}

// inUniverse reports whether a link may lead to rel: any file under pages/
// or sources/, and the top-level files.
func inUniverse(rel string) bool {
	switch wiki.LayerOf(rel) {
	case wiki.LayerPages, wiki.LayerSources, wiki.LayerResearch,
		wiki.LayerIndex, wiki.LayerContext, wiki.LayerGuidelines, wiki.LayerLog, wiki.LayerSchema:
		return !store.IsTempName(rel)
	}
	return false
}

func isMarkdown(rel string) bool { return strings.EqualFold(path.Ext(rel), ".md") }

type entry struct {
	size  int64
	mtime time.Time
	page  *lazyPage // nil for files that are not parsed markdown
}

// lazyPage is a parsed markdown file. Files read by a walk, and link
// sources ([IsSource]) written through the store, are parsed at once; other
// markdown written through the store (log.md, which grows with every
// append_log, and sources/, research notes included) is parsed the first
// time a link into it or a caller needs its headings: most never are, and
// a write that appends to a long file does not re-parse all of it under the
// project lock.
type lazyPage struct {
	pg   atomic.Pointer[Page]
	mu   sync.Mutex
	rel  string
	data []byte // until parsed
}

// newPage returns the parsed file rel with content data (at most
// MaxParseBytes; see tooLarge for larger files).
func newPage(rel string, data []byte) *lazyPage {
	lp := &lazyPage{rel: rel}
	if IsSource(rel) {
		lp.pg.Store(parseFor(rel, data))
	} else {
		lp.data = data
	}
	return lp
}

// get returns the parsed page; nil for a nil lazyPage.
func (lp *lazyPage) get() *Page {
	if lp == nil {
		return nil
	}
	if pg := lp.pg.Load(); pg != nil {
		return pg
	}
	lp.mu.Lock()
	defer lp.mu.Unlock()
	if pg := lp.pg.Load(); pg != nil {
		return pg
	}
	pg := parseFor(lp.rel, lp.data)
	lp.pg.Store(pg)
	lp.data = nil
	return pg
}

func eager(pg *Page) *lazyPage {
	lp := &lazyPage{}
	lp.pg.Store(pg)
	return lp
}

// Graph is the link graph of one store, kept in step with it (see the
// package doc). [Open] makes one. Safe for concurrent use.
type Graph struct {
	st *wiki.Store

	mu       sync.Mutex
	entries  map[string]*entry
	view     *View
	lastWalk time.Time
	walked   bool
	// detachKeep is Detach's keep, under mu: the view built for Detach
	// holds only the links it picks (buildViewKeep).
	detachKeep func(from string, r *Resolved) bool
	// lean, under mu, is set by Detach: its walk parses with parseLean.
	lean bool

	// While the first walk runs (under mu; seconds at 100k pages), a
	// write's Apply records its paths in pending rather than wait for mu,
	// and the walk reads them again when it ends: a write never waits for
	// the first walk, a View does.
	pendMu    sync.Mutex
	firstWalk bool
	pending   []string

	// sub is the graph's cursor on the store's change feed
	// ([wiki.Store.WatchChanges]): with a live feed, a View re-reads only
	// the paths the file watcher reported instead of walking every file
	// each [RefreshEvery], and walks everything when the feed asks.
	subOnce sync.Once
	sub     *wiki.ChangeSub

	// The change feed's periodic safety walk runs in the background (see
	// walkInBackground), one at a time; Close waits for it.
	bgWalk atomic.Bool
	bgWG   sync.WaitGroup
	closed bool // under mu: no background walk starts after Close
}

// Open returns a new link graph of st. The caller registers it with
// st.AddDerived, so every write through the store updates it without a walk
// and closing the store closes it; a program opens one graph per store and
// hands it to every feature that reads links.
func Open(st *wiki.Store) *Graph {
	return &Graph{st: st, entries: map[string]*entry{}}
}

// Name implements [store.Derived].
func (g *Graph) Name() string { return "links" }

// Close implements [store.Derived]: it waits for a background walk and
// forgets what it read.
func (g *Graph) Close() error {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.bgWG.Wait()
	g.mu.Lock()
	g.entries, g.view = map[string]*entry{}, nil
	g.walked = false
	g.mu.Unlock()
	return nil
}

// Walking reports whether the graph's first walk is under way: a [Graph.View]
// now waits for it (seconds at 100k pages, right after a fresh wiki's index
// build), where a write does not.
func (g *Graph) Walking() bool {
	g.pendMu.Lock()
	defer g.pendMu.Unlock()
	return g.firstWalk
}

// Apply implements [store.Derived]: committed changes update the graph
// without a walk.
func (g *Graph) Apply(_ context.Context, changes []store.Change) error {
	g.pendMu.Lock()
	if g.firstWalk {
		for _, c := range changes {
			if inUniverse(c.Path) {
				g.pending = append(g.pending, c.Path)
			}
		}
		g.pendMu.Unlock()
		return nil
	}
	g.pendMu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.walked {
		return nil // the first View walks everything anyway
	}
	changed := map[string]*entry{}
	removed := map[string]bool{}
	aliases := false
	for _, c := range changes {
		if !inUniverse(c.Path) {
			continue
		}
		old, existed := g.entries[c.Path]
		if c.Op == store.OpDelete {
			if existed {
				delete(g.entries, c.Path)
				delete(changed, c.Path)
				removed[c.Path] = true
				aliases = aliases || hasAliases(c.Path, old.page)
			}
			continue
		}
		e := &entry{size: int64(len(c.Data))}
		if fi, err := g.st.Root().Stat(c.Path); err == nil {
			e.size, e.mtime = fi.Size(), fi.ModTime()
		}
		if parsed(c.Path) {
			if len(c.Data) <= MaxParseBytes {
				e.page = newPage(c.Path, c.Data)
			} else {
				e.page = eager(tooLarge(c.Path))
			}
		}
		g.entries[c.Path] = e
		changed[c.Path] = e
		delete(removed, c.Path)
		if existed {
			aliases = aliases || (feedsAliases(c.Path) && !sameAliases(old.page, e.page))
		} else {
			aliases = aliases || hasAliases(c.Path, e.page)
		}
	}
	g.advance(changed, removed, aliases)
	return nil
}

// advance brings g.view up to g.entries after the files in changed (new or
// changed entries) and removed changed: in place when no page's aliases
// changed (aliases false), else by dropping the view for a full build.
// Called with g.mu held.
func (g *Graph) advance(changed map[string]*entry, removed map[string]bool, aliases bool) {
	switch {
	case len(changed) == 0 && len(removed) == 0:
	case g.view == nil || aliases:
		g.view = nil
	default:
		g.view = g.view.update(changed, removed)
	}
}

// feedsAliases reports whether the aliases of the file rel feed the
// resolver (markdown pages under pages/; see buildView).
func feedsAliases(rel string) bool { return wiki.LayerOf(rel) == wiki.LayerPages && IsSource(rel) }

// hasAliases reports whether the file rel is a page that declares aliases:
// such a page coming or going changes the resolver's aliases, which needs a
// full build.
func hasAliases(rel string, lp *lazyPage) bool {
	if !feedsAliases(rel) {
		return false
	}
	pg := lp.get()
	return pg != nil && len(pg.Aliases) > 0
}

func sameAliases(la, lb *lazyPage) bool {
	a, b := la.get(), lb.get()
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Aliases) != len(b.Aliases) {
		return false
	}
	for i := range a.Aliases {
		if Key(a.Aliases[i]) != Key(b.Aliases[i]) {
			return false
		}
	}
	return true
}

// parsed reports whether the file rel is parsed: markdown files links may
// lead into (headings, blocks) or out of.
func parsed(rel string) bool {
	return isMarkdown(rel) && inUniverse(rel)
}

// tooLarge is the entry of a markdown file too large to parse: no links,
// headings or frontmatter are known.
func tooLarge(rel string) *Page {
	pg := &Page{Links: emptyLinks, Headings: []Heading{}}
	if wiki.LayerOf(rel) == wiki.LayerPages {
		slug := strings.TrimSuffix(strings.TrimPrefix(rel, "pages/"), path.Ext(rel))
		pg.Info = &wiki.PageInfo{Path: rel, Slug: slug, Title: path.Base(slug)}
	}
	return pg
}

func parseFor(rel string, data []byte) *Page {
	return sourceLinks(rel, Parse(rel, data))
}

// leanFor is parseFor with parseLean, for Detach's walk.
func leanFor(rel string, data []byte) *Page {
	return sourceLinks(rel, parseLean(rel, data))
}

// sourceLinks drops the links of pg unless rel is a link source.
func sourceLinks(rel string, pg *Page) *Page {
	if !IsSource(rel) {
		pg.Links = emptyLinks // a source's links are not the wiki's
	}
	return pg
}

// View returns the current picture of the links, with the outside edits the
// change feed reported (or, without a file watcher, found by a walk when the
// last one is older than [RefreshEvery]).
func (g *Graph) View(ctx context.Context) (*View, error) {
	return g.view0(ctx, false, 0)
}

// Warm is [Graph.View] for background work ahead of any request (serve's
// start): a walk it makes reads the files on one goroutine instead of one
// per processor, so that requests meanwhile keep the other processors. A
// View that comes during that walk waits for it, as for any walk.
func (g *Graph) Warm(ctx context.Context) error {
	_, err := g.view0(ctx, false, 1)
	return err
}

// Fresh is [Graph.View] after a walk of the disk made now (lint uses it).
func (g *Graph) Fresh(ctx context.Context) (*View, error) {
	return g.view0(ctx, true, 0)
}

// Detach is [Graph.Fresh] for a one-shot reader that owns the graph
// (llmwiki lint): it returns the view and its [View.Pages], and closes the
// graph, so that the view alone is held. Each link and catalogue entry is
// then held once: the view's pages drop their links as parsed ([Page].Links
// is empty; [View.Links] gives them resolved) and their catalogue entries
// ([Page].Info is nil; pages has them), and the view forgets what only its
// updates use. keep, when set, picks the resolved links [View.Links] goes
// on giving (lint keeps those with a problem), and may be called from
// several goroutines at once; [View.Backlinks] keeps every link. Nothing
// else may read the graph or its earlier views afterwards; the server's
// graph never calls it.
func (g *Graph) Detach(ctx context.Context, keep func(from string, r *Resolved) bool) (*View, []wiki.PageInfo, error) {
	g.mu.Lock()
	g.detachKeep = keep
	g.lean = true
	g.mu.Unlock()
	v, err := g.Fresh(ctx)
	if err != nil {
		return nil, nil, err
	}
	g.Close()
	// A view built before (by a View or Fresh call) holds every link; one
	// built just now for Detach holds the links keep picked already, and
	// picking them again changes nothing.
	if keep != nil {
		out := map[string][]Resolved{}
		v.out.each(func(from string, rs []Resolved) {
			if kept := keepLinks(from, rs, keep); len(kept) > 0 {
				out[from] = kept
			}
		})
		v.out = overlay[[]Resolved]{base: out}
	}
	pages := v.Pages()
	for _, p := range v.sources.list() {
		if pg := v.files.at(p).get(); pg != nil {
			pg.Links, pg.Info = emptyLinks, nil
		}
	}
	v.linkers = overlay[[]string]{}
	return v, pages, nil
}

// view0 is View (force: Fresh); a walk reads with readers goroutines (0:
// one per processor).
func (g *Graph) view0(ctx context.Context, force bool, readers int) (*View, error) {
	g.subOnce.Do(func() { g.sub = g.st.WatchChanges() }) // before the first walk
	g.sub.Sync(ctx)
	g.mu.Lock()
	defer g.mu.Unlock()
	ch := g.sub.Take()
	switch {
	case !force && g.walked && ch.Live && ch.Full && ch.Periodic:
		// The safety net's walk: the paths the watcher reported are read
		// now (an edit finished before this call is seen by it); the walk
		// of everything, which finds only what a platform's watcher
		// dropped, runs in the background so that no read waits for it.
		if len(ch.Paths) > 0 {
			if err := g.walkPaths(ctx, ch.Paths); err != nil {
				g.sub.Redo(ch)
				return nil, err
			}
		}
		g.walkInBackground()
	case force || !g.walked || ch.Full || (!ch.Live && time.Since(g.lastWalk) > RefreshEvery):
		if err := g.walk(ctx, readers); err != nil {
			g.sub.Redo(ch)
			return nil, err
		}
	case len(ch.Paths) > 0:
		if err := g.walkPaths(ctx, ch.Paths); err != nil {
			g.sub.Redo(ch)
			return nil, err
		}
	}
	if g.view == nil {
		g.view = buildViewKeep(g.entries, g.detachKeep)
	}
	return g.view, nil
}

// walk reconciles the entries with the disk by size and modification time,
// parsing new and changed markdown files in parallel. Folders are listed
// without a stat per file; each worker opens one folder ([store.Dir], inside
// the store's root) and stats or reads its files by name: a file new to the
// graph costs an open, a stat and a read, a known one a stat.
func (g *Graph) walk(ctx context.Context, readers int) error {
	if g.walked {
		return g.walkAll(ctx, readers)
	}
	g.pendMu.Lock()
	g.firstWalk = true
	g.pendMu.Unlock()
	err := g.walkAll(ctx, readers)
	g.pendMu.Lock()
	pending := g.pending
	g.pending, g.firstWalk = nil, false
	g.pendMu.Unlock()
	if err != nil || len(pending) == 0 {
		return err // a failed first walk leaves walked unset: the next View walks everything
	}
	// Read again whatever was written during the walk, whether or not the
	// walk saw it: a rewrite in the same second with the same size would
	// look unchanged. The view is nil until view0 builds it from entries.
	for _, p := range pending {
		delete(g.entries, p)
	}
	if err := g.walkPaths(ctx, pending); err != nil {
		g.walked = false // some entries are missing: the next View walks everything
		return err
	}
	return nil
}

// walkHold, when a test sets it, holds every walk until it is closed.
var walkHold chan struct{}

// walkAll is walk, the first or a later one.
func (g *Graph) walkAll(ctx context.Context, readers int) error {
	if walkHold != nil {
		<-walkHold
	}
	root := g.st.Root()
	tasks, seen := listTree(root, len(g.entries))
	changed := map[string]*entry{}
	removed := map[string]bool{}
	aliases := false
	// The view follows the entries as they change here, also when the walk
	// is cancelled half way.
	defer func() { g.advance(changed, removed, aliases) }()
	gone := func(p string) {
		if old, ok := g.entries[p]; ok {
			delete(g.entries, p)
			removed[p] = true
			aliases = aliases || hasAliases(p, old.page)
		}
	}
	for p := range g.entries {
		if !seen[p] {
			gone(p)
		}
	}
	if err := ctx.Err(); err != nil {
		return store.Errorf(store.CodeCancelled, "cancelled while reading links")
	}
	if len(tasks) > 0 {
		results := make([][]walkResult, len(tasks))
		var wg sync.WaitGroup
		next := make(chan int)
		// The workers only read g.entries; it changes after they finish.
		parse := parseFor
		if g.lean {
			parse = leanFor
		}
		if readers <= 0 {
			readers = runtime.GOMAXPROCS(0)
		}
		for w := 0; w < readers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					results[i] = g.readTask(root, tasks[i], parse)
				}
			}()
		}
		for i := range tasks {
			if ctx.Err() != nil {
				break
			}
			next <- i
		}
		close(next)
		wg.Wait()
		for i, t := range tasks {
			for k, r := range results[i] {
				p := t.names[k]
				if t.dir != "" {
					p = t.dir + "/" + p
				}
				switch {
				case r.gone:
					gone(p)
				case r.e != nil:
					g.put(p, r.e, changed, &aliases)
				}
			}
		}
		if err := ctx.Err(); err != nil {
			return store.Errorf(store.CodeCancelled, "cancelled while reading links")
		}
	}
	if !g.walked {
		g.view = nil // the first walk: the view is built from every entry
	}
	g.walked = true
	g.lastWalk = time.Now()
	return nil
}

// put records the new entry e of p in g.entries and changed, and sets
// *aliases when it changes the aliases the resolver knows.
func (g *Graph) put(p string, e *entry, changed map[string]*entry, aliases *bool) {
	if old, existed := g.entries[p]; existed {
		*aliases = *aliases || (feedsAliases(p) && !sameAliases(old.page, e.page))
	} else {
		*aliases = *aliases || hasAliases(p, e.page)
	}
	g.entries[p] = e
	changed[p] = e
}

// walkInBackground runs the change feed's periodic safety walk off the
// read path, one at a time; the caller holds g.mu. The listing and a stat
// of every file happen without the lock, against the sizes and times known
// when the walk started; only the files found new, changed or gone are then
// read under the lock by [Graph.walkPaths], which checks each against the
// disk as it is then (so a file written meanwhile is never set back). A
// walk that fails asks the feed for another.
func (g *Graph) walkInBackground() {
	if g.closed || !g.bgWalk.CompareAndSwap(false, true) {
		return
	}
	known := make(map[string]stamp, len(g.entries))
	for p, e := range g.entries {
		known[p] = stamp{e.size, e.mtime}
	}
	g.bgWG.Add(1)
	go func() {
		defer g.bgWG.Done()
		defer g.bgWalk.Store(false)
		cand := changedSince(g.st.Root(), known)
		if len(cand) == 0 {
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.closed {
			return
		}
		if err := g.walkPaths(context.Background(), cand); err != nil {
			g.sub.Redo(wiki.Changes{Live: true, Full: true})
		}
	}()
}

// stamp is what a walk compares a file by: its size and modification time.
type stamp struct {
	size  int64
	mtime time.Time
}

// changedSince lists the tree (as [Graph.walk] does) and returns the paths
// whose size or modification time differs from known, the paths new to it,
// and the paths of known that are no longer listed, sorted.
func changedSince(root *os.Root, known map[string]stamp) []string {
	tasks, seen := listTree(root, len(known))
	var out []string
	for _, t := range tasks {
		var d *store.Dir
		r, err := root, error(nil)
		if t.dir != "" {
			r, err = store.OpenRootDir(root, t.dir)
		}
		if err == nil {
			if d, err = store.OpenDir(r); err != nil {
				d = nil
			}
		}
		for _, name := range t.names {
			p := name
			if t.dir != "" {
				p = t.dir + "/" + name
			}
			k, ok := known[p]
			if d == nil {
				out = append(out, p) // its folder went meanwhile: walkPaths checks it
				continue
			}
			st, err := d.Lstat(name)
			if !ok || err != nil || k.size != st.Size || !k.mtime.Equal(st.ModTime) {
				out = append(out, p)
			}
		}
		if d != nil {
			d.Close()
		}
		if r != nil && r != root {
			r.Close()
		}
	}
	for p := range known {
		if !seen[p] {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// listTree lists the files a walk reads (pages/, sources/ and the layout
// files; hidden names and files outside the graph's universe left out),
// grouped by folder, without a stat per file; seen holds every path listed.
func listTree(root *os.Root, hint int) (tasks []*walkTask, seen map[string]bool) {
	seen = make(map[string]bool, hint)
	add := func(t **walkTask, dir, name string) {
		p := name
		if dir != "" {
			p = dir + "/" + name
		}
		if !inUniverse(p) || strings.HasPrefix(name, ".") {
			return
		}
		seen[p] = true
		if *t == nil {
			*t = &walkTask{dir: dir}
			tasks = append(tasks, *t)
		}
		(*t).names = append((*t).names, name)
	}
	var list func(r *os.Root, dir string)
	list = func(r *os.Root, dir string) {
		d, err := store.OpenDir(r)
		if err != nil {
			return
		}
		ents, _ := d.Entries()
		d.Close()
		var t *walkTask
		for _, e := range ents {
			switch {
			case e.Type.IsDir():
				if strings.HasPrefix(e.Name, ".") {
					continue
				}
				if sub, err := store.OpenRootDir(r, e.Name); err == nil {
					list(sub, dir+"/"+e.Name)
					sub.Close()
				}
			case e.Type.IsRegular():
				add(&t, dir, e.Name)
			}
		}
	}
	for _, dir := range []string{"pages", "sources"} {
		if sub, err := store.OpenRootDir(root, dir); err == nil {
			list(sub, dir)
			sub.Close()
		}
	}
	var top *walkTask
	for _, f := range wiki.LayoutFiles {
		if fi, err := root.Lstat(f); err == nil && fi.Mode().IsRegular() {
			add(&top, "", f)
		}
	}
	return tasks, seen
}

// walkPaths is [Graph.walk] for the paths the change feed reported: each
// file is stat'ed (and read when new or changed), a folder is walked, and
// every entry under a folder that is gone or moved is checked.
func (g *Graph) walkPaths(ctx context.Context, paths []string) error {
	root := g.st.Root()
	hidden := func(p string) bool { return strings.HasPrefix(p, ".") || strings.Contains(p, "/.") }
	cand := map[string]bool{}
	for _, p := range paths {
		if hidden(p) {
			continue
		}
		fi, err := root.Lstat(p)
		if err == nil && fi.Mode().IsRegular() {
			if inUniverse(p) {
				cand[p] = true
			}
			continue
		}
		// A folder, or a path that is gone: what is known under it is
		// checked too.
		under := p + "/"
		for k := range g.entries {
			if strings.HasPrefix(k, under) {
				cand[k] = true
			}
		}
		if err == nil && fi.IsDir() {
			_ = fs.WalkDir(root.FS(), p, func(q string, d fs.DirEntry, err error) error {
				switch {
				case err != nil:
				case d.IsDir() && q != p && strings.HasPrefix(d.Name(), "."):
					return fs.SkipDir
				case d.Type().IsRegular() && !hidden(q) && inUniverse(q):
					cand[q] = true
				}
				return nil
			})
		} else if inUniverse(p) {
			cand[p] = true
		}
	}
	byDir := map[string]*walkTask{}
	var tasks []*walkTask
	for p := range cand {
		dir, name := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		t := byDir[dir]
		if t == nil {
			t = &walkTask{dir: dir}
			byDir[dir] = t
			tasks = append(tasks, t)
		}
		t.names = append(t.names, name)
	}
	changed := map[string]*entry{}
	removed := map[string]bool{}
	aliases := false
	defer func() { g.advance(changed, removed, aliases) }()
	for _, t := range tasks {
		if err := ctx.Err(); err != nil {
			return store.Errorf(store.CodeCancelled, "cancelled while reading links")
		}
		results := g.readTask(root, t, parseFor)
		for k, name := range t.names {
			p := name
			if t.dir != "" {
				p = t.dir + "/" + name
			}
			switch {
			case results == nil || results[k].gone: // the folder or the file is gone
				if old, ok := g.entries[p]; ok {
					delete(g.entries, p)
					removed[p] = true
					aliases = aliases || hasAliases(p, old.page)
				}
			case results[k].e != nil:
				g.put(p, results[k].e, changed, &aliases)
			}
		}
	}
	return nil
}

// walkTask is the files of one folder (dir "" is the project folder) a
// walk looks at.
type walkTask struct {
	dir   string
	names []string
}

// walkResult is what a walk found of one file: a new entry (new or
// changed), gone (no longer a regular file), or neither (unchanged).
type walkResult struct {
	e    *entry
	gone bool
}

// readTask stats, and reads and parses with parse where new or changed,
// the files of one folder, through the folder opened inside root.
func (g *Graph) readTask(root *os.Root, t *walkTask, parse func(rel string, data []byte) *Page) []walkResult {
	r := root
	if t.dir != "" {
		sub, err := store.OpenRootDir(root, t.dir)
		if err != nil {
			return nil
		}
		defer sub.Close()
		r = sub
	}
	d, err := store.OpenDir(r)
	if err != nil {
		return nil
	}
	defer d.Close()
	out := make([]walkResult, len(t.names))
	for k, name := range t.names {
		p := name
		if t.dir != "" {
			p = t.dir + "/" + name
		}
		old := g.entries[p]
		if old != nil || !parsed(p) {
			st, err := d.Lstat(name)
			if err != nil || !st.Mode.IsRegular() {
				out[k].gone = true
				continue
			}
			if old != nil && old.size == st.Size && old.mtime.Equal(st.ModTime) {
				continue
			}
			if !parsed(p) {
				out[k].e = &entry{size: st.Size, mtime: st.ModTime}
				continue
			}
		}
		data, st, err := d.ReadFile(name, MaxParseBytes)
		if err != nil {
			// Unreadable (permissions) or replaced since the listing: a
			// regular file is still a link target, with nothing parsed.
			if st, err = d.Lstat(name); err != nil || !st.Mode.IsRegular() {
				out[k].gone = true
				continue
			}
			data = nil
		}
		e := &entry{size: st.Size, mtime: st.ModTime}
		if data != nil {
			// Parsed now, not kept lazily: a walk reads every file, and
			// keeping the bytes of all of sources/ would cost more memory
			// than the parsed pages.
			e.page = eager(parse(p, data))
		} else {
			e.page = eager(tooLarge(p))
		}
		out[k].e = e
	}
	return out
}

// Resolved is one link of a file with where it leads.
type Resolved struct {
	Link
	Resolution
	// Problem is "" for a good link, else one of the Problem* constants.
	Problem string `json:"problem,omitempty"`
	// base is the last component of the key the target was looked up by
	// (see [Resolver.resolve]).
	base string
}

// Backlink is a link into a file.
type Backlink struct {
	// Path is the project-relative path of the linking file.
	Path string `json:"path"`
	Line int    `json:"line"`
	// Raw is the link as written.
	Raw   string `json:"raw"`
	Embed bool   `json:"embed,omitempty"`
}

// View is an immutable picture of a wiki's links: every parsed file, every
// link of the link sources ([IsSource]) resolved, and the backlinks of every
// file. Safe for concurrent use.
type View struct {
	files    overlay[*lazyPage]
	mtimes   overlay[time.Time]
	all      *sortedList
	sources  *sortedList
	resolver *Resolver
	out      overlay[[]Resolved]
	in       overlay[[]Backlink]
	// linkers maps a target's base ([Resolver.resolve]) to the sources, in
	// order, with a link of that base: the links a new or departed file of
	// that name may send elsewhere, found without going through every link.
	linkers overlay[[]string]

	suggMu sync.Mutex
	sugg   *Suggester // see [View.Suggester]; nil until first used
}

func buildView(entries map[string]*entry) *View { return buildViewKeep(entries, nil) }

// buildViewKeep is buildView for [Graph.Detach] when keep is set: each
// source's resolved links are cut to those keep picks as soon as they are
// resolved, and its parsed links dropped, so that every link of the wiki
// is never held twice (parsed and resolved); the view has no linkers.
func buildViewKeep(entries map[string]*entry, keep func(from string, r *Resolved) bool) *View {
	files, mtimes := map[string]*lazyPage{}, make(map[string]time.Time, len(entries))
	v := &View{}
	var all, sources []string
	aliases := map[string][]string{}
	for p, e := range entries {
		all = append(all, p)
		mtimes[p] = e.mtime
		if e.page != nil {
			files[p] = e.page
			if IsSource(p) {
				sources = append(sources, p)
				if pg := e.page.get(); wiki.LayerOf(p) == wiki.LayerPages && len(pg.Aliases) > 0 {
					aliases[p] = pg.Aliases
				}
			}
		}
	}
	sort.Strings(all)
	sort.Strings(sources)
	v.all, v.sources = newSortedList(all), newSortedList(sources)
	v.files.base, v.mtimes.base = files, mtimes
	v.resolver = NewResolver(all, aliases)
	if keep != nil {
		v.resolveKept(sources, keep)
	} else {
		for _, from := range sources {
			v.resolveSource(from)
		}
	}
	v.out, v.in = overlay[[]Resolved]{base: v.out.flat()}, overlay[[]Backlink]{base: v.in.flat()}
	if keep != nil {
		return v
	}
	linkers := map[string][]string{}
	for _, from := range sources {
		for b := range linkBases(v.out.at(from)) {
			linkers[b] = append(linkers[b], from)
		}
	}
	v.linkers.base = linkers
	return v
}

// keptSource is what resolveKept finds for one source: the links keep
// picks and the backlinks of all its links (to[i] is where in[i] leads).
type keptSource struct {
	kept []Resolved
	to   []string
	in   []Backlink
}

// resolveKept is resolveSource for each of sources (sorted), keeping the
// links keep picks, as Detach's view holds them; each source's parsed
// links are dropped once resolved. The links are resolved on one goroutine
// per processor, a window of sources at a time (the resolver and the
// files are only read), and recorded in the order of sources, so the view
// is the one a loop over sources builds.
func (v *View) resolveKept(sources []string, keep func(from string, r *Resolved) bool) {
	const window = 4096
	res := make([]keptSource, min(window, len(sources)))
	workers := runtime.GOMAXPROCS(0)
	for lo := 0; lo < len(sources); lo += window {
		part := sources[lo:min(lo+window, len(sources))]
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1)) - 1
					if i >= len(part) {
						return
					}
					res[i] = v.resolveOne(part[i], keep)
				}
			}()
		}
		wg.Wait()
		for i, from := range part {
			r := &res[i]
			for k, to := range r.to {
				v.in.set(to, append(v.in.at(to), r.in[k]))
			}
			if len(r.kept) > 0 {
				v.out.set(from, r.kept)
			}
			*r = keptSource{}
		}
	}
}

// resolveOne resolves the links of from as resolveSource does, without
// changing v, and drops its parsed links.
func (v *View) resolveOne(from string, keep func(from string, r *Resolved) bool) keptSource {
	pg := v.files.at(from).get()
	if pg == nil || len(pg.Links) == 0 {
		return keptSource{}
	}
	var out keptSource
	rs := make([]Resolved, len(pg.Links))
	for i, l := range pg.Links {
		res, base := v.resolver.resolve(from, l.Target)
		r := Resolved{Link: l, Resolution: res, base: base}
		r.Problem = v.problem(r)
		rs[i] = r
		if r.Path != "" && r.Path != from {
			out.to = append(out.to, r.Path)
			out.in = append(out.in, Backlink{Path: from, Line: l.Line, Raw: l.Raw, Embed: l.Embed})
		}
	}
	out.kept = keepLinks(from, rs, keep)
	pg.Links = emptyLinks
	return out
}

// keepLinks returns the links of rs that keep picks: rs itself when it
// picks all of them (a view built for Detach is cut already), else a copy.
func keepLinks(from string, rs []Resolved, keep func(from string, r *Resolved) bool) []Resolved {
	all := true
	for i := range rs {
		if !keep(from, &rs[i]) {
			all = false
			break
		}
	}
	if all {
		return rs
	}
	var kept []Resolved
	for i := range rs {
		if keep(from, &rs[i]) {
			kept = append(kept, rs[i])
		}
	}
	return slices.Clip(kept)
}

// linkBases returns the set of bases ([Resolved.base]) of rs.
func linkBases(rs []Resolved) map[string]bool {
	var bs map[string]bool
	for _, r := range rs {
		if r.base != "" {
			if bs == nil {
				bs = map[string]bool{}
			}
			bs[r.base] = true
		}
	}
	return bs
}

// resolveSource resolves the links of from into v.out and appends their
// backlinks to v.in.
func (v *View) resolveSource(from string) { v.resolveSourceReusing(from, nil, nil) }

// resolveSourceReusing is resolveSource taking the resolution of a target
// from old (from's links in the previous view) when the resolver's answer
// for it cannot have changed: its base is not in stale (the bases of the
// files that came or went). A source as long as index.md, rewritten with
// one more line, is then resolved again only where it changed.
func (v *View) resolveSourceReusing(from string, old []Resolved, stale map[string]bool) {
	pg := v.files.at(from).get()
	if pg == nil || len(pg.Links) == 0 {
		v.out.del(from)
		return
	}
	var known map[string]*Resolved
	if len(old) > 0 {
		known = make(map[string]*Resolved, len(old))
		for i := range old {
			if r := &old[i]; r.base != "" && !stale[r.base] {
				known[r.Target] = r
			}
		}
	}
	rs := make([]Resolved, len(pg.Links))
	for i, l := range pg.Links {
		var res Resolution
		var base string
		if k, ok := known[l.Target]; ok {
			res, base = k.Resolution, k.base
		} else {
			res, base = v.resolver.resolve(from, l.Target)
		}
		r := Resolved{Link: l, Resolution: res, base: base}
		r.Problem = v.problem(r)
		rs[i] = r
		if r.Path != "" && r.Path != from {
			v.in.set(r.Path, append(v.in.at(r.Path), Backlink{Path: from, Line: l.Line, Raw: l.Raw, Embed: l.Embed}))
		}
	}
	v.out.set(from, rs)
}

// update returns a new view with the files in changed (new files, or
// files whose content changed) and without those in removed, every page's
// aliases as before. It shares what did not change with v and re-resolves
// only the links that may lead elsewhere now: those of the changed and
// removed files themselves, and, when files came or went, those whose
// target names a file with a new or departed name ([Resolver.resolve]'s
// base). Links into a changed file keep where they lead; only their
// problem (a heading or block that came or went) is checked again.
func (v *View) update(changed map[string]*entry, removed map[string]bool) *View {
	nv := &View{
		files: v.files.next(), mtimes: v.mtimes.next(), all: v.all, sources: v.sources,
		resolver: v.resolver, out: v.out.next(), in: v.in.next(), linkers: v.linkers.next(),
	}
	var added, addedSrc, removedSrc []string
	redo := map[string]bool{}
	for p, e := range changed {
		if _, ok := v.mtimes.get(p); !ok {
			added = append(added, p)
			if e.page != nil && IsSource(p) {
				addedSrc = append(addedSrc, p)
			}
		}
		nv.mtimes.set(p, e.mtime)
		if e.page != nil {
			nv.files.set(p, e.page)
		} else {
			nv.files.del(p)
		}
		if IsSource(p) {
			redo[p] = true
		}
	}
	var gone []string
	for p := range removed {
		if _, ok := v.mtimes.get(p); !ok {
			continue
		}
		gone = append(gone, p)
		if _, ok := v.files.get(p); ok && IsSource(p) {
			removedSrc = append(removedSrc, p)
		}
		nv.files.del(p)
		nv.mtimes.del(p)
		if IsSource(p) {
			redo[p] = true // resolveSource drops its links
		}
	}
	var bases map[string]bool // the bases of the files that came or went
	if len(added) > 0 || len(gone) > 0 {
		nv.all = v.all.with(added, gone)
		nv.sources = v.sources.with(addedSrc, removedSrc)
		nv.resolver = v.resolver.with(added, gone)
		bases = map[string]bool{}
		for _, f := range added {
			bases[baseKey(f)] = true
		}
		for _, f := range gone {
			bases[baseKey(f)] = true
		}
		for b := range bases {
			for _, src := range v.linkers.at(b) {
				redo[src] = true
			}
		}
	}
	// Sources that link into a changed file and are not re-resolved: their
	// links there are checked again for a heading or block problem.
	recheck := map[string]bool{}
	for p := range changed {
		for _, b := range v.in.at(p) {
			if !redo[b.Path] {
				recheck[b.Path] = true
			}
		}
	}
	touched := map[string]bool{}
	for src := range redo {
		for _, l := range v.out.at(src) {
			if l.Path != "" && l.Path != src {
				touched[l.Path] = true
			}
		}
	}
	for t := range touched {
		var keep []Backlink
		for _, b := range v.in.at(t) {
			if !redo[b.Path] {
				keep = append(keep, b)
			}
		}
		if len(keep) == 0 {
			nv.in.del(t)
		} else {
			nv.in.set(t, keep)
		}
	}
	for _, p := range gone {
		if len(nv.in.at(p)) == 0 {
			nv.in.del(p)
		}
	}
	srcs := make([]string, 0, len(redo))
	for s := range redo {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	for _, s := range srcs {
		before := linkBases(v.out.at(s))
		nv.resolveSourceReusing(s, v.out.at(s), bases)
		after := linkBases(nv.out.at(s))
		for b := range before {
			if !after[b] {
				if ls := slices.DeleteFunc(slices.Clone(nv.linkers.at(b)), func(x string) bool { return x == s }); len(ls) > 0 {
					nv.linkers.set(b, ls)
				} else {
					nv.linkers.del(b)
				}
			}
		}
		for b := range after {
			if !before[b] {
				ls := nv.linkers.at(b)
				if i, found := slices.BinarySearch(ls, s); !found {
					nv.linkers.set(b, slices.Insert(slices.Clone(ls), i, s))
				}
			}
		}
		for _, l := range nv.out.at(s) {
			if l.Path != "" && l.Path != s {
				touched[l.Path] = true
			}
		}
	}
	for src := range recheck {
		nv.recheck(src, changed)
	}
	for t := range touched {
		if bl := nv.in.at(t); len(bl) > 1 {
			// A copy: the old view may share the array and is still read.
			bl = append([]Backlink(nil), bl...)
			sort.SliceStable(bl, func(i, j int) bool {
				if bl[i].Path != bl[j].Path {
					return bl[i].Path < bl[j].Path
				}
				return bl[i].Line < bl[j].Line
			})
			nv.in.set(t, bl)
		}
	}
	v.nextSuggester(nv, changed, removed)
	return nv
}

// recheck recomputes the problem of src's links into the files in changed
// (their headings and blocks may differ now), copying src's links only when
// one changes.
func (v *View) recheck(src string, changed map[string]*entry) {
	rs := v.out.at(src)
	var cp []Resolved
	for i, r := range rs {
		if _, ok := changed[r.Path]; !ok || r.Path == "" {
			continue
		}
		if p := v.problem(r); p != r.Problem {
			if cp == nil {
				cp = slices.Clone(rs)
			}
			cp[i].Problem = p
		}
	}
	if cp != nil {
		v.out.set(src, cp)
	}
}

// mergeSorted returns the sorted list xs with add (not in xs) added and del
// taken out; xs is unchanged. One pass over xs: add is sorted on its own
// and merged in, so a write costs a copy of the list, not a sort of it.
func mergeSorted(xs, add, del []string) []string {
	if len(add) == 0 && len(del) == 0 {
		return xs
	}
	drop := make(map[string]bool, len(del))
	for _, d := range del {
		drop[d] = true
	}
	add = slices.Sorted(slices.Values(add))
	out := make([]string, 0, len(xs)+len(add))
	for _, x := range xs {
		for len(add) > 0 && add[0] < x {
			out = append(out, add[0])
			add = add[1:]
		}
		if !drop[x] {
			out = append(out, x)
		}
	}
	return append(out, add...)
}

func (v *View) problem(r Resolved) string {
	if r.Path == "" {
		if r.Embed {
			return ProblemMissingEmbed
		}
		return ProblemDangling
	}
	if pg := v.files.at(r.Path).get(); pg != nil {
		if len(r.Headings) > 0 && !HasHeadings(pg, r.Headings, r.Kind == KindMarkdown) {
			return ProblemHeading
		}
		if r.Block != "" && !HasBlock(pg, r.Block) {
			return ProblemBlock
		}
	}
	if len(r.Ambiguous) > 0 {
		return ProblemAmbiguous
	}
	return ""
}

// Resolver returns the resolver of the view's files.
func (v *View) Resolver() *Resolver { return v.resolver }

// Files returns every file links may lead to, sorted.
func (v *View) Files() []string { return v.all.list() }

// Sources returns the files whose links count ([IsSource]), sorted.
func (v *View) Sources() []string { return v.sources.list() }

// Pages returns the catalogue entries of the pages (markdown files under
// pages/), sorted by path: the same entries [wiki.Store.Pages] gives, read
// in the same pass as the links.
func (v *View) Pages() []wiki.PageInfo {
	out := make([]wiki.PageInfo, 0, v.sources.len())
	for _, p := range v.sources.list() {
		if pg := v.files.at(p).get(); pg != nil && pg.Info != nil {
			out = append(out, *pg.Info)
		}
	}
	return out
}

// ModTime returns the modification time of rel as last seen (zero when
// unknown).
func (v *View) ModTime(rel string) time.Time { return v.mtimes.at(rel) }

// Page returns the parsed markdown file rel, or nil.
func (v *View) Page(rel string) *Page { return v.files.at(rel).get() }

// Links returns the resolved links written in rel, in file order.
func (v *View) Links(rel string) []Resolved { return v.out.at(rel) }

// Backlinks returns the links into rel from other files, sorted by file and
// line (the view is built in that order).
func (v *View) Backlinks(rel string) []Backlink { return v.in.at(rel) }
