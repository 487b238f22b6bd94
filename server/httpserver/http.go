// Package httpserver serves an MCP server over streamable HTTP (/mcp) and
// legacy SSE (/sse, /message) behind a guard that checks every request
// before mcp-go sees it (Host, Origin, bearer token, body size, the JSON-RPC
// screen stdio applies), answers a call's notifications on the POST that
// carries it, drops the answers to cancelled requests, and shuts down in two
// steps (drain the calls in flight, then close).
package httpserver

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/llmwiki/llmwiki/server/jsonrpc"
	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Config is what the HTTP transport takes beyond the MCP server. The caller
// (serve --http) has checked it: origins parse (see [ParseOrigin]), sizes
// and durations are positive.
type Config struct {
	// Addr is the address the listener is bound to (host:port); its host
	// joins the Host allow-list.
	Addr string
	// Token, when not empty, is the bearer token every request must carry.
	Token string
	// AllowHosts are extra Host header values to accept (with or without
	// a port).
	AllowHosts []string
	// AllowOrigins are browser origins to accept besides the server's own.
	AllowOrigins []string
	// MaxBodyMiB is the largest request body accepted, in MiB.
	MaxBodyMiB int
	// SessionIdle is how long an idle streamable HTTP session is kept.
	SessionIdle time.Duration
	// ShutdownTimeout bounds how long [Server.Serve] waits for the calls
	// in flight once its context ends.
	ShutdownTimeout time.Duration
	// Abandoned, when set, is called when the shutdown leaves calls
	// running (see [github.com/llmwiki/llmwiki/server/stdio.Drain]).
	Abandoned func()
	// UI, when set, is the web app served at every path but the MCP ones
	// (see [isMCPPath]), under the same Host, Origin and shutdown checks.
	// A browser cannot send a bearer header: the UI does its own login, on
	// its own token (a person's, never Token: every MCP client holds Token,
	// and an agent must not approve its own changes). Its POSTs count as
	// calls in flight.
	UI http.Handler
}

// Server serves one MCP server over streamable HTTP (/mcp) and legacy
// SSE (/sse, /message) behind the guard (see [Server.guard]).
type Server struct {
	cfg     Config
	st      *wiki.Store
	log     *slog.Logger
	srv     *server.MCPServer
	stream  *server.StreamableHTTPServer
	sse     *server.SSEServer
	handler http.Handler

	hosts    map[string]bool // accepted Host names (lowercase, no port)
	origins  map[string]bool // accepted extra origins (scheme://host[:port])
	sessions *sessionIDs
	// cancelled holds the ids clients cancelled, by session.
	cancelled *jsonrpc.CancelledIDs

	draining atomic.Bool
	inflight sync.WaitGroup // tool calls running
	running  atomic.Int64   // how many

	refusals refusalLimiter
}

