package ui

import (
	"fmt"
	"html/template"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// browseRoutes registers Pages, History, Search, Health, Eval and Activity
// (see the package doc), and /files for the images pages embed.
func (a *app) browseRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /pages", a.pagesList)
	mux.HandleFunc("GET /pages/{path...}", a.pageView)
	mux.HandleFunc("GET /files/{path...}", a.file)
	mux.HandleFunc("GET /history/{path...}", a.history)
	mux.HandleFunc("POST /history/{path...}", a.restore)
	mux.HandleFunc("GET /search", a.search)
	mux.HandleFunc("GET /health", a.health)
	mux.HandleFunc("POST /health", a.lintNow)
	mux.HandleFunc("GET /eval", a.evalPage)
	mux.HandleFunc("GET /activity", a.activity)
}

// listLimit is how many rows a list page shows at once.
const listLimit = 100

// listPager is the paging line under a list.
type listPager struct {
	Total, From, To int
	Prev, Next      string // links, "" when there is none
}

// pageOf builds the paging line of a list of total rows, shown from
// offset, limit at a time; its links keep the request's other parameters.
func pageOf(r *http.Request, total, offset, shown, limit int) listPager {
	p := listPager{Total: total, From: offset + 1, To: offset + shown}
	if shown == 0 {
		p.From = 0
	}
	if offset > 0 {
		p.Prev = pageLink(r, max(0, offset-limit))
	}
	if offset+shown < total {
		p.Next = pageLink(r, offset+shown)
	}
	return p
}

// pageLink is the request's address with its cursor set to off.
func pageLink(r *http.Request, off int) string {
	q := r.URL.Query()
	if off == 0 {
		q.Del("cursor")
	} else {
		q.Set("cursor", strconv.Itoa(off))
	}
	if e := q.Encode(); e != "" {
		return r.URL.Path + "?" + e
	}
	return r.URL.Path
}

// pageRow is one line of the page list.
type pageRow struct {
	Title, Path, Summary, Updated, URL string
}

func (a *app) pagesList(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	pages, err := a.cfg.Store.PagesShared(r.Context())
	if err != nil {
		a.renderStatus(w, browseStatus(err), "pages", page{Title: "Pages", Nav: "pages", Error: store.PublicMessage(err)})
		return
	}
	var match []int
	fold := strings.ToLower(q)
	for i := range pages {
		p := &pages[i]
		if q == "" || strings.Contains(strings.ToLower(p.Title), fold) || strings.Contains(strings.ToLower(p.Path), fold) || strings.Contains(strings.ToLower(p.Summary), fold) {
			match = append(match, i)
		}
	}
	off := min(offsetParam(r), len(match))
	end := min(off+listLimit, len(match))
	rows := make([]pageRow, 0, end-off)
	for _, i := range match[off:end] {
		p := pages[i]
		upd := p.Updated
		if upd == "" && !p.ModTime().IsZero() {
			upd = p.ModTime().UTC().Format("2006-01-02T15:04:05Z")
		}
		rows = append(rows, pageRow{Title: p.Title, Path: p.Path, Summary: p.Summary, Updated: upd, URL: pageURL(p.Path)})
	}
	a.render(w, "pages", page{Title: "Pages", Nav: "pages", Data: map[string]any{
		"Q": q, "Rows": rows, "Pager": pageOf(r, len(match), off, len(rows), listLimit), "All": len(pages),
	}})
}

// metaRow is one frontmatter key shown in the page's table.
type metaRow struct{ Key, Value string }

// pageData is what page.html shows.
type pageData struct {
	Path, SHA256, Note string
	Meta               []metaRow
	HTML               template.HTML
	Backlinks          []links.Backlink
	BacklinkURL        map[string]string
	Snapshots          []snapRow
	MoreSnapshots      int
	History            string
}

