package httpserver

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/server/jsonrpc"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/mark3labs/mcp-go/server"
)

// queryTokenNames are query parameters that look like credentials. Tokens in
// URLs end up in proxy and server logs and browser history, so a request
// carrying one is refused even when the token is right.
var queryTokenNames = map[string]bool{
	"token": true, "access_token": true, "accesstoken": true, "auth": true,
	"authorization": true, "bearer": true, "api_key": true, "apikey": true,
	"key": true, "password": true, "secret": true, "llmwiki_token": true,
}

// guard checks every request before mcp-go sees it, in this order:
//  1. while shutting down, 503;
//  2. no credential in the query string (400);
//  3. the Host header is on the allow-list (403; DNS rebinding);
//  4. an Origin header, when present, is the server's own origin or one of
//     --allow-origin (403; cross-site requests from browsers);
//  5. with a token configured, "Authorization: Bearer <token>", compared in
//     constant time (401 with WWW-Authenticate); on the web app's paths
//     (every path but [isMCPPath]'s) the app's own cookie login replaces
//     it, and checks 6–8 do not apply (its bodies are forms, bounded to
//     --max-body-mb);
//  6. GET and DELETE on /mcp name a session this server handed out (400
//     without one, 404 for an unknown one);
//  7. a POST body is at most --max-body-mb (413), whether it declares its
//     length or comes chunked;
//  8. a POST body passes the screen stdio applies to each line (see
//     [jsonrpc.ScreenEncoding]): one that is not valid UTF-8 gets HTTP 400 with a
//     JSON-RPC parse error (-32700, id null) and an audit line naming the
//     tool it called, and never reaches a tool.
//
// It also records the ids a notifications/cancelled names, and drops the
// answers to them from a POST's response and from legacy SSE streams (see
// [jsonrpc.CancelledIDs]).
//
// Refusals 2–5 and 7 are audited as tool "http:refused" with code "refused"
// (rate-limited, see refusalLimiter). Nothing here writes the wiki.
func (h *Server) guard(next http.Handler) http.Handler {
	tokenSum := sha256.Sum256([]byte(h.cfg.Token))
	maxBody := int64(h.cfg.MaxBodyMiB) << 20
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.draining.Load() {
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "5")
			http.Error(w, "llmwiki is shutting down", http.StatusServiceUnavailable)
			return
		}
		if name := credentialInQuery(r.URL, h.cfg.Token); name != "" {
			h.refuse(w, r, http.StatusBadRequest, "credential in the URL query ("+name+")",
				"tokens in URLs leak into logs; send it as an Authorization: Bearer header")
			return
		}
		host := hostOnly(r.Host)
		if !h.hosts[host] {
			h.refuse(w, r, http.StatusForbidden, "Host not allowed", "Host "+quoteShort(r.Host)+" is not one this server answers to (DNS rebinding protection); see --allow-host")
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin, r.Host) {
			h.refuse(w, r, http.StatusForbidden, "Origin not allowed", "Origin "+quoteShort(origin)+" may not call this server; see --allow-origin")
			return
		}
		if h.cfg.UI != nil && !isMCPPath(r.URL.Path) {
			if r.Body != nil {
				r.Body = http.MaxBytesReader(w, r.Body, maxBody)
			}
			next.ServeHTTP(w, r)
			return
		}
		if h.cfg.Token != "" {
			got, ok := bearer(r.Header.Get("Authorization"))
			sum := sha256.Sum256([]byte(got))
			if !ok || subtle.ConstantTimeCompare(sum[:], tokenSum[:]) != 1 {
				reason := "no bearer token"
				if ok {
					reason = "wrong bearer token"
					w.Header().Set("WWW-Authenticate", `Bearer realm="llmwiki", error="invalid_token"`)
				} else {
					w.Header().Set("WWW-Authenticate", `Bearer realm="llmwiki"`)
				}
				h.refuse(w, r, http.StatusUnauthorized, reason, "send Authorization: Bearer <token>")
				return
			}
		}
		if r.URL.Path == "/mcp" && (r.Method == http.MethodGet || r.Method == http.MethodDelete) {
			id := r.Header.Get(server.HeaderKeySessionID)
			if id == "" {
				http.Error(w, "Bad Request: the Mcp-Session-Id header is required; initialize first", http.StatusBadRequest)
				return
			}
			if _, err := h.sessions.Validate(id); err != nil {
				http.Error(w, "Not Found: unknown or expired session; initialize again", http.StatusNotFound)
				return
			}
		}
		if r.Method == http.MethodPost && r.Body != nil {
			body, ok := h.readBody(w, r, maxBody)
			if !ok {
				return
			}
			if code, msg := jsonrpc.ScreenEncoding(body); code != 0 {
				h.rejectMessage(w, r, body, code, msg)
				return
			}
			if code, msg := jsonrpc.ScreenParams(h.srv, body); code != 0 && jsonrpc.RequestID(body) != nil {
				h.answerError(w, r, body, code, msg)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			if k := jsonrpc.CancelledRequestID(body); k != "" {
				if sid := postSession(r); r.URL.Path != "/mcp" || h.sessions.known(sid) {
					h.cancelled.Add(sid, k)
				}
			} else if k := jsonrpc.IDKey(jsonrpc.RequestID(body)); k != "" && r.URL.Path == "/mcp" {
				w = &cancelFilterWriter{ResponseWriter: w, cancelled: h.cancelled, session: postSession(r), requestID: k}
			}
		}
		if r.Method == http.MethodGet && r.URL.Path == "/sse" {
			w = &cancelFilterWriter{ResponseWriter: w, cancelled: h.cancelled}
		}
		next.ServeHTTP(w, r)
	})
}