// New wraps srv for HTTP; cfg must have been checked (see [Config]). A nil
// srv serves only cfg.UI (`llmwiki ui`).
// cancelled is the registry the server's [tools.Options.Cancelled] asks
// (nil: a new one, for tests that build srv without it).
func New(cfg Config, st *wiki.Store, srv *server.MCPServer, log *slog.Logger, cancelled *jsonrpc.CancelledIDs) (*Server, error) {
	if cancelled == nil {
		cancelled = jsonrpc.NewCancelledIDs()
	}
	h := &Server{cfg: cfg, st: st, srv: srv, log: log, sessions: &sessionIDs{}, cancelled: cancelled}
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, err
	}
	h.hosts = allowedHosts(host, cfg.AllowHosts)
	h.origins = map[string]bool{}
	for _, o := range cfg.AllowOrigins {
		u, _ := ParseOrigin(o)
		h.origins[u] = true
	}
	mux := http.NewServeMux()
	if cfg.UI != nil {
		mux.Handle("/", h.countPosts(cfg.UI))
	}
	if srv == nil {
		h.handler = h.guard(mux)
		return h, nil
	}
	srv.Use(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			h.inflight.Add(1)
			h.running.Add(1)
			defer func() {
				h.running.Add(-1)
				h.inflight.Done()
			}()
			return next(ctx, req)
		}
	})
	withRemote := func(ctx context.Context, r *http.Request) context.Context {
		return tools.WithRemoteAddr(ctx, r.RemoteAddr)
	}
	heartbeat := min(30*time.Second, cfg.SessionIdle/3)
	streamOpts := []server.StreamableHTTPOption{
		server.WithEndpointPath("/mcp"),
		server.WithSessionIdManager(h.sessions),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			return postStreamNotifier(withRemote(ctx, r), r)
		}),
		server.WithSessionIdleTTL(cfg.SessionIdle),
		server.WithHeartbeatInterval(heartbeat),
		server.WithDisableLocalhostProtection(true), // the guard checks Host and Origin
		server.WithStreamableHTTPLogger(log),
		// Only the session-oriented revisions: a stateless (2026-07-28)
		// request has no session, and every audit line names one.
		server.WithStreamableHTTPProtocolVersions(sessionProtocolVersions()...),
	}
	sseOpts := []server.SSEOption{
		server.WithSSEEndpoint("/sse"),
		server.WithMessageEndpoint("/message"),
		server.WithSSEContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			// Notifications of a call go straight to the session's event
			// queue, which also carries the call's response: in order.
			id := r.URL.Query().Get("sessionId")
			ctx = tools.WithNotifier(ctx, func(_ context.Context, n mcp.JSONRPCNotification) error {
				return h.sse.SendEventToSession(id, n)
			})
			return withRemote(ctx, r)
		}),
		server.WithKeepAliveInterval(heartbeat),
		server.WithSSEDisableLocalhostProtection(true),
	}
	if len(cfg.AllowOrigins) > 0 {
		streamOpts = append(streamOpts, server.WithStreamableHTTPCORS(server.WithCORSAllowedOrigins(cfg.AllowOrigins...)))
		sseOpts = append(sseOpts, server.WithSSECORS(server.WithCORSAllowedOrigins(cfg.AllowOrigins...)))
	}
	h.stream = server.NewStreamableHTTPServer(srv, streamOpts...)
	h.sse = server.NewSSEServer(srv, sseOpts...)
	mux.Handle("/mcp", withPostStreams(h.stream))
	mux.Handle("/sse", h.sse)
	mux.Handle("/message", h.sse)
	h.handler = h.guard(mux)
	return h, nil
}

// countPosts counts the POSTs of next as calls in flight, so a shutdown
// lets a person's decision finish its write.
func (h *Server) countPosts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			h.inflight.Add(1)
			h.running.Add(1)
			defer func() {
				h.running.Add(-1)
				h.inflight.Done()
			}()
		}
		next.ServeHTTP(w, r)
	})
}

// sessionProtocolVersions are the MCP revisions with protocol-level
// sessions (up to 2025-11-25), newest first.
func sessionProtocolVersions() []string {
	var out []string
	for _, v := range mcp.ValidProtocolVersions {
		if !mcp.IsModernProtocol(v) {
			out = append(out, v)
		}
	}
	return out
}

// allowedHosts is the Host allow-list: the loopback names, the bound host,
// every address of this machine when bound to all interfaces, and extra.
func allowedHosts(bind string, extra []string) map[string]bool {
	hosts := map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}
	add := func(h string) {
		h = strings.ToLower(strings.Trim(strings.TrimSpace(h), "[]"))
		if h != "" {
			hosts[h] = true
		}
	}
	add(bind)
	if ip, err := netip.ParseAddr(strings.Trim(bind, "[]")); err == nil && ip.IsUnspecified() {
		delete(hosts, strings.ToLower(ip.String()))
		if name, err := os.Hostname(); err == nil {
			add(name)
		}
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if p, err := netip.ParsePrefix(a.String()); err == nil {
					add(p.Addr().String())
				}
			}
		}
	}
	for _, h := range extra {
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		add(h)
	}
	return hosts
}

