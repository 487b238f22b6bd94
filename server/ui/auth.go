package ui

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// sessionTTL is how long a login lasts.
const sessionTTL = 12 * time.Hour

// flashCookie carries the one-line message of the last POST to the page
// the browser is redirected to.
const flashCookie = "llmwiki_flash"

// maxFlash bounds a flash message, so its cookie stays small.
const maxFlash = 1500

// sessions are the logins of this process, in memory: a browser's cookie
// holds a random key, never the token.
type sessions struct {
	mu sync.Mutex
	m  map[string]login
}

// login is one browser's session: its public id (for audit lines; the
// cookie's key is a credential and is never logged) and when it ends.
type login struct {
	id      string
	expires time.Time
}

// newLogin starts a session and returns the cookie's key.
func (s *sessions) newLogin() string {
	key := randomHex(32)
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]login{}
	}
	for k, l := range s.m {
		if now.After(l.expires) {
			delete(s.m, k)
		}
	}
	s.m[key] = login{id: "web-" + randomHex(6), expires: now.Add(sessionTTL)}
	return key
}

// lookup returns the live session of key.
func (s *sessions) lookup(key string) (login, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.m[key]
	if !ok || time.Now().After(l.expires) {
		return login{}, false
	}
	return l, true
}

func (s *sessions) end(key string) {
	s.mu.Lock()
	delete(s.m, key)
	s.mu.Unlock()
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// protect wraps the app: cross-origin state changes are refused (403,
// [http.CrossOriginProtection]), and with a token configured every page
// but /login and /static/ needs a live session cookie.
func (a *app) protect(next http.Handler) http.Handler {
	var h http.Handler = next
	if a.cfg.Token != "" {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/login" || strings.HasPrefix(r.URL.Path, "/static/") {
				next.ServeHTTP(w, r)
				return
			}
			if _, ok := a.loginOf(r); !ok {
				if r.Method == http.MethodGet || r.Method == http.MethodHead {
					http.Redirect(w, r, "/login", http.StatusSeeOther)
					return
				}
				http.Error(w, "Forbidden: log in first (GET /login)", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	return http.NewCrossOriginProtection().Handler(h)
}

// loginOf returns the request's live session.
func (a *app) loginOf(r *http.Request) (login, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return login{}, false
	}
	return a.logins.lookup(c.Value)
}

// sessionOf is the audit session of a person's decision: the login's
// public id, or the store's session when no token is configured.
func (a *app) sessionOf(r *http.Request) string {
	if l, ok := a.loginOf(r); ok {
		return l.id
	}
	return a.cfg.Store.SessionID()
}

func (a *app) authRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		a.render(w, "login", page{Title: "Log in", Nav: "login", Data: a.cfg.Token != ""})
	})
	mux.HandleFunc("POST /login", a.postLogin)
	mux.HandleFunc("POST /logout", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie(CookieName); err == nil {
			a.logins.end(c.Value)
		}
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/login", http.StatusSeeOther)
	})
}

// Wrong tokens on /login are limited per remote address by a token bucket:
// loginBurst wrong tries at once, then one more every loginRefill.
const (
	loginBurst  = 5
	loginRefill = 10 * time.Second
	// loginHosts bounds the addresses remembered; past it, the buckets
	// already full again are forgotten.
	loginHosts = 4096
)

// loginFailures is the token bucket of wrong logins of each remote host.
type loginFailures struct {
	mu sync.Mutex
	m  map[string]*bucket
}

// bucket is one host's bucket: tries left at the time last.
type bucket struct {
	tries float64
	last  time.Time
}

// refill brings b up to now.
func (b *bucket) refill(now time.Time) {
	b.tries = min(loginBurst, b.tries+float64(now.Sub(b.last))/float64(loginRefill))
	b.last = now
}

// wait is how long host must wait before its next try (0: it may try).
func (l *loginFailures) wait(host string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.m[host]
	if b == nil {
		return 0
	}
	b.refill(now)
	if b.tries >= 1 {
		return 0
	}
	return time.Duration((1 - b.tries) * float64(loginRefill))
}

// fail takes one try from host's bucket.
func (l *loginFailures) fail(host string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]*bucket{}
	}
	if len(l.m) >= loginHosts {
		for h, b := range l.m {
			if b.refill(now); b.tries >= loginBurst {
				delete(l.m, h)
			}
		}
	}
	b := l.m[host]
	if b == nil {
		b = &bucket{tries: loginBurst, last: now}
		l.m[host] = b
	}
	b.refill(now)
	b.tries = max(0, b.tries-1)
}

// remoteHost is the address a request came from, without its port.
func remoteHost(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

// postLogin compares the form's token with the configured one in constant
// time and, when it matches, sets the session cookie.
func (a *app) postLogin(w http.ResponseWriter, r *http.Request) {
	if a.cfg.Token == "" {
		http.Redirect(w, r, "/review", http.StatusSeeOther)
		return
	}
	host := remoteHost(r)
	if wait := a.failures.wait(host, time.Now()); wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Round(time.Second)/time.Second)+1))
		a.renderStatus(w, http.StatusTooManyRequests, "login", page{Title: "Log in", Nav: "login", Error: "too many wrong tokens from this address: wait a minute and try again", Data: true})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	got := sha256.Sum256([]byte(r.PostFormValue("token")))
	want := sha256.Sum256([]byte(a.cfg.Token))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		a.failures.fail(host, time.Now())
		a.log.Warn("ui: wrong token on /login", "remote", r.RemoteAddr)
		a.renderStatus(w, http.StatusForbidden, "login", page{Title: "Log in", Nav: "login", Error: "wrong token", Data: true})
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: a.logins.newLogin(), Path: "/",
		MaxAge: int(sessionTTL / time.Second), HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	http.Redirect(w, r, "/review", http.StatusSeeOther)
}

// setFlash keeps msg for the next page the browser shows.
func (a *app) setFlash(w http.ResponseWriter, msg string, isErr bool) {
	if len(msg) > maxFlash {
		msg = msg[:maxFlash] + "…"
	}
	kind := "ok:"
	if isErr {
		kind = "err:"
	}
	http.SetCookie(w, &http.Cookie{
		Name: flashCookie, Value: base64.RawURLEncoding.EncodeToString([]byte(kind + msg)),
		Path: "/", MaxAge: 120, HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
}

// takeFlash returns and clears the flash message of the request.
func (a *app) takeFlash(w http.ResponseWriter, r *http.Request) (msg string, isErr bool) {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return "", false
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil {
		return "", false
	}
	s := string(b)
	if m, ok := strings.CutPrefix(s, "err:"); ok {
		return m, true
	}
	m, _ := strings.CutPrefix(s, "ok:")
	return m, false
}
