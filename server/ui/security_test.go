package ui

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// newTestApp returns the web app of a fresh wiki, its folder, and the
// handler.
func newTestApp(t *testing.T, token string, files map[string]string) (http.Handler, string) {
	t.Helper()
	st, dir := teststore.New(t, files)
	h, err := New(Config{Store: st, Review: review.New(st, nil, nil), Log: teststore.Quiet(), Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return h, dir
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func formPost(target string, form url.Values) *http.Request {
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

// sessionCookie logs in with token and returns the cookie /login set.
func sessionCookie(t *testing.T, h http.Handler, token string) *http.Cookie {
	t.Helper()
	w := serve(h, formPost("/login", url.Values{"token": {token}}))
	if w.Code != http.StatusSeeOther {
		t.Fatalf("POST /login = %d %s, want 303", w.Code, w.Body)
	}
	for _, c := range w.Result().Cookies() {
		if c.Name == CookieName {
			return c
		}
	}
	t.Fatalf("POST /login set no %s cookie", CookieName)
	return nil
}

func TestCrossOriginPostRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header map[string]string
	}{
		{"sec-fetch-site cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"origin of another host", map[string]string{"Origin": "http://evil.example"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, dir := newTestApp(t, "", nil)
			before := wikitest.TreeHashes(t, dir, nil)
			for _, path := range []string{"/review/writes/accept-all", "/review/sets/1/approve", "/review/sets/1/decline", "/review/writes/a-000000000000/revert", "/review/conflicts/c-000000000000/keep", "/review/conflicts/c-000000000000/take"} {
				r := formPost(path, url.Values{"action": {"1"}})
				r.Host = "127.0.0.1:8765"
				for k, v := range tc.header {
					r.Header.Set(k, v)
				}
				if w := serve(h, r); w.Code != http.StatusForbidden {
					t.Errorf("cross-origin POST %s = %d, want 403", path, w.Code)
				}
			}
			if d := wikitest.DiffHashes(before, wikitest.TreeHashes(t, dir, nil)); len(d) > 0 {
				t.Errorf("refused POSTs wrote to the wiki: %v", d)
			}
		})
	}
}

func TestSameOriginPostAllowed(t *testing.T) {
	h, _ := newTestApp(t, "", nil)
	r := formPost("/review/writes/accept-all", nil)
	r.Host = "127.0.0.1:8765"
	r.Header.Set("Origin", "http://127.0.0.1:8765")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	if w := serve(h, r); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/review" {
		t.Errorf("same-origin POST = %d to %q, want 303 to /review", w.Code, w.Header().Get("Location"))
	}
}