// isMCPPath reports whether path is one of the MCP transports' (/mcp,
// /sse, /message); every other path is the web app's.
func isMCPPath(path string) bool {
	return path == "/mcp" || path == "/sse" || path == "/message"
}

// postSession is the session a POST belongs to: the Mcp-Session-Id header
// on /mcp, the sessionId parameter on legacy SSE's /message.
func postSession(r *http.Request) string {
	if r.URL.Path == "/message" {
		return r.URL.Query().Get("sessionId")
	}
	return r.Header.Get(server.HeaderKeySessionID)
}

// readBody reads a POST body of at most maxBody bytes. A body over the
// limit, declared (Content-Length) or found while reading (chunked), is
// refused with 413 and audited; a body the client stopped sending gets 400.
// ok is false when the request has been answered.
func (h *Server) readBody(w http.ResponseWriter, r *http.Request, maxBody int64) (body []byte, ok bool) {
	if r.ContentLength > maxBody {
		h.refuse(w, r, http.StatusRequestEntityTooLarge, "body too large",
			fmt.Sprintf("the request body is %d bytes; the limit is %d MiB (--max-body-mb)", r.ContentLength, h.cfg.MaxBodyMiB))
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		h.refuse(w, r, http.StatusRequestEntityTooLarge, "body too large",
			fmt.Sprintf("the request body is over the %d MiB limit (--max-body-mb)", h.cfg.MaxBodyMiB))
		return nil, false
	case err != nil:
		http.Error(w, "Bad Request: the request body could not be read", http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

// rejectMessage answers a POST body the shared screen refused (see
// [jsonrpc.ScreenEncoding]) with HTTP 400 and a JSON-RPC error whose id is null (the
// message cannot be trusted to carry one), and audits it as stdio does: the
// tool a tools/call names (else "protocol"), the method and size, and who
// sent it. Nothing reaches mcp-go, so nothing is written.
func (h *Server) rejectMessage(w http.ResponseWriter, r *http.Request, body []byte, code int, msg string) {
	jsonrpc.AuditRejected(h.st, body, msg, func(c *store.Call) {
		c.Remote = r.RemoteAddr
		claimed := r.Header.Get(server.HeaderKeySessionID)
		if claimed != "" && r.URL.Path == "/mcp" {
			if _, err := h.sessions.Validate(claimed); err == nil {
				c.Session = claimed
				return
			}
		}
		if claimed == "" {
			claimed = r.URL.Query().Get("sessionId") // legacy SSE, unverified
		}
		if claimed != "" {
			if args, ok := c.Args.(map[string]any); ok {
				args["claimed_session"] = jsonrpc.Truncate(claimed)
			}
		}
	})
	h.log.Warn("refused a JSON-RPC message", "remote", r.RemoteAddr, "path", r.URL.Path, "reason", msg)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(append(jsonrpc.RPCError(nil, code, msg), '\n'))
}

// answerError answers a well-formed request the params screen refused (see
// [jsonrpc.ScreenParams]) with its JSON-RPC error, where the transport carries
// responses: the POST's body on /mcp, the session's event stream (and 202)
// on legacy SSE's /message. It is audited like any refused message.
func (h *Server) answerError(w http.ResponseWriter, r *http.Request, body []byte, code int, msg string) {
	jsonrpc.AuditRejected(h.st, body, msg, func(c *store.Call) {
		c.Remote = r.RemoteAddr
		c.Session = postSession(r)
	})
	resp := jsonrpc.RPCError(jsonrpc.RequestID(body), code, msg)
	if r.URL.Path == "/message" {
		if err := h.sse.SendEventToSession(r.URL.Query().Get("sessionId"), json.RawMessage(resp)); err != nil {
			http.Error(w, "Not Found: unknown session", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(append(resp, '\n'))
}

// refuse answers a refused request and audits it.
func (h *Server) refuse(w http.ResponseWriter, r *http.Request, status int, reason, advice string) {
	h.audit(r, reason, advice)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintf(w, "%s %s: %s\n", http.StatusText(status), reason, advice)
}

// audit writes the audit line of a refused request: tool "http:refused",
// the remote address, the session it claimed (unverified), never the token.
func (h *Server) audit(r *http.Request, reason, advice string) {
	suppressed, ok := h.refusals.allow(time.Now())
	if !ok {
		return
	}
	args := map[string]any{"method": r.Method, "path": r.URL.Path, "reason": reason}
	if s := r.Header.Get(server.HeaderKeySessionID); s != "" {
		args["claimed_session"] = jsonrpc.Truncate(s)
	} else if s := r.URL.Query().Get("sessionId"); s != "" {
		args["claimed_session"] = jsonrpc.Truncate(s)
	}
	if o := r.Header.Get("Origin"); o != "" {
		args["origin"] = jsonrpc.Truncate(o)
	}
	args["host"] = jsonrpc.Truncate(r.Host)
	if ua := r.Header.Get("User-Agent"); ua != "" {
		args["user_agent"] = jsonrpc.Truncate(ua)
	}
	call := store.NewCall("http:refused", h.st.SessionID(), args)
	call.Remote = r.RemoteAddr
	if suppressed > 0 {
		call.SetExtra("refusals_not_audited_before", suppressed)
	}
	if err := h.st.Audit(call, store.Errorf(store.CodeRefused, "%s: %s", reason, advice)); err != nil {
		h.log.Error("audit line not written", "tool", "http:refused", "err", err)
	}
	h.log.Warn("refused HTTP request", "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path, "reason", reason)
}

// refusalLimiter bounds the audit lines of refused requests to
// refusalBurst per second, so a flood of bad requests cannot fill the disk;
// the next audited line counts the ones left out.
type refusalLimiter struct {
	mu         sync.Mutex
	window     time.Time
	n          int
	suppressed int
}

const refusalBurst = 50

func (l *refusalLimiter) allow(now time.Time) (suppressed int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.window) >= time.Second {
		l.window, l.n = now, 0
	}
	if l.n >= refusalBurst {
		l.suppressed++
		return 0, false
	}
	l.n++
	s := l.suppressed
	l.suppressed = 0
	return s, true
}

// credentialInQuery returns the name of a query parameter that carries a
// credential (by name, or because its value is the token), or "".
func credentialInQuery(u *url.URL, token string) string {
	if u.RawQuery == "" {
		return ""
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		if token != "" && strings.Contains(u.RawQuery, token) {
			return "the token"
		}
		return ""
	}
	for k, vs := range q {
		if queryTokenNames[strings.ToLower(k)] {
			return k
		}
		for _, v := range vs {
			if token != "" && strings.Contains(v, token) {
				return k
			}
		}
	}
	return ""
}

// bearer extracts the token of an "Authorization: Bearer <token>" header.
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// hostOnly returns the lowercase host of a Host header, without port or
// IPv6 brackets.
func hostOnly(hostport string) string {
	h := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		h = hh
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}

// originAllowed reports whether a browser Origin may call: its own origin
// (same host and port as the Host header) or an --allow-origin entry.
func (h *Server) originAllowed(origin, host string) bool {
	o, err := ParseOrigin(origin)
	if err != nil {
		return false
	}
	if h.origins[o] {
		return true
	}
	u, _ := url.Parse(o)
	return strings.EqualFold(u.Host, host) || strings.EqualFold(hostOnly(u.Host), hostOnly(host)) && portOf(u) == portOfHost(host, u.Scheme)
}

// ParseOrigin normalises an origin ("https://Example.com:443" ->
// "https://example.com").
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("not an origin like https://app.example or http://localhost:3000")
	}
	host := strings.ToLower(u.Host)
	if p := u.Port(); (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		host = strings.ToLower(u.Hostname())
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
	}
	return u.Scheme + "://" + host, nil
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func portOfHost(hostport, scheme string) string {
	if _, p, err := net.SplitHostPort(hostport); err == nil {
		return p
	}
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// quoteShort quotes s for a log or audit line, cut to 200 bytes.
func quoteShort(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return fmt.Sprintf("%q", s)
}
