package wiki

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// MaxPageBytes is the largest page body write_page accepts, in bytes.
const MaxPageBytes = 1 << 20

// PageInfo is the catalogue entry of one page: what list_pages and index.md
// show, read from its frontmatter.
type PageInfo struct {
	// Path is project-relative: "pages/<slug>.md" or a nested path.
	Path string `json:"path"`
	// Slug is the path under pages/ without ".md" ("electron-ipc",
	// "en/Plugins/Graph view" for a nested vault).
	Slug string `json:"slug"`
	// Title is the frontmatter title, else the first "# " heading, else the
	// file name.
	Title   string   `json:"title"`
	Summary string   `json:"summary,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Aliases []string `json:"aliases,omitempty"`
	Sources []string `json:"sources,omitempty"`
	// Created and Updated are the frontmatter times (RFC 3339) when set;
	// list_pages gives a page without an updated key its file's
	// modification time (see [PageInfo.ModTime]), as search_wiki does.
	Created string `json:"created,omitempty"`
	Updated string `json:"updated,omitempty"`
	// Error is set when the page's frontmatter cannot be parsed.
	Error string `json:"error,omitempty"`

	size  int64
	mtime time.Time
	key   string // PageKey(Path), computed once
}

// ModTime is the page file's modification time when the catalogue read it
// (the zero time for a PageInfo not from the catalogue).
func (p PageInfo) ModTime() time.Time { return p.mtime }

// PageInfoFrom builds the catalogue entry of the page at rel from its
// content, as [Store.Pages] would (for derived state that sees the content
// in a [Change]).
func PageInfoFrom(rel string, data []byte) PageInfo { return pageInfoFrom(rel, data) }

// pageInfoFrom builds the catalogue entry of rel from its content, as
// [mdoc.Decode] reads it (a Windows-1252 title is shown decoded, as read_page
// shows the page).
func pageInfoFrom(rel string, data []byte) PageInfo {
	if dec := mdoc.Decode(data); !dec.Binary {
		data = dec.Text
	}
	d, err := mdoc.ParseDoc(rel, data)
	return PageInfoOf(rel, d, err)
}

// PageInfoOf builds the catalogue entry of the page rel from what
// [mdoc.ParseDoc] returned for it (d, err), for packages that parse pages
// themselves (the link graph) and must agree with list_pages and index.md.
func PageInfoOf(rel string, d *mdoc.Doc, err error) PageInfo {
	pi := PageInfo{Path: rel, Slug: strings.TrimSuffix(strings.TrimPrefix(rel, "pages/"), path.Ext(rel))}
	if err != nil {
		pi.Error = store.PublicMessage(err)
		pi.Title = path.Base(pi.Slug)
		return pi
	}
	m := d.Meta
	pi.Title = strings.TrimSpace(mdoc.MetaString(m, "title"))
	pi.Summary = mdoc.MetaString(m, "summary")
	if pi.Summary == "" {
		pi.Summary = mdoc.MetaString(m, "description")
	}
	pi.Tags = mdoc.MetaList(m, "tags")
	pi.Aliases = mdoc.MetaList(m, "aliases")
	pi.Sources = mdoc.MetaList(m, "sources")
	pi.Created = mdoc.MetaString(m, "created")
	pi.Updated = mdoc.MetaString(m, "updated")
	if pi.Title == "" {
		pi.Title = firstHeading(d.Body)
	}
	if pi.Title == "" {
		pi.Title = path.Base(pi.Slug)
	}
	return pi
}

// firstHeading returns the text of the first level-1 ATX heading outside
// fenced code in the first 200 lines of body, or "". It works on the bytes
// (every page is read this way) and copies only the title.
func firstHeading(body []byte) string {
	var fences mdoc.Fences
	rest := body
	for n := 0; n < 200 && len(rest) > 0; n++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if fences.LineBytes(line) == mdoc.Heading {
			if lvl, text := mdoc.ATXBytes(line); lvl == 1 {
				return string(text)
			}
		}
	}
	return ""
}

// Pages returns the catalogue of every page under pages/, sorted by path. It
// reconciles with the disk by size and modification time, so edits made
// outside the server (Obsidian, git pull) are seen.
func (s *Store) Pages() ([]PageInfo, error) {
	return s.PagesContext(context.Background())
}

// PagesContext is [Store.Pages] with progress reports ([Progress]) every
// [progressEvery] files and cancellation: when ctx ends the scan stops with
// a CodeConflict error and the catalogue is left as it was.
//
// Concurrent callers share scans: a caller that waited while another scan
// ran takes the result of a scan that started after it arrived, so every
// edit finished before the call is seen, and a queue of callers costs two
// scans, not one each.
func (s *Store) PagesContext(ctx context.Context) ([]PageInfo, error) {
	pages, err := s.PagesShared(ctx)
	if err != nil {
		return nil, err
	}
	return append([]PageInfo(nil), pages...), nil
}

// PagesShared is [Store.PagesContext] without the copy: the slice is the
// catalogue's own, shared by every caller until the catalogue changes
// (then a new slice replaces it; this one is never written again). Callers
// must only read it, the Tags and other slices of its entries included. It
// spares a read-only caller copying every entry (list_pages on a large
// wiki).
func (s *Store) PagesShared(ctx context.Context) ([]PageInfo, error) {
	pages, _, err := s.pagesSharedGen(ctx)
	return pages, err
}

// pagesSharedGen is [Store.PagesShared] with the catalogue's generation:
// a number that changes whenever the shared slice does (a memo of
// something computed from the catalogue keys on it).
func (s *Store) pagesSharedGen(ctx context.Context) ([]PageInfo, uint64, error) {
	arrived := time.Now()
	s.syncFeed(ctx)
	s.catMu.Lock()
	defer s.catMu.Unlock()
	if err := s.scanPagesLocked(ctx, arrived); err != nil {
		return nil, 0, err
	}
	pages := s.sortedLocked()
	return pages, s.catGen, nil
}

// MaxCatalogueAge bounds how stale the page catalogue may be with respect to
// edits made outside the server (Obsidian, git pull) when no file watcher
// runs. Writes through the store update the catalogue at once. With the
// change feed (feed.go) outside edits are applied path by path from the
// watcher's events and the whole of pages/ is walked only at the first call,
// after the watcher lost events, and every [FullRescanEvery]. Without it the
// next scan runs when the last one is older than ten times its own cost,
// capped at MaxCatalogueAge (a large wiki's scan is not free). The
// search index follows the same rules. [Store.PagesFresh] forces a scan.
const MaxCatalogueAge = 2 * time.Second

// catalogueFresh reports whether the catalogue can be served without a scan
// for a caller that arrived at arrived.
func (s *Store) catalogueFresh(arrived time.Time) bool {
	if s.cat == nil {
		return false
	}
	if s.catAt.After(arrived) {
		return true // a scan started after the caller arrived
	}
	return time.Since(s.catAt) < min(10*s.catCost, MaxCatalogueAge)
}

// PagesFresh is [Store.Pages] after a scan of pages/ that starts now, for
// callers that must see every outside edit (rebuild_index).
func (s *Store) PagesFresh(ctx context.Context) ([]PageInfo, error) {
	s.catMu.Lock()
	s.catAt = time.Time{}
	s.catMu.Unlock()
	return s.PagesContext(ctx)
}

// scanPagesLocked reconciles the catalogue with the disk, unless it is
// fresh enough for a caller that arrived at arrived (see MaxCatalogueAge).
func (s *Store) scanPagesLocked(ctx context.Context, arrived time.Time) error {
	if s.catSub == nil {
		s.catSub = s.WatchChanges() // before the first walk, so nothing falls between
	}
	if ch := s.catSub.Take(); ch.Live && (!ch.Full || ch.Periodic) && s.cat != nil && !s.catAt.IsZero() {
		s.refreshPagesLocked(ch.Paths, ch.Gone)
		if ch.Full {
			// The feed's periodic safety net: the walk, which finds only
			// what a watcher dropped, runs off the caller's path (a write
			// on a large wiki must not wait for a stat of every page).
			s.walkPagesInBackground()
		}
		return nil
	} else if !ch.Live && s.catalogueFresh(arrived) {
		return nil
	}
	started := time.Now()
	old := s.cat
	var next []PageInfo
	if old != nil {
		next = make([]PageInfo, 0, old.len())
	}
	var skips store.Skips
	seen := 0
	// Files are stated and read by name in their folder: a walk takes a
	// folder's files in turn.
	var dirs store.FolderCache
	defer dirs.Close()
	err := fs.WalkDir(s.root.FS(), "pages", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "pages" && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return nil // unreadable entries are reported by validate_structure
		}
		if d.IsDir() {
			if p != "pages" && (strings.HasPrefix(d.Name(), ".") || !addressable(p)) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !catalogued(p) {
			if store.IsSpecial(d.Type()) && catalogued(p) {
				skips.Set(p, store.SkipNotRegular)
			}
			return nil
		}
		if seen++; seen%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return errCancelled
			}
			total := 0 // the last count, as an estimate
			if old != nil {
				total = old.len()
			}
			if seen >= total {
				total = 0
			}
			Progress(ctx, seen, total, "scanned "+strconv.Itoa(seen)+" pages")
		}
		info, err := dirs.Lstat(s.root, p)
		if err != nil || !info.Mode.IsRegular() {
			return nil
		}
		if old != nil {
			if prev, ok := old.get(p); ok && prev.size == info.Size && prev.mtime.Equal(info.ModTime) {
				next = append(next, prev)
				return nil
			}
		}
		data, err := dirs.ReadFile(s.root, p)
		if err != nil {
			return nil
		}
		pi := pageInfoFrom(p, data)
		pi.size, pi.mtime, pi.key = info.Size, info.ModTime, PageKey(p)
		next = append(next, pi)
		return nil
	})
	if err != nil {
		s.catAt = time.Time{} // the next call walks again
	}
	if errors.Is(err, errCancelled) {
		return store.Errorf(store.CodeCancelled, "cancelled while reading the pages; nothing was changed")
	}
	if err != nil {
		return store.Internal("list pages", err)
	}
	s.cat, s.catAt, s.catCost = newCatalogue(next), started, time.Since(started)
	s.catGen++
	s.catKeys, s.catDirs = keysOf(s.cat)
	s.catFolders = nil
	s.catSkips = skips
	Progress(ctx, seen, seen, "scanned "+strconv.Itoa(seen)+" pages")
	return nil
}

// walkPagesInBackground stats every page off the caller's path, against
// the sizes and times the catalogue holds now, and then applies the files
// found new, changed or gone as the change feed's paths are applied
// ([Store.refreshPagesLocked] checks each against the disk as it is then,
// so a page written meanwhile is never set back). One at a time; Close
// waits for it. Called with catMu held.
func (s *Store) walkPagesInBackground() {
	if s.catClosed || !s.catWalking.CompareAndSwap(false, true) {
		return
	}
	// The walk compares against the sorted list as it is now (shared,
	// never changed in place), marking the pages it finds.
	known := s.sortedLocked()
	seen := make([]bool, len(known))
	s.catWG.Add(1)
	go func() {
		defer s.catWG.Done()
		defer s.catWalking.Store(false)
		var cand []string
		_ = fs.WalkDir(s.root.FS(), "pages", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != "pages" && (strings.HasPrefix(d.Name(), ".") || !addressable(p)) {
					return fs.SkipDir
				}
				return nil
			}
			if !catalogued(p) {
				return nil
			}
			i, ok := findPage(known, p)
			var prev PageInfo
			if ok {
				prev, seen[i] = known[i], true
			}
			info, err := d.Info()
			if err != nil || !ok || !info.Mode().IsRegular() || prev.size != info.Size() || !prev.mtime.Equal(info.ModTime()) {
				cand = append(cand, p)
			}
			return nil
		})
		for i := range known { // listed before, not found now
			if !seen[i] {
				cand = append(cand, known[i].Path)
			}
		}
		if len(cand) == 0 {
			return
		}
		s.catMu.Lock()
		defer s.catMu.Unlock()
		if !s.catClosed && s.cat != nil {
			s.refreshPagesLocked(cand, nil)
		}
	}()
}

// closeCatalogue waits for a background walk ([Store.walkPagesInBackground])
// and starts no other.
func (s *Store) closeCatalogue() {
	s.catMu.Lock()
	s.catClosed = true
	s.catMu.Unlock()
	s.catWG.Wait()
}

// catalogued reports whether the file at p (under pages/) is one the
// catalogue lists when it is a regular file: a .md page, not hidden, not a
// writer's temp file, with a name llmwiki serves.
func catalogued(p string) bool {
	return strings.EqualFold(path.Ext(p), ".md") && !store.IsTempName(p) && !strings.HasPrefix(path.Base(p), ".") && addressable(p)
}

// PagesSkipped reports the files under pages/ that the page catalogue (and
// so list_pages, index.md and lint) leaves out, counted by reason (a FIFO,
// socket or device is [SkipNotRegular]), and a few of their paths, as of
// the catalogue's last scan (call it after [Store.PagesShared] or
// [Store.PagesContext]); nil when none.
func (s *Store) PagesSkipped() (counts map[string]int, examples map[string][]string) {
	s.catMu.Lock()
	defer s.catMu.Unlock()
	return s.catSkips.Report()
}

// errCancelled stops a walk whose context ended.
var errCancelled = errors.New("cancelled")

// noteCommitted updates the page catalogue with committed changes.
func (s *Store) noteCommitted(changes []store.Change) {
	s.catMu.Lock()
	defer s.catMu.Unlock()
	if s.cat == nil {
		return
	}
	// The sorted slice is shared with readers (PagesShared) and is not
	// copied here: a copy of every entry on each write grows with the wiki.
	// The catalogue keeps the changed entries aside and the next reader
	// that needs the sorted list merges them in ([catalogue.sorted]), once
	// for all writes since.
	for _, c := range changes {
		if LayerOf(c.Path) != LayerPages || !strings.EqualFold(path.Ext(c.Path), ".md") {
			continue
		}
		if c.Op == store.OpDelete {
			s.catDel(c.Path)
		} else {
			pi := pageInfoFrom(c.Path, c.Data)
			pi.key = PageKey(c.Path)
			if fi, err := s.root.Stat(c.Path); err == nil {
				pi.size, pi.mtime = fi.Size(), fi.ModTime()
			}
			s.catSet(c.Path, pi)
		}
	}
}

// sortedLocked returns the catalogue sorted by path, with the entries
// changed since the last call merged in. Called with catMu held and the
// catalogue loaded.
func (s *Store) sortedLocked() []PageInfo {
	list, merged := s.cat.sorted()
	if merged {
		s.catGen++
	}
	return list
}

// pageByKey finds the existing page whose identity key ([PageKey]) is key.
//
// The folder the key names is listed now, so a page created there outside
// the server a moment ago is found; pages whose folder names differ only by
// case or separators come from the catalogue (see MaxCatalogueAge).
func (s *Store) pageByKey(key string) (PageInfo, bool, error) {
	found := s.keyInFolder(key)
	arrived := time.Now()
	s.syncFeed(context.Background())
	s.catMu.Lock()
	defer s.catMu.Unlock()
	if err := s.scanPagesLocked(context.Background(), arrived); err != nil {
		return PageInfo{}, false, err
	}
	for _, rel := range s.catKeys[key] {
		if p, _ := s.cat.get(rel); !slices.ContainsFunc(found, func(f PageInfo) bool { return f.Path == p.Path }) {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return PageInfo{}, false, nil
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Path < found[j].Path })
	return found[0], true, nil
}

// keyInFolder lists the folder a page key points into and returns the pages
// there whose key is key, read from disk.
func (s *Store) keyInFolder(key string) []PageInfo {
	dir := path.Dir(key)
	entries, err := s.ReadDir(dir)
	if err != nil {
		return nil
	}
	base := path.Base(key)
	var out []PageInfo
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.EqualFold(path.Ext(name), ".md") || store.IsTempName(name) || strings.HasPrefix(name, ".") {
			continue
		}
		if !strings.EqualFold(strings.TrimSuffix(name, path.Ext(name)), base) && PageKey(name) != base {
			continue
		}
		p := dir + "/" + name
		if PageKey(p) != key || !addressable(p) {
			continue
		}
		if data, ok, err := s.ReadRaw(p); err == nil && ok {
			out = append(out, pageInfoFrom(p, data))
		}
	}
	return out
}

// ResolvePage turns what a caller named into a page's project-relative path.
// name may be a path ("pages/topic.md"), a path under pages/ ("topic.md",
// "en/Plugins/Graph view"), a slug in any case or separator style ("My
// Topic", "my_topic"), or, failing those, a page title or alias (compared
// case-insensitively). A percent-encoded name, as in a page's resource URI
// ("en%2FPlugins%2FGraph%20view"), that matches nothing is decoded once and
// tried again. A name that matches nothing is a CodeNotFound error that
// tells the caller how to find pages.
func (s *Store) ResolvePage(name string) (string, error) {
	p, err := s.resolvePage(name)
	if store.CodeOf(err) == store.CodeNotFound && strings.Contains(name, "%") {
		if dec, derr := url.PathUnescape(strings.TrimSpace(name)); derr == nil && dec != strings.TrimSpace(name) {
			if dp, derr := s.resolvePage(dec); derr == nil {
				return dp, nil
			}
		}
	}
	return p, err
}

func (s *Store) resolvePage(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", store.Errorf(store.CodeInvalid, "page name is empty")
	}
	if !utf8.ValidString(name) {
		return "", store.Errorf(store.CodeInvalid, "page name is not valid UTF-8")
	}
	if l := OtherLayerFolder(name); l != "" {
		return "", store.Errorf(store.CodeNotFound, "%q names a file under %s/, not a page; read it with read_page path (a page in a folder named %s is \"pages/%s\")", name, l, l, strings.TrimPrefix(strings.TrimSpace(name), "./"))
	}
	candidate := strings.TrimPrefix(name, "./")
	if strings.HasPrefix(candidate, "/") || strings.HasPrefix(candidate, "~") {
		_, err := CleanPath(candidate)
		return "", err
	}
	if !strings.HasPrefix(candidate, "pages/") {
		candidate = "pages/" + candidate
	}
	if !strings.EqualFold(path.Ext(candidate), ".md") {
		candidate += ".md"
	}
	if strings.ContainsAny(name, "/\\:") || strings.Contains(name, "..") {
		if _, err := CleanPath(candidate); err != nil {
			return "", err
		}
	}
	if rel, err := CleanPath(candidate); err == nil {
		if p, ok, err := s.pageByKey(PageKey(rel)); err != nil {
			return "", err
		} else if ok {
			return p.Path, nil
		}
	}
	pages, err := s.Pages()
	if err != nil {
		return "", err
	}
	for _, p := range pages {
		if strings.EqualFold(p.Title, name) {
			return p.Path, nil
		}
		for _, a := range p.Aliases {
			if strings.EqualFold(a, name) {
				return p.Path, nil
			}
		}
	}
	if rel, err := CleanPath(candidate); err == nil {
		// Not a page, but a FIFO or device of that name: say so.
		if fi, err := s.root.Lstat(rel); err == nil && store.IsSpecial(fi.Mode()) {
			return "", store.NotRegularError(rel, fi.Mode())
		}
	}
	return "", store.Errorf(store.CodeNotFound, "page %q not found; use search_wiki or list_pages to find the right name", name)
}

// PageInput is a page to create or update with [Store.WritePage].
type PageInput struct {
	// Title is required; the slug is derived from it when Slug is empty.
	Title string
	// Slug, when set, names the page; it is normalised
	// ([NormalizePageName]). A page in a folder under pages/ is named
	// folder/name ("en/plugins/graph-view").
	Slug string
	// Summary is one line; "" keeps the existing summary on update.
	Summary string
	// Tags, Aliases, Sources: nil keeps the existing value on update, an
	// empty non-nil slice clears it.
	Tags, Aliases, Sources []string
	// Extra holds other frontmatter keys to set.
	Extra map[string]any
	// Content is the markdown after the frontmatter.
	Content string
	// BaseSHA256 is the sha256 of the version the caller read. Required to
	// update an existing page; must be empty to create one.
	BaseSHA256 string
}

// PageWrite is the result of [Store.WritePage].
type PageWrite struct {
	Path    string `json:"path"`
	Slug    string `json:"slug"`
	SHA256  string `json:"sha256"`
	Created bool   `json:"created"`
	Updated string `json:"updated"`
	// Snapshot is the snapshot of the replaced version ("" on create).
	Snapshot string `json:"snapshot,omitempty"`
}

// knownPageKeys are the frontmatter keys write_page sets from its own fields.
var knownPageKeys = []string{"title", "summary", "tags", "aliases", "sources", "created", "updated"}

// WritePage creates or updates a page through the audited writer.
//
// Create: the page must not exist under any name with the same identity key
// ([PageKey]: case, separators and Unicode normal form folded); if it does,
// the error is CodeConflict and names the existing file. Update: BaseSHA256
// must match the current file. The frontmatter is emitted by a YAML
// marshaller; created is kept from the old version (or set now), updated is
// set now (UTC, RFC 3339); keys the page had that the input does not set are
// kept byte for byte.
func (s *Store) WritePage(ctx context.Context, in PageInput) (out PageWrite, err error) {
	ctx, call, done := s.WithOwnCall(ctx)
	defer func() { done(err) }()
	if err := validatePageInput(&in); err != nil {
		return out, err
	}
	slug := in.Slug
	if l := OtherLayerFolder(slug); l != "" {
		return out, store.Errorf(store.CodeInvalid, "slug %q begins with %s/, which is not where pages go (save_source adds raw documents); for a page in a folder named %s, give the slug \"pages/%s\"", slug, l, l, strings.TrimPrefix(strings.TrimSpace(slug), "./"))
	}
	if slug != "" {
		slug, err = NewPageName(slug)
	} else {
		slug, err = mdoc.NewSlug(in.Title)
	}
	if err != nil {
		return out, err
	}
	rel := PagePath(slug)
	existing, exists, err := s.pageByKey(PageKey(rel))
	if err != nil {
		return out, err
	}
	if exists {
		rel = existing.Path
	} else {
		rel = s.inExistingFolders(rel)
	}
	if exists && in.BaseSHA256 == "" {
		cur, _, _ := s.ReadRaw(rel)
		return out, store.Errorf(store.CodeConflict, "page %s already exists (sha256 %s); to update it, read_page it and pass base_sha256, or choose another title or slug", rel, store.SHA256Hex(cur))
	}
	if !exists && in.BaseSHA256 != "" {
		return out, store.Errorf(store.CodeNotFound, "page %s does not exist, so base_sha256 cannot match; omit base_sha256 to create it", rel)
	}
	now := s.Now().Format(time.RFC3339)
	before := len(call.SnapshotsTaken())
	var data []byte
	err = s.Update(ctx, func(tx *store.Tx) error {
		var old *mdoc.Doc
		crlf := false
		if exists {
			cur, ok, err := tx.Read(rel)
			if err != nil {
				return err
			}
			if !ok {
				return store.Errorf(store.CodeNotFound, "page %s was removed meanwhile; omit base_sha256 to create it", rel)
			}
			if got := store.SHA256Hex(cur); got != strings.ToLower(in.BaseSHA256) {
				return store.Errorf(store.CodeConflict, "%s changed since you read it (base_sha256 %s… does not match the current %s…); read it again, merge your change, and retry with the new sha256", rel, short(in.BaseSHA256), short(got))
			}
			old, err = mdoc.ParseDoc(rel, cur)
			if err != nil {
				return &store.Error{Code: store.CodeInvalid, Msg: store.PublicMessage(err) + "; the page was not changed (fix its frontmatter by hand or restore a snapshot)", Err: err}
			}
			crlf = FirstLineCRLF(cur)
		}
		fields := pageFields(in, old, now)
		data, err = mdoc.RenderDoc(fields, old, []byte(in.Content))
		if err != nil {
			return err
		}
		// A page with "\r\n" line ends keeps them on every line.
		data = WithLineEnds(data, crlf)
		if exists {
			return tx.Replace(rel, data, in.BaseSHA256)
		}
		return tx.Create(rel, data)
	})
	if err != nil {
		return out, err
	}
	out = PageWrite{Path: rel, Slug: strings.TrimSuffix(strings.TrimPrefix(rel, "pages/"), ".md"), SHA256: store.SHA256Hex(data), Created: !exists, Updated: now}
	for _, sn := range call.SnapshotsTaken()[before:] {
		if strings.HasPrefix(sn, store.SnapshotDir+"/"+rel+"/") {
			out.Snapshot = sn
		}
	}
	return out, nil
}

// inExistingFolders spells the folders of a new page's path as an existing
// page's folders are spelled when they are the same folder by [PageKey]
// ("pages/en/plugins/x.md" goes into "pages/en/Plugins/" when that holds
// pages), so a nested vault does not grow a second folder differing only by
// case or separators: the deepest existing folder on the way is taken.
func (s *Store) inExistingFolders(rel string) string {
	dir := path.Dir(rel)
	if dir == "pages" {
		return rel
	}
	folders, err := s.folderIndex()
	if err != nil {
		return rel
	}
	// The deepest existing folder on the way to dir: dir's key, then its
	// parents' keys, looked up.
	best := ""
	for k := folderKey(dir); k != "pages" && k != "."; k = path.Dir(k) {
		if d, ok := folders[k]; ok {
			best = d
			break
		}
	}
	if best == "" {
		return rel
	}
	return best + strings.TrimPrefix(rel, path.Join(strings.Split(rel, "/")[:strings.Count(best, "/")+1]...))
}

// folderIndex returns, for each folder key ([folderKey]) of the folders
// that hold pages in the catalogue and of their parents, the folder a new
// page with that key goes into: of folders differing only by case or
// separators, the one first met going through the page folders in path
// order, each from itself up to its parents (as when every page was looked
// at). It is made again only when a folder comes or goes (catSet, catDel,
// a scan), so a create in a folder does not key every folder.
func (s *Store) folderIndex() (map[string]string, error) {
	arrived := time.Now()
	s.syncFeed(context.Background())
	s.catMu.Lock()
	defer s.catMu.Unlock()
	if err := s.scanPagesLocked(context.Background(), arrived); err != nil {
		return nil, err
	}
	if s.catFolders != nil {
		return s.catFolders, nil
	}
	dirs := make([]string, 0, len(s.catDirs))
	for d := range s.catDirs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	if s.folderKeys == nil || len(s.folderKeys) > 2*len(dirs)+1024 {
		s.folderKeys = make(map[string]string, len(dirs))
	}
	idx := map[string]string{}
	seen := map[string]bool{}
	for _, d := range dirs {
		for ; d != "pages" && d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			k, ok := s.folderKeys[d]
			if !ok {
				k = folderKey(d)
				s.folderKeys[d] = k
			}
			if _, ok := idx[k]; !ok {
				idx[k] = d
			}
		}
	}
	s.catFolders = idx
	return idx, nil
}

// folderKey is a folder path with each segment slugified, as [PageKey] does.
func folderKey(dir string) string {
	parts := strings.Split(dir, "/")
	for i, c := range parts {
		k, err := mdoc.Slugify(c)
		if err != nil {
			k = "-"
		}
		parts[i] = k
	}
	return strings.Join(parts, "/")
}

func validatePageInput(in *PageInput) error {
	for _, f := range []struct{ name, v string }{{"title", in.Title}, {"summary", in.Summary}, {"body", in.Content}, {"slug", in.Slug}, {"base_sha256", in.BaseSHA256}} {
		if !utf8.ValidString(f.v) {
			return store.Errorf(store.CodeInvalid, "%s is not valid UTF-8", f.name)
		}
	}
	if strings.TrimSpace(in.Title) == "" {
		return store.Errorf(store.CodeInvalid, "title is required; give the page a one-line title")
	}
	if len(in.Title) > 300 {
		return store.Errorf(store.CodeInvalid, "title is %d bytes; keep it under 300", len(in.Title))
	}
	if strings.ContainsAny(in.Summary, "\r\n") {
		return store.Errorf(store.CodeInvalid, "summary must be one line (index.md shows it on one line)")
	}
	if len(in.Summary) > 500 {
		return store.Errorf(store.CodeInvalid, "summary is %d bytes; keep it under 500", len(in.Summary))
	}
	if len(in.Content) > MaxPageBytes {
		return store.Errorf(store.CodeTooLarge, "content is %d bytes; the limit is %d. Split the topic into several pages", len(in.Content), MaxPageBytes)
	}
	if d, err := mdoc.ParseDoc("body", []byte(in.Content)); err != nil || d.Format != mdoc.FormatNone {
		return store.Errorf(store.CodeInvalid, "content starts with a frontmatter block; pass title, summary, tags, aliases and sources as arguments and the markdown after the frontmatter as content")
	}
	if in.BaseSHA256 != "" && !isHexSHA(in.BaseSHA256) {
		return store.Errorf(store.CodeInvalid, "base_sha256 must be 64 hex digits, as read_page returns it")
	}
	for i, t := range in.Tags {
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if t == "" || strings.ContainsAny(t, " \t\r\n,") || !utf8.ValidString(t) {
			return store.Errorf(store.CodeInvalid, "tag %q must be one word without spaces or commas (use my-tag)", in.Tags[i])
		}
		in.Tags[i] = t
	}
	for _, a := range in.Aliases {
		if strings.TrimSpace(a) == "" || strings.ContainsAny(a, "\r\n") || !utf8.ValidString(a) {
			return store.Errorf(store.CodeInvalid, "aliases must be non-empty one-line names")
		}
	}
	for _, src := range in.Sources {
		if err := checkSourceRef(src); err != nil {
			return err
		}
	}
	for k := range in.Extra {
		for _, known := range knownPageKeys {
			if k == known {
				return store.Errorf(store.CodeInvalid, "frontmatter key %q is set by its own argument, not through extra", k)
			}
		}
		if k == "" || strings.ContainsAny(k, "\r\n:") {
			return store.Errorf(store.CodeInvalid, "frontmatter key %q is not a plain name", k)
		}
	}
	return nil
}

func isHexSHA(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range strings.ToLower(s) {
		if !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {
			return false
		}
	}
	return true
}

// checkSourceRef accepts an http(s) URL or a path under sources/.
func checkSourceRef(src string) error {
	if u, err := url.Parse(src); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	rel, err := CleanPath(src)
	if err != nil || !strings.HasPrefix(rel, "sources/") {
		return store.Errorf(store.CodeInvalid, "source %q must be a path under sources/ (like sources/notes.md) or an http(s) URL", src)
	}
	return nil
}

func pageFields(in PageInput, old *mdoc.Doc, now string) []mdoc.Field {
	var m map[string]any
	if old != nil {
		m = old.Meta
	}
	pick := func(v []string, key string) []string {
		if v != nil {
			return v
		}
		return mdoc.MetaList(m, key)
	}
	summary := in.Summary
	if summary == "" {
		summary = mdoc.MetaString(m, "summary")
	}
	created := mdoc.MetaString(m, "created")
	if created == "" {
		created = now
	}
	fields := []mdoc.Field{{Key: "title", Value: in.Title}}
	if summary != "" {
		fields = append(fields, mdoc.Field{Key: "summary", Value: summary})
	}
	for _, kv := range []struct {
		k string
		v []string
	}{{"tags", pick(in.Tags, "tags")}, {"aliases", pick(in.Aliases, "aliases")}, {"sources", pick(in.Sources, "sources")}} {
		if len(kv.v) > 0 {
			fields = append(fields, mdoc.Field{Key: kv.k, Value: kv.v})
		} else {
			fields = append(fields, mdoc.Field{Key: kv.k, Value: mdoc.Removed})
		}
	}
	fields = append(fields, mdoc.Field{Key: "created", Value: created}, mdoc.Field{Key: "updated", Value: now})
	keys := make([]string, 0, len(in.Extra))
	for k := range in.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := in.Extra[k]
		if v == nil {
			v = mdoc.Removed
		}
		fields = append(fields, mdoc.Field{Key: k, Value: v})
	}
	return fields
}

// bodyOf returns the body of a markdown file (after any frontmatter).
func bodyOf(rel string, data []byte) []byte {
	d, err := mdoc.ParseDoc(rel, data)
	if err != nil {
		return data
	}
	return d.Body
}

// PagesListed walks pages/ as the catalogue's scan does but reads and stats
// no file: it returns how many files the catalogue would list, and the
// files it would leave out by reason with a few examples (as
// [Store.PagesSkipped] reports them). llmwiki lint takes its pages from the
// link graph's walk; this tells it the rest without a second read of every
// page.
func (s *Store) PagesListed(ctx context.Context) (n int, counts map[string]int, examples map[string][]string, err error) {
	var skips store.Skips
	err = fs.WalkDir(s.root.FS(), "pages", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "pages" && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return nil
		}
		if d.IsDir() {
			if p != "pages" && (strings.HasPrefix(d.Name(), ".") || !addressable(p)) {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case !catalogued(p):
		case d.Type().IsRegular():
			if n++; n%progressEvery == 0 && ctx.Err() != nil {
				return errCancelled
			}
		case store.IsSpecial(d.Type()):
			skips.Set(p, store.SkipNotRegular)
		}
		return nil
	})
	if errors.Is(err, errCancelled) {
		return 0, nil, nil, store.Errorf(store.CodeCancelled, "cancelled while listing the pages")
	}
	if err != nil {
		return 0, nil, nil, store.Internal("list pages", err)
	}
	counts, examples = skips.Report()
	return n, counts, examples, nil
}
