package ui

import "net/http"

// browseRoutes registers Pages, History, Search, Health, Eval and Activity
// (see the package doc).
func (a *app) browseRoutes(mux *http.ServeMux) {}
