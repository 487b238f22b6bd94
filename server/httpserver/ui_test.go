package httpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/server/jsonrpc"
	"github.com/llmwiki/llmwiki/server/ui"
	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestHTTPServesTheWebApp: with a UI, serve --http answers the web app at
// / behind the cookie login (same token), while /mcp still needs the
// bearer token and the Host check still applies to the app.
func TestHTTPServesTheWebApp(t *testing.T) {
	const token = "0123456789abcdef-web"
	log := teststore.Quiet()
	st, _ := teststore.New(t, nil)
	a := app.New(st, app.Options{Log: log, NoSearch: true})
	cancelled := jsonrpc.NewCancelledIDs()
	srv, _, err := tools.NewServer(a.Deps(), tools.Options{Cancelled: cancelled.Refuses})
	if err != nil {
		t.Fatal(err)
	}
	web, err := ui.New(ui.Config{Store: st, Review: a.Review, Links: a.Links, Log: log, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Addr: "127.0.0.1:0", Token: token, MaxBodyMiB: 8, SessionIdle: time.Hour, ShutdownTimeout: 10 * time.Second, UI: web}, st, srv, log, cancelled)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h.Handler())
	defer hs.Close()
	c := hs.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	get := func(path string, cookie *http.Cookie) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, hs.URL+path, nil)
		if cookie != nil {
			req.AddCookie(cookie)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}

	if resp, _ := get("/review", nil); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Fatalf("GET /review without login = %d to %q, want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, err := c.PostForm(hs.URL+"/login", url.Values{"token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == ui.CookieName {
			session = ck
		}
	}
	if resp.StatusCode != http.StatusSeeOther || session == nil {
		t.Fatalf("POST /login = %d, cookie %v; want 303 and a session cookie", resp.StatusCode, session)
	}
	if resp, _ := get("/", session); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/review" {
		t.Errorf("GET / = %d to %q, want 303 to /review", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, body := get("/review", session); resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="review-mode"`) {
		t.Errorf("GET /review with the cookie = %d, want 200 and the review page:\n%s", resp.StatusCode, body)
	}

	// /mcp: the cookie is no credential there; the bearer token is.
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.AddCookie(session)
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST /mcp with the UI cookie and no bearer = %d, want 401", resp.StatusCode)
	}
	ts := &testServer{t: t, base: hs.URL, client: c}
	if sid := ts.initialize("Authorization: Bearer " + token); sid == "" {
		t.Errorf("initialize with the bearer token gave no session")
	}

	// The Host allow-list guards the app too (DNS rebinding).
	req, _ = http.NewRequest(http.MethodGet, hs.URL+"/review", nil)
	req.Host = "evil.example"
	req.AddCookie(session)
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET /review with a foreign Host = %d, want 403", resp.StatusCode)
	}
}