func (a *app) pageView(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name := r.PathValue("path")
	rel, err := a.cfg.Store.ResolvePage(name)
	if err != nil {
		a.renderStatus(w, browseStatus(err), "page", page{Title: name, Nav: "pages", Error: store.PublicMessage(err)})
		return
	}
	fc, err := a.cfg.Store.Read(ctx, wiki.ReadInput{Path: rel, MaxChars: wiki.MaxReadChars})
	if err != nil {
		a.renderStatus(w, browseStatus(err), "page", page{Title: name, Nav: "pages", Error: store.PublicMessage(err)})
		return
	}
	d := pageData{Path: rel, SHA256: fc.SHA256, Note: fc.Note, History: historyURL(rel), BacklinkURL: map[string]string{}}
	if fc.FrontmatterError != "" {
		d.Note = strings.TrimSpace(d.Note + " The frontmatter does not parse: " + fc.FrontmatterError)
	}
	if fc.Truncated {
		d.Note = strings.TrimSpace(d.Note + fmt.Sprintf(" Shown up to line %d of %d.", fc.ToLine, fc.TotalLines))
	}
	keys := make([]string, 0, len(fc.Frontmatter))
	for k := range fc.Frontmatter {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d.Meta = append(d.Meta, metaRow{Key: k, Value: metaValue(fc.Frontmatter[k])})
	}
	var view *links.View
	if a.cfg.Links != nil {
		if view, err = a.cfg.Links.View(ctx); err != nil {
			d.Note = strings.TrimSpace(d.Note + " Links are not resolved: " + store.PublicMessage(err))
			view = nil
		}
	}
	d.HTML = renderMarkdown(ctx, a.cfg.Store, view, rel, []byte(fc.Content))
	if view != nil {
		d.Backlinks = view.Backlinks(rel)
		for _, b := range d.Backlinks {
			if u := fileURL(b.Path, ""); u != "" {
				d.BacklinkURL[b.Path] = u
			}
		}
	}
	if _, snaps, err := a.cfg.Store.SnapshotsOf(rel); err == nil {
		const shown = 5
		for i, s := range snaps {
			if i == shown {
				d.MoreSnapshots = len(snaps) - shown
				break
			}
			d.Snapshots = append(d.Snapshots, snapRowOf(s))
		}
	}
	title := path.Base(strings.TrimSuffix(rel, path.Ext(rel)))
	if t, ok := fc.Frontmatter["title"].(string); ok && strings.TrimSpace(t) != "" {
		title = t
	}
	a.render(w, "page", page{Title: title, Nav: "pages", Data: d})
}

// metaValue shows one frontmatter value on one line.
func metaValue(v any) string {
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = metaValue(x)
		}
		return strings.Join(parts, ", ")
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// snapRow is one stored version of a file.
type snapRow struct {
	Name, Snapshot, Time, SHA string
	Size                      int64
}

func snapRowOf(s store.Snapshot) snapRow {
	sha := s.SHA256Prefix
	if len(sha) > 12 {
		sha = sha[:12]
	}
	return snapRow{Name: path.Base(s.Snapshot), Snapshot: s.Snapshot, Time: s.Replaced.UTC().Format("2006-01-02 15:04:05 UTC"), SHA: sha, Size: s.Size}
}

// maxFileBytes caps an image /files serves.
const maxFileBytes = 32 << 20

// file serves an image under pages/ or sources/ for the pages that embed
// it; nothing else of the wiki is served raw.
func (a *app) file(w http.ResponseWriter, r *http.Request) {
	rel := r.PathValue("path")
	if !servedImage(rel) {
		http.Error(w, "only images under pages/ or sources/ are served", http.StatusNotFound)
		return
	}
	data, err := a.cfg.Store.ReadFile(rel)
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if len(data) > maxFileBytes {
		http.Error(w, "too large to show", http.StatusRequestEntityTooLarge)
		return
	}
	w.Header().Set("Content-Type", imageTypes[strings.ToLower(path.Ext(rel))])
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; sandbox")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(data)
}

// browseStatus is the HTTP status of a coded store error.
func browseStatus(err error) int {
	switch store.CodeOf(err) {
	case store.CodeNotFound:
		return http.StatusNotFound
	case store.CodeInvalid:
		return http.StatusBadRequest
	case store.CodeConflict:
		return http.StatusConflict
	case store.CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case store.CodeUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
