// Package ui is the web page a person reviews the wiki with: a small
// server-rendered app (html/template, its CSS and any script embedded,
// nothing fetched from the internet), served by `llmwiki ui` on loopback
// and at / by `serve --http` under the same Host/Origin/token guard.
//
// Routes (every state change is a POST, refused cross-origin by
// [http.CrossOriginProtection]):
//
//	GET  /                          redirect to /review
//	GET  /review                    open sync conflicts (both commits, the diff from your version), pending change sets (diff and a checkbox per action, takeaways, client, session) and unreviewed writes
//	POST /review/sets/{ref}/approve form: action=N (repeated; the ticked ones)
//	POST /review/sets/{ref}/decline
//	POST /review/writes/{id}/accept
//	POST /review/writes/{id}/revert
//	POST /review/writes/accept-all
//	POST /review/conflicts/{id}/keep   a sync conflict: keep the file as the sync left it
//	POST /review/conflicts/{id}/take   a sync conflict: restore your version from its snapshot
//	GET  /pages                     the page list
//	GET  /pages/{path...}           one page rendered (sanitized), its backlinks and snapshot history
//	GET  /history/{path...}         a page's versions with diffs between them; POST restores one
//	GET  /search?q=                 search_wiki's engine
//	GET  /health                    lint findings by category with their quotes, validate_structure
//	GET  /eval                      hit rate and wasted reads over time (server-rendered SVG)
//	GET  /activity                  the audit log, filtered by client, session, tool, outcome
//	GET  /login, POST /login        with a token configured: a form that sets an HttpOnly SameSite cookie
//	POST /logout                    ends the login
//
// Agent-written markdown is untrusted HTML: it is rendered by goldmark and
// sanitized by bluemonday before it reaches the page.
package ui

import (
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/search"
)

// Config is what the web app serves.
type Config struct {
	Store  *wiki.Store
	Review *review.Service
	Search *search.Index // nil: the search page says the index is off
	Links  *links.Graph
	Log    *slog.Logger
	// Token, when set, is required: a browser presents it once on /login
	// and then carries an HttpOnly, SameSite=Strict cookie.
	Token string
}

// CookieName is the session cookie /login sets when a token is configured.
const CookieName = "llmwiki_session"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// app is the web app of one wiki.
type app struct {
	cfg      Config
	tmpl     *template.Template
	log      *slog.Logger
	logins   sessions
	failures loginFailures // wrong tokens on /login, per remote host
	lint     lintCache     // the health page's last report
	audit    auditCache    // the Activity page's parsed audit files
}

// New returns the web app's handler.
func New(cfg Config) (http.Handler, error) {
	log := cfg.Log
	if log == nil {
		log = cfg.Store.Logger()
	}
	t, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, tmpl: t, log: log}
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/review", http.StatusSeeOther)
	})
	a.authRoutes(mux)
	a.reviewRoutes(mux)
	a.browseRoutes(mux)
	return a.protect(mux), nil
}

// funcs are the template functions every page may use.
var funcs = template.FuncMap{
	"when": relTime,
}

// page is what every template gets: the layout's fields and the page's own.
type page struct {
	Title string // the <title> and the heading
	Nav   string // the nav entry to highlight: review, pages, search, health, eval, activity; login shows no nav
	Flash string // a one-line message after a POST (what was done, or why not)
	Error string
	Data  any
}

// render writes the template name (a file under templates/ defining
// "name") inside the layout, with status 200.
func (a *app) render(w http.ResponseWriter, name string, p page) {
	a.renderStatus(w, http.StatusOK, name, p)
}

// renderStatus is render with a status.
func (a *app) renderStatus(w http.ResponseWriter, status int, name string, p page) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: under no-referrer a browser sends
	// "Origin: null" with the page's own form POSTs, which the server's
	// Origin check refuses; same-origin still sends nothing to other sites.
	w.Header().Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	if err := a.tmpl.ExecuteTemplate(w, name, p); err != nil {
		a.log.Error("ui: render", "template", name, "err", err)
	}
}
