package ui

import (
	"net/http"
	"sort"

	"github.com/llmwiki/llmwiki/wiki"
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
}

func (a *app) health(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := page{Title: "Health", Nav: "health"}
	if a.cfg.Links == nil {
		p.Error = "this server runs without the link graph, which lint needs"
		a.renderStatus(w, http.StatusServiceUnavailable, "health", p)
		return
	}
	rep, err := lint.Run(ctx, a.cfg.Store, a.cfg.Links, lint.Options{})
	if err != nil {
		p.Error = store.PublicMessage(err)
		a.renderStatus(w, browseStatus(err), "health", p)
		return
	}
	d := healthData{Summary: rep.Summary, Category: r.URL.Query().Get("category")}
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
		s, err := a.cfg.Store.ValidateStructure(ctx)
		if err != nil {
			d.StructErr = store.PublicMessage(err)
		}
		sort.SliceStable(s.Problems, func(i, j int) bool { return sevRank(s.Problems[i].Severity) < sevRank(s.Problems[j].Severity) })
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