// Handler is the guarded handler of /mcp, /sse and /message, for a caller
// that runs its own listener (tests use httptest). Only [Server.Serve]
// drains and shuts down.
func (h *Server) Handler() http.Handler { return h.handler }

// Serve serves on ln until ctx ends, then shuts down gracefully in two
// steps. Draining: the listener stays open and every new request, on a new
// connection or an open one, gets 503 with Retry-After and Connection:
// close (the guard), while tool calls in flight run to the end (their writes
// are committed and answered) for up to cfg.ShutdownTimeout. Closing: the
// listener and idle connections close, responses still queued for SSE
// streams are let out, the streams end, and Serve returns.
func (h *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           h.handler,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.Background() },
		ErrorLog:          slog.NewLogLogger(h.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	h.log.Info("shutting down: finishing calls in flight", "calls", h.running.Load(), "timeout", h.cfg.ShutdownTimeout)
	h.draining.Store(true)
	deadline, cancel := context.WithTimeout(context.Background(), h.cfg.ShutdownTimeout)
	defer cancel()
	// Drain before Shutdown: once Shutdown starts, net/http drops requests
	// read on open connections without an answer, and a client deserves
	// the 503 that tells it to come back.
	var abandonOnce sync.Once
	abandon := func(what string) {
		abandonOnce.Do(func() {
			h.log.Error("shutdown timeout: "+what+" still running are abandoned (their writes commit whole or not at all)", "calls", h.running.Load())
			if h.cfg.Abandoned != nil {
				h.cfg.Abandoned()
			}
		})
	}
	done := make(chan struct{})
	go func() { h.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-deadline.Done():
		abandon("calls")
	}
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(deadline) }() // closes the listener at once
	// Let responses queued for SSE streams reach their clients, then end
	// the long-lived streams so Shutdown can finish.
	time.Sleep(200 * time.Millisecond)
	if h.stream != nil {
		_ = h.stream.Shutdown(deadline)
		h.sse.CloseSessions()
	}
	var err error
	select {
	case err = <-shut:
	case <-deadline.Done():
		err = deadline.Err()
	}
	if err != nil {
		// A connection still active at the deadline is a handler that has
		// not returned, whether or not it was counted as a tool call: the
		// process must still end within its bound.
		if errors.Is(err, context.DeadlineExceeded) {
			abandon("requests")
		}
		hs.Close()
		if !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
	h.log.Info("stopped")
	return nil
}

// sessionIDs is the streamable HTTP session registry: ids are random
// ("mcp-session-" + UUIDv4), a request naming an id this server did not hand
// out (or has since forgotten) gets 404, and a terminated or swept session
// leaves nothing behind.
type sessionIDs struct {
	live   sync.Map // id -> struct{}
	n      atomic.Int64
	opened atomic.Int64 // ever handed out
}

const sessionPrefix = "mcp-session-"

func (s *sessionIDs) Generate() string {
	id := sessionPrefix + uuid.NewString()
	s.live.Store(id, struct{}{})
	s.n.Add(1)
	s.opened.Add(1)
	return id
}

func (s *sessionIDs) Validate(id string) (bool, error) {
	if _, ok := s.live.Load(id); !ok {
		return false, errors.New("unknown session")
	}
	return false, nil
}

func (s *sessionIDs) Terminate(id string) (bool, error) {
	if _, ok := s.live.LoadAndDelete(id); ok {
		s.n.Add(-1)
	}
	return false, nil
}

// known reports a live session id.
func (s *sessionIDs) known(id string) bool {
	_, ok := s.live.Load(id)
	return ok
}

// count returns the number of live streamable HTTP sessions.
func (s *sessionIDs) count() int64 { return s.n.Load() }