func TestTokenLogin(t *testing.T) {
	const token = "s3cret-token-for-the-test"
	h, _ := newTestApp(t, token, nil)

	// Without the cookie, pages send the browser to the login form and
	// POSTs are refused.
	w := serve(h, httptest.NewRequest(http.MethodGet, "/review", nil))
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/login" {
		t.Fatalf("GET /review without a cookie = %d to %q, want 303 to /login", w.Code, w.Header().Get("Location"))
	}
	if w := serve(h, formPost("/review/writes/accept-all", nil)); w.Code != http.StatusForbidden {
		t.Errorf("POST without a cookie = %d, want 403", w.Code)
	}
	w = serve(h, httptest.NewRequest(http.MethodGet, "/login", nil))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `name="token"`) {
		t.Fatalf("GET /login = %d, want 200 with a token field:\n%s", w.Code, w.Body)
	}
	// Logged out, the nav's pages would only send back here: none shows.
	// The note names where the review token comes from.
	for _, bad := range []string{`href="/activity"`, `href="/pages"`, "<nav>"} {
		if strings.Contains(w.Body.String(), bad) {
			t.Errorf("the login page holds %s", bad)
		}
	}
	for _, want := range []string{"--review-token-file", "$LLMWIKI_REVIEW_TOKEN", "one-time code", "llmwiki ui</code> it is the one in <code>--token-file</code> or <code>$LLMWIKI_TOKEN"} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("the login page does not say %q", want)
		}
	}
	// A long diff grows with its lines instead of scrolling in a box.
	css := serve(h, httptest.NewRequest(http.MethodGet, "/static/ui.css", nil)).Body.String()
	if i, j := strings.LastIndex(css, "max-height:32em"), strings.LastIndex(css, "pre.diff{max-height:none}"); j < 0 || j < i {
		t.Errorf("ui.css does not end by letting pre.diff grow (32em at %d, none at %d)", i, j)
	}

	// A wrong token is refused and sets no cookie.
	w = serve(h, formPost("/login", url.Values{"token": {"wrong"}}))
	if w.Code != http.StatusForbidden || len(w.Result().Cookies()) != 0 {
		t.Errorf("wrong token: %d with cookies %v, want 403 and none", w.Code, w.Result().Cookies())
	}
	// The token in the URL is never accepted.
	if w := serve(h, httptest.NewRequest(http.MethodGet, "/review?token="+token, nil)); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/login" {
		t.Errorf("token in the URL: %d to %q, want 303 to /login", w.Code, w.Header().Get("Location"))
	}

	c := sessionCookie(t, h, token)
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Errorf("cookie = %+v, want HttpOnly, SameSite=Strict, Path=/", c)
	}
	if strings.Contains(c.Value, token) {
		t.Errorf("the cookie holds the token")
	}
	r := httptest.NewRequest(http.MethodGet, "/review", nil)
	r.AddCookie(c)
	if w := serve(h, r); w.Code != http.StatusOK {
		t.Errorf("GET /review with the cookie = %d, want 200", w.Code)
	}
	r = httptest.NewRequest(http.MethodGet, "/review", nil)
	r.AddCookie(&http.Cookie{Name: CookieName, Value: token})
	if w := serve(h, r); w.Code != http.StatusSeeOther {
		t.Errorf("the token itself as the cookie = %d, want 303 to /login", w.Code)
	}

	// After logout the cookie is dead.
	r = formPost("/logout", nil)
	r.AddCookie(c)
	serve(h, r)
	r = httptest.NewRequest(http.MethodGet, "/review", nil)
	r.AddCookie(c)
	if w := serve(h, r); w.Code != http.StatusSeeOther {
		t.Errorf("GET /review after logout = %d, want 303 to /login", w.Code)
	}
}

func TestSecurityHeaders(t *testing.T) {
	h, _ := newTestApp(t, "", nil)
	w := serve(h, httptest.NewRequest(http.MethodGet, "/review", nil))
	if w.Code != http.StatusOK {
		t.Fatalf("GET /review = %d:\n%s", w.Code, w.Body)
	}
	csp := w.Header().Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q, want nosniff", got)
	}
}

// TestLoginRateLimit: wrong tokens from one address are limited (429 with
// Retry-After past the burst, even for the right token); another address
// is not, and the bucket refills with time.
func TestLoginRateLimit(t *testing.T) {
	const token = "s3cret-token-for-the-test"
	h, _ := newTestApp(t, token, nil)
	from := func(addr, tok string) *httptest.ResponseRecorder {
		r := formPost("/login", url.Values{"token": {tok}})
		r.RemoteAddr = addr
		return serve(h, r)
	}
	for i := range loginBurst {
		if w := from("192.0.2.1:1000", "wrong"); w.Code != http.StatusForbidden {
			t.Fatalf("wrong try %d: %d, want 403", i+1, w.Code)
		}
	}
	w := from("192.0.2.1:2000", token)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Errorf("after %d wrong tries: %d, Retry-After %q; want 429 with Retry-After", loginBurst, w.Code, w.Header().Get("Retry-After"))
	}
	if w := from("192.0.2.2:1000", token); w.Code != http.StatusSeeOther {
		t.Errorf("another address: %d, want the login (303)", w.Code)
	}

	var l loginFailures
	now := time.Now()
	for range loginBurst {
		l.fail("h", now)
	}
	if d := l.wait("h", now); d <= 0 || d > loginRefill {
		t.Errorf("wait after the burst = %v, want in (0, %v]", d, loginRefill)
	}
	if d := l.wait("h", now.Add(loginRefill)); d != 0 {
		t.Errorf("wait one refill later = %v, want 0", d)
	}
}
