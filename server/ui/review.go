package ui

import "net/http"

// reviewRoutes registers the Review page and its POSTs (see the package doc).
func (a *app) reviewRoutes(mux *http.ServeMux) {}
