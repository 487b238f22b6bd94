package ui

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki/search"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// searchLimit is how many hits the search page shows at once.
const searchLimit = 20

// hitView is one search hit as the page shows it.
type hitView struct {
	search.Hit
	URL     string // "" for a file the app does not show
	Score   string
	Snippet template.HTML
}

// searchData is what search.html shows.
type searchData struct {
	Q, Scope string
	Scopes   []string
	Off      bool // the server runs without an index
	Index    search.Status
	Searched bool
	Hits     []hitView
	Total    int
	Notes    []string
	Note     string
	Pager    listPager
}

func (a *app) search(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	d := searchData{Q: q, Scope: r.URL.Query().Get("scope"), Scopes: []string{"pages", "sources", "context", "all"}}
	p := page{Title: "Search", Nav: "search"}
	if a.cfg.Search == nil {
		d.Off = true
		p.Data = d
		a.render(w, "search", p)
		return
	}
	d.Index = a.cfg.Search.Status()
	if q == "" {
		p.Data = d
		a.render(w, "search", p)
		return
	}
	off := offsetParam(r)
	res, err := a.cfg.Search.Search(r.Context(), search.Query{Text: q, Scope: d.Scope, Limit: searchLimit, Offset: off})
	if err != nil {
		p.Error = store.PublicMessage(err)
		p.Data = d
		a.renderStatus(w, browseStatus(err), "search", p)
		return
	}
	d.Searched, d.Index, d.Total, d.Notes, d.Note = true, res.Index, res.Total, res.QueryNotes, res.Note
	for _, h := range res.Hits {
		d.Hits = append(d.Hits, hitView{Hit: h, URL: fileURL(h.Path, h.Heading), Score: strconv.FormatFloat(h.Score, 'f', 2, 64), Snippet: snippetHTML(h.Snippet)})
	}
	d.Pager = pageOf(r, res.Total, off, len(res.Hits), searchLimit)
	if res.NextOffset > 0 && d.Pager.Next == "" {
		d.Pager.Next = pageLink(r, res.NextOffset)
	}
	p.Data = d
	a.render(w, "search", p)
}

// snippetHTML escapes a search snippet and shows its **marked** matches
// as <mark>: nothing of the file's text is ever markup.
func snippetHTML(s string) template.HTML {
	parts := strings.Split(s, "**")
	var b strings.Builder
	for i, part := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<mark>" + template.HTMLEscapeString(part) + "</mark>")
			continue
		}
		if i%2 == 1 {
			b.WriteString("**") // an unmatched marker stays text
		}
		b.WriteString(template.HTMLEscapeString(part))
	}
	return template.HTML(b.String())
}

// offsetParam is the offset the request's cursor names (as search_wiki's
// and the other tools' cursors are read); a cursor not given or not one
// this app wrote starts from the top.
func offsetParam(r *http.Request) int {
	n, err := tools.CursorOffset(r.URL.Query().Get("cursor"))
	if err != nil {
		return 0
	}
	return n
}
