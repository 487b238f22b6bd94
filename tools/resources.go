package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ResourceScheme is the URI scheme of the wiki's MCP resources.
const ResourceScheme = "wiki://"

// PageTemplate is the URI template of a page resource: the slug is the
// page's path under pages/ without ".md", percent-encoded
// ("wiki://pages/electron-ipc", "wiki://pages/en%2FPlugins%2FGraph%20view").
const PageTemplate = "wiki://pages/{slug}"

// maxResourceBytes is the largest file served as a resource; longer files
// are read in parts with read_page.
const maxResourceBytes = 4 << 20

// listSyncInterval is how often resources/list reconciles the page list
// with the disk (pages written by another process, Obsidian or git).
const listSyncInterval = 2 * time.Second

// staticResources are the top-level files served as resources, with their
// descriptions.
var staticResources = []struct{ path, desc string }{
	{"context.md", "The wiki's synthesis: what is known, folded from every source. Read it first."},
	{"index.md", "Catalogue of every page, one line each with its summary."},
	{"schema.md", "The rules agents follow in this wiki (owned by its person; no tool writes it)."},
	{"guidelines.md", "Learned rules: Eval Insights (regenerated) and My Rules (the person's)."},
}

// PageURI returns the resource URI of the page at rel ("pages/<slug>.md").
func PageURI(rel string) string {
	slug := strings.TrimSuffix(strings.TrimPrefix(rel, "pages/"), path.Ext(rel))
	return "wiki://pages/" + url.PathEscape(slug)
}

// resources serves the wiki as MCP resources and tells clients when they
// change: resources/list_changed when pages come or go (mcp-go sends it when
// the registry changes), resources/updated to sessions subscribed to a file
// that a write changed. It is a [store.Derived], so the writer calls Apply
// after every committed write.
type resources struct {
	d   Deps
	srv *server.MCPServer

	mu       sync.Mutex
	listed   map[string]pageMeta        // page path -> what resources/list shows
	subs     map[string]map[string]bool // session id -> subscribed URIs
	lastSync time.Time
	// sums holds the sha256 of the content last notified for a file ("-"
	// once deleted), so that the file watcher's report of a write already
	// applied through Apply is not notified again (unless the report is
	// taken before the writer's Apply ran: then twice).
	sums map[string]string

	follow   sync.Once
	stop     chan struct{}
	stopOnce sync.Once
}

type pageMeta struct{ title, summary string }

// registerResources adds the static resources and the page template to s,
// every page at the first resources/list, and keeps them in step with the
// store.
func registerResources(s *server.MCPServer, d Deps, hooks *server.Hooks) error {
	r := &resources{d: d, srv: s, listed: map[string]pageMeta{}, subs: map[string]map[string]bool{},
		sums: map[string]string{}, stop: make(chan struct{})}
	static := make([]server.ServerResource, 0, len(staticResources))
	for _, f := range staticResources {
		static = append(static, server.ServerResource{
			Resource: mcp.NewResource(ResourceScheme+f.path, f.path,
				mcp.WithResourceDescription(f.desc), mcp.WithMIMEType("text/markdown")),
			Handler: r.readStatic(f.path),
		})
	}
	s.AddResources(static...)
	s.AddResourceTemplate(
		mcp.NewResourceTemplate(PageTemplate, "page",
			mcp.WithTemplateTitle("Wiki page"),
			mcp.WithTemplateDescription("A page of the wiki by slug: its markdown with frontmatter. Slugs are listed by resources/list and list_pages."),
			mcp.WithTemplateMIMEType("text/markdown")),
		r.readPage)
	// The page list is read at the first resources/list, not here: listing
	// every page's frontmatter would delay the server's first answer by a
	// walk of pages/ (tens of milliseconds per thousand pages).
	hooks.AddBeforeListResources(func(ctx context.Context, _ any, _ *mcp.ListResourcesRequest) {
		r.followOutsideEdits()
		if err := r.sync(ctx, false); err != nil {
			d.logger().Warn("resources: page list not refreshed", "err", err)
		}
	})
	hooks.AddAfterSubscribe(func(ctx context.Context, _ any, m *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		r.followOutsideEdits()
		r.subscribe(ctx, m.Params.URI, true)
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, m *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		r.subscribe(ctx, m.Params.URI, false)
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, sess server.ClientSession) {
		r.mu.Lock()
		delete(r.subs, sess.SessionID())
		r.mu.Unlock()
	})
	d.Store.AddDerived(r)
	return nil
}

