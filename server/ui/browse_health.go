package ui

import (
	"context"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// healthPerCategory is how many findings of each category the overview
// shows; healthLimit how many one category's own page shows at once.
const (
	healthPerCategory = 10
	healthLimit       = 100
)

// findingView is one lint finding with the address of its page.
type findingView struct {
	lint.Finding
	URL      string
	Evidence []evidenceView
}

// evidenceView is one quote of a submitted finding.
type evidenceView struct {
	lint.Evidence
	URL string
}

// categoryView is one lint category with its findings shown.
type categoryView struct {
	Kind     string
	Count    int
	Severity string // of its first finding: findings are sorted by severity
	Findings []findingView
	More     int    // findings of the category not shown
	Link     string // its own paged list
	Pager    listPager
}

// healthData is what health.html shows.
type healthData struct {
	Summary    lint.Summary
	Categories []categoryView
	Category   string // one category's page, else ""
	Structure  wiki.Structure
	StructErr  string
	Computed   time.Time // when the report shown was computed
}

// lintCache keeps the last lint report of the health page: a full lint
// reads every page, and the report holds as long as nothing lint reads has
// changed, which is the link graph's view (a new one after every change to
// the wiki's files) and the findings kept under [lint.StateDir].
type lintCache struct {
	mu   sync.Mutex
	key  lintKey
	rep  *lint.Report
	when time.Time
	// The structure check reads every page too, and what it reads is
	// keyed the same way; it is computed on the overview's first view.
	structure *structureResult
}

// structureResult is a kept [wiki.Store.ValidateStructure] answer, its
// problems sorted by severity (read-only once kept).
type structureResult struct {
	s wiki.Structure
}

// lintKey is what a cached report was computed from.
type lintKey struct {
	view  *links.View
	state string // sizes and modification times of the files under lint.StateDir
}

// lintReport returns the lint report of the wiki as it is: the cached one
// when nothing it reads changed since (and fresh is false), else a new run.
func (a *app) lintReport(ctx context.Context, fresh bool) (*lint.Report, time.Time, error) {
	view, err := a.cfg.Links.View(ctx)
	if err != nil {
		return nil, time.Time{}, err
	}
	key := lintKey{view: view, state: a.lintState()}
	c := &a.lint
	c.mu.Lock()
	defer c.mu.Unlock()
	if !fresh && c.rep != nil && c.key == key {
		return c.rep, c.when, nil
	}
	when := time.Now()
	rep, err := lint.Run(ctx, a.cfg.Store, a.cfg.Links, lint.Options{})
	if err != nil {
		return nil, time.Time{}, err
	}
	// Keyed on the view from before the run: an edit lint's own walk of
	// the disk finds makes a new view, so the next visit runs lint again
	// rather than keeping a report that may predate the edit.
	c.key, c.rep, c.when, c.structure = key, rep, when, nil
	return rep, when, nil
}

// structureOf returns the structure check of the wiki the kept lint report
// was computed from, running it once per report.
func (a *app) structureOf(ctx context.Context) (wiki.Structure, error) {
	c := &a.lint
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.structure == nil || c.rep == nil {
		s, err := a.cfg.Store.ValidateStructure(ctx)
		sort.SliceStable(s.Problems, func(i, j int) bool { return sevRank(s.Problems[i].Severity) < sevRank(s.Problems[j].Severity) })
		if err != nil || c.rep == nil {
			return s, err
		}
		c.structure = &structureResult{s: s}
	}
	return c.structure.s, nil
}

// lintState fingerprints the state lint reads that the link graph does not
// follow: the files under lint.StateDir (submitted and dismissed findings)
// and the sync conflicts with those kept.
func (a *app) lintState() string {
	var b []byte
	root := a.cfg.Store.Root()
	names := []string{wiki.SyncConflictsFile, wiki.SyncConflictsKeptFile}
	if entries, err := fs.ReadDir(root.FS(), lint.StateDir); err == nil {
		for _, e := range entries {
			names = append(names, path.Join(lint.StateDir, e.Name()))
		}
	}
	for _, name := range names {
		fi, err := root.Stat(name)
		if err != nil {
			continue
		}
		b = append(b, name...)
		b = append(b, fi.ModTime().String()...)
		b = append(b, byte(fi.Size()), byte(fi.Size()>>8), byte(fi.Size()>>16), byte(fi.Size()>>24), 0)
	}
	return string(b)
}

// lintNow runs lint again whatever the cache holds ("run lint now").
func (a *app) lintNow(w http.ResponseWriter, r *http.Request) {
	if a.cfg.Links != nil {
		if _, _, err := a.lintReport(r.Context(), true); err != nil {
			a.log.Warn("ui: lint", "err", err)
		}
	}
	http.Redirect(w, r, "/health", http.StatusSeeOther)
}

func (a *app) health(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := page{Title: "Health", Nav: "health"}
	if a.cfg.Links == nil {
		p.Error = "this server runs without the link graph, which lint needs"
		a.renderStatus(w, http.StatusServiceUnavailable, "health", p)
		return
	}
	rep, when, err := a.lintReport(ctx, false)
	if err != nil {
		p.Error = store.PublicMessage(err)
		a.renderStatus(w, browseStatus(err), "health", p)
		return
	}
	d := healthData{Summary: rep.Summary, Category: r.URL.Query().Get("category"), Computed: when}
	byKind := map[string][]lint.Finding{}
	var order []string
	for _, f := range rep.Findings {
		if _, ok := byKind[f.Kind]; !ok {
			order = append(order, f.Kind)
		}
		byKind[f.Kind] = append(byKind[f.Kind], f)
	}
	if d.Category != "" {
		fs := byKind[d.Category]
		off := min(offsetParam(r), len(fs))
		end := min(off+healthLimit, len(fs))
		c := categoryView{Kind: d.Category, Count: len(fs), Findings: findingViews(fs[off:end])}
		c.Pager = pageOf(r, len(fs), off, end-off, healthLimit)
		d.Categories = []categoryView{c}
		p.Title = "Health: " + d.Category
	} else {
		for _, k := range order {
			fs := byKind[k]
			n := min(len(fs), healthPerCategory)
			d.Categories = append(d.Categories, categoryView{Kind: k, Count: len(fs), Severity: fs[0].Severity,
				Findings: findingViews(fs[:n]), More: len(fs) - n, Link: "/health?category=" + k})
		}
		s, err := a.structureOf(ctx)
		if err != nil {
			d.StructErr = store.PublicMessage(err)
		}
		d.Structure = s
	}
	p.Data = d
	a.render(w, "health", p)
}

func findingViews(fs []lint.Finding) []findingView {
	out := make([]findingView, 0, len(fs))
	for _, f := range fs {
		v := findingView{Finding: f, URL: fileURL(f.Path, "")}
		for _, e := range f.Evidence {
			v.Evidence = append(v.Evidence, evidenceView{Evidence: e, URL: fileURL(e.Path, "")})
		}
		out = append(out, v)
	}
	return out
}

// sevRank orders severities: error, warning, info.
func sevRank(s string) int {
	switch s {
	case "error":
		return 0
	case "warning":
		return 1
	}
	return 2
}
