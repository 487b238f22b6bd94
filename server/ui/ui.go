// Package ui is the web page a person reviews the wiki with: a small
// server-rendered app (html/template, its CSS and any script embedded,
// nothing fetched from the internet), served by `llmwiki ui` on loopback
// and at / by `serve --http` under the same Host/Origin/token guard.
//
// Routes (every state change is a POST, refused cross-origin by
// [http.CrossOriginProtection]):
//
//	GET  /                          redirect to /review
//	GET  /review                    pending change sets (diff and a checkbox per action, takeaways, client, session) and unreviewed writes
//	POST /review/sets/{ref}/approve form: action=N (repeated; the ticked ones)
//	POST /review/sets/{ref}/decline
//	POST /review/writes/{id}/accept
//	POST /review/writes/{id}/revert
//	POST /review/writes/accept-all
//	GET  /pages                     the page list
//	GET  /pages/{path...}           one page rendered (sanitized), its backlinks and snapshot history
//	GET  /history/{path...}         a page's versions with diffs between them; POST restores one
//	GET  /search?q=                 search_wiki's engine
//	GET  /health                    lint findings by category with their quotes, validate_structure
//	GET  /eval                      hit rate and wasted reads over time (server-rendered SVG)
//	GET  /activity                  the audit log, filtered by client, session, tool, outcome
//	GET  /login, POST /login        with a token configured: a form that sets an HttpOnly SameSite cookie
//
// Agent-written markdown is untrusted HTML: it is rendered by goldmark and
// sanitized by bluemonday before it reaches the page.
package ui

import (
	"errors"
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

// New returns the web app's handler.
func New(cfg Config) (http.Handler, error) {
	return nil, errors.New("ui: not implemented yet")
}