func pageResource(p wiki.PageInfo) mcp.Resource {
	opts := []mcp.ResourceOption{mcp.WithMIMEType("text/markdown"), mcp.WithResourceTitle(p.Title)}
	if p.Summary != "" {
		opts = append(opts, mcp.WithResourceDescription(p.Summary))
	} else {
		opts = append(opts, mcp.WithResourceDescription("Wiki page "+p.Title))
	}
	return mcp.NewResource(PageURI(p.Path), p.Path, opts...)
}

// sync reconciles the registered page resources with the store's catalogue
// (at most once per listSyncInterval unless force).
func (r *resources) sync(ctx context.Context, force bool) error {
	r.mu.Lock()
	if !force && time.Since(r.lastSync) < listSyncInterval {
		r.mu.Unlock()
		return nil
	}
	r.lastSync = time.Now()
	r.mu.Unlock()
	pages, err := r.d.Store.PagesContext(ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var add []server.ServerResource
	seen := make(map[string]bool, len(pages))
	for _, p := range pages {
		seen[p.Path] = true
		m := pageMeta{p.Title, p.Summary}
		if old, ok := r.listed[p.Path]; ok && old == m {
			continue
		}
		r.listed[p.Path] = m
		add = append(add, server.ServerResource{Resource: pageResource(p), Handler: r.readPageAt(p.Path)})
	}
	var del []string
	for p := range r.listed {
		if !seen[p] {
			delete(r.listed, p)
			del = append(del, PageURI(p))
		}
	}
	sort.Strings(del)
	if len(add) > 0 {
		r.srv.AddResources(add...)
	}
	if len(del) > 0 {
		r.srv.DeleteResources(del...)
	}
	return nil
}

// Name implements [store.Derived].
func (r *resources) Name() string { return "resources" }

// Close implements [store.Derived]: it stops following outside edits.
func (r *resources) Close() error {
	r.stopOnce.Do(func() { close(r.stop) })
	return nil
}

// followOutsideEdits starts, once, the goroutine that turns edits made
// outside llmwiki (Obsidian, git pull, another process), as the store's file
// watcher reports them, into the same notifications a write through llmwiki
// sends: resources/updated to the sessions subscribed to a changed file,
// resources/list_changed when pages come or go. It starts at the first
// resources/list or resources/subscribe, the calls of a client that wants
// them, so that a server's start does not wait for the watcher's walk.
// Without a watcher (see [wiki.Store.WatchChanges]) nothing is sent for
// outside edits; the page list is still refreshed at resources/list.
func (r *resources) followOutsideEdits() {
	r.follow.Do(func() {
		sub := r.d.Store.WatchChanges()
		if !sub.Live() {
			return
		}
		wake := sub.Notify()
		go func() {
			for {
				select {
				case <-r.stop:
					return
				case <-wake:
				}
				// An editor's save is often several events (truncate,
				// write; temp file, rename): take them together.
				select {
				case <-r.stop:
					return
				case <-time.After(outsideSettle):
				}
				r.outsideChanges(sub.Take())
			}
		}()
	})
}

// outsideSettle is how long the resources wait after the watcher's first
// report before taking the changes, so one save is one notification.
const outsideSettle = 50 * time.Millisecond

// outsideChanges notifies what the watcher reported: each changed page or
// static file whose content differs from what was last notified, and the
// page list again when folders came or went or events were lost.
func (r *resources) outsideChanges(ch wiki.Changes) {
	if !ch.Live {
		return
	}
	relist := ch.Full
	var changes []store.Change
	for _, p := range ch.Paths {
		if !isPageFile(p) && !isStatic(p) {
			if wiki.LayerOf(p) == wiki.LayerPages {
				relist = true // a folder of pages came or went
			}
			continue
		}
		data, err := r.d.Store.ReadFile(p)
		sum := "-"
		switch {
		case err == nil:
			sum = store.SHA256Hex(data)
		case !errors.Is(err, fs.ErrNotExist):
			continue // unreadable for now: the next event or list tells
		}
		r.mu.Lock()
		same := r.sums[p] == sum
		r.mu.Unlock()
		if same {
			continue // a write through llmwiki, already notified
		}
		if sum == "-" {
			changes = append(changes, store.Change{Path: p, Op: store.OpDelete})
		} else {
			changes = append(changes, store.Change{Path: p, Op: store.OpReplace, Data: data})
		}
	}
	if len(changes) > 0 {
		_ = r.Apply(context.Background(), changes)
	}
	if relist {
		if err := r.sync(context.Background(), true); err != nil {
			r.d.logger().Warn("resources: page list not refreshed after outside edits", "err", err)
		}
	}
}

// Apply implements [store.Derived]: it updates the page list and notifies
// subscribers of every changed file. It never fails and never blocks
// (notifications to a session whose queue is full are dropped by mcp-go).
func (r *resources) Apply(_ context.Context, changes []store.Change) error {
	var updated []string
	var add []server.ServerResource
	var del []string
	r.mu.Lock()
	for _, c := range changes {
		if isPageFile(c.Path) || isStatic(c.Path) {
			if c.Op == store.OpDelete {
				r.sums[c.Path] = "-"
			} else {
				r.sums[c.Path] = store.SHA256Hex(c.Data)
			}
		}
		switch {
		case isPageFile(c.Path):
			uri := PageURI(c.Path)
			updated = append(updated, uri)
			if c.Op == store.OpDelete {
				if _, ok := r.listed[c.Path]; ok {
					delete(r.listed, c.Path)
					del = append(del, uri)
				}
				continue
			}
			p := wiki.PageInfoFrom(c.Path, c.Data)
			m := pageMeta{p.Title, p.Summary}
			if old, ok := r.listed[c.Path]; !ok || old != m {
				r.listed[c.Path] = m
				add = append(add, server.ServerResource{Resource: pageResource(p), Handler: r.readPageAt(c.Path)})
			}
		case isStatic(c.Path):
			updated = append(updated, ResourceScheme+c.Path)
		}
	}
	notify := map[string][]string{} // session id -> updated URIs it subscribed to
	for sid, uris := range r.subs {
		for _, u := range updated {
			if uris[u] {
				notify[sid] = append(notify[sid], u)
			}
		}
	}
	r.mu.Unlock()
	if len(add) > 0 {
		r.srv.AddResources(add...)
	}
	if len(del) > 0 {
		r.srv.DeleteResources(del...)
	}
	for sid, uris := range notify {
		for _, u := range uris {
			_ = r.srv.SendNotificationToSpecificClient(sid, string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": u})
		}
	}
	return nil
}

// isPageFile reports whether rel is a page's markdown file.
func isPageFile(rel string) bool {
	return wiki.LayerOf(rel) == wiki.LayerPages && strings.EqualFold(path.Ext(rel), ".md")
}

func isStatic(rel string) bool {
	for _, f := range staticResources {
		if f.path == rel {
			return true
		}
	}
	return false
}

func (r *resources) subscribe(ctx context.Context, uri string, on bool) {
	sess := server.ClientSessionFromContext(ctx)
	if sess == nil {
		return
	}
	sid := sess.SessionID()
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		if r.subs[sid] == nil {
			r.subs[sid] = map[string]bool{}
		}
		r.subs[sid][uri] = true
		return
	}
	delete(r.subs[sid], uri)
	if len(r.subs[sid]) == 0 {
		delete(r.subs, sid)
	}
}

// readStatic serves one of the static top-level files.
func (r *resources) readStatic(rel string) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return r.serve(ctx, req.Params.URI, func() (string, error) { return rel, nil })
	}
}

