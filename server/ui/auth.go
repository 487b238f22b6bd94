package ui

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net/http"
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
		a.render(w, "login", page{Title: "Log in", Data: a.cfg.Token != ""})
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

// postLogin compares the form's token with the configured one in constant
// time and, when it matches, sets the session cookie.
func (a *app) postLogin(w http.ResponseWriter, r *http.Request) {
	if a.cfg.Token == "" {
		http.Redirect(w, r, "/review", http.StatusSeeOther)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	got := sha256.Sum256([]byte(r.PostFormValue("token")))
	want := sha256.Sum256([]byte(a.cfg.Token))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		a.log.Warn("ui: wrong token on /login", "remote", r.RemoteAddr)
		a.renderStatus(w, http.StatusForbidden, "login", page{Title: "Log in", Error: "wrong token", Data: true})
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