// readPageAt serves the listed page at rel.
func (r *resources) readPageAt(rel string) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return r.serve(ctx, req.Params.URI, func() (string, error) { return rel, nil })
	}
}

// readPage serves wiki://pages/{slug} for any page, listed or not.
func (r *resources) readPage(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	return r.serve(ctx, req.Params.URI, func() (string, error) {
		raw := strings.TrimPrefix(req.Params.URI, "wiki://pages/")
		slug, err := url.PathUnescape(raw)
		if err != nil || slug == "" {
			return "", store.Errorf(store.CodeInvalid, "%s is not a page URI (wiki://pages/<slug>)", req.Params.URI)
		}
		return r.d.Store.ResolvePage(slug)
	})
}

// serve reads the file resolve names, with an audit line of tool
// "resources/read" like any tool call.
func (r *resources) serve(ctx context.Context, uri string, resolve func() (string, error)) ([]mcp.ResourceContents, error) {
	call := store.NewCall("resources/read", sessionID(ctx, r.d.Store), map[string]any{"uri": uri})
	fillClient(ctx, call)
	var text string
	rel, err := resolve()
	if err == nil {
		text, err = r.readText(rel)
	}
	if err == nil {
		call.AddRead(rel)
	}
	if aerr := r.d.Store.Audit(call, err); aerr != nil {
		r.d.logger().Error("audit line not written", "tool", "resources/read", "err", aerr)
	}
	if err != nil {
		if store.CodeOf(err) == store.CodeInternal {
			r.d.logger().Error("resource read failed", "uri", uri, "err", err)
		}
		return nil, fmt.Errorf("%s: %s", store.CodeOf(err), store.PublicMessage(err))
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/markdown", Text: text}}, nil
}

func (r *resources) readText(rel string) (string, error) {
	rel, err := wiki.CleanPath(rel)
	if err != nil {
		return "", err
	}
	if l := wiki.LayerOf(rel); l != wiki.LayerPages && !isStatic(rel) {
		return "", store.Errorf(store.CodeInvalid, "%s is not served as a resource; use read_page", rel)
	}
	fi, err := r.d.Store.Root().Lstat(rel)
	if err != nil {
		return "", store.Errorf(store.CodeNotFound, "%s does not exist; list_pages shows the pages", rel)
	}
	if !fi.Mode().IsRegular() {
		return "", store.Errorf(store.CodeInvalid, "%s is not a regular file", rel)
	}
	if fi.Size() > maxResourceBytes {
		return "", store.Errorf(store.CodeTooLarge, "%s is %d bytes, more than a resource serves (%d); read it in parts with read_page", rel, fi.Size(), maxResourceBytes)
	}
	data, err := r.d.Store.ReadFile(rel)
	if err != nil {
		return "", store.Errorf(store.CodeNotFound, "%s could not be read; list_pages shows the pages", rel)
	}
	dec := mdoc.Decode(data) // the text read_page shows
	if dec.Binary {
		return "", store.Errorf(store.CodeInvalid, "%s is not text; read_page describes it", rel)
	}
	return string(dec.Text), nil
}

// Serves reports whether srv serves uri as a resource: a listed resource,
// or a URI of the page template (wiki://pages/<slug>, percent-encoded or
// not). A page not yet written may be subscribed to: its update comes when
// it is.
func Serves(srv *server.MCPServer, uri string) bool {
	if _, ok := srv.ListResources()[uri]; ok {
		return true
	}
	raw, ok := strings.CutPrefix(uri, "wiki://pages/")
	if !ok {
		return false
	}
	slug, err := url.PathUnescape(raw)
	return err == nil && slug != ""
}
