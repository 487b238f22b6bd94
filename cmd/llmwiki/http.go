package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
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

// Defaults of serve --http.
const (
	defaultHTTPPort        = "8765"
	defaultMaxBodyMiB      = 8
	defaultSessionIdle     = time.Hour
	defaultShutdownTimeout = 30 * time.Second
	minTokenLen            = 16
)

// httpConfig is what serve --http takes beyond the MCP server.
type httpConfig struct {
	addr            string
	tokenFile       string
	token           string // resolved from tokenFile or $LLMWIKI_TOKEN
	allowHosts      listFlag
	allowOrigins    listFlag
	maxBodyMiB      int
	sessionIdle     time.Duration
	shutdownTimeout time.Duration
}

// listFlag is a flag that may be repeated or given comma-separated values.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// addHTTPFlags registers serve's HTTP flags on fs.
func addHTTPFlags(fs *flag.FlagSet) *httpConfig {
	c := &httpConfig{}
	fs.StringVar(&c.addr, "http", "", "serve streamable HTTP at /mcp and legacy SSE at /sse on ADDR instead of stdio; a bare port (\":"+defaultHTTPPort+"\") binds 127.0.0.1, a non-loopback address needs a token")
	fs.StringVar(&c.tokenFile, "token-file", "", "file holding the bearer token every HTTP request must carry (else $LLMWIKI_TOKEN); required for a non-loopback bind")
	fs.Var(&c.allowHosts, "allow-host", "extra Host header value to accept (a name the server is reached by, e.g. behind a proxy); repeatable")
	fs.Var(&c.allowOrigins, "allow-origin", "browser Origin to accept besides the server's own (e.g. https://app.example); repeatable")
	fs.IntVar(&c.maxBodyMiB, "max-body-mb", defaultMaxBodyMiB, "largest HTTP request body accepted, in MiB")
	fs.DurationVar(&c.sessionIdle, "session-idle", defaultSessionIdle, "forget an HTTP session idle this long (its client must initialize again)")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", defaultShutdownTimeout, "when stdin ends (stdio) or at SIGINT/SIGTERM, how long to wait for calls in flight before exiting without them (a second signal exits at once)")
	return c
}

// resolve checks the configuration and reads the token. getenv is the
// environment lookup.
func (c *httpConfig) resolve(getenv func(string) string) error {
	host, port, err := splitAddr(c.addr)
	if err != nil {
		return err
	}
	c.addr = net.JoinHostPort(host, port)
	env := strings.TrimSpace(getenv("LLMWIKI_TOKEN"))
	switch {
	case c.tokenFile != "" && env != "":
		return errors.New("both --token-file and $LLMWIKI_TOKEN are set; use one")
	case c.tokenFile != "":
		b, err := os.ReadFile(c.tokenFile)
		if err != nil {
			return fmt.Errorf("read --token-file: %w", err)
		}
		c.token = strings.TrimSpace(string(b))
		if c.token == "" {
			return fmt.Errorf("--token-file %s is empty", c.tokenFile)
		}
	default:
		c.token = env
	}
	if c.token != "" && len(c.token) < minTokenLen {
		return fmt.Errorf("the bearer token is %d characters; use at least %d (e.g. openssl rand -hex 32)", len(c.token), minTokenLen)
	}
	if strings.ContainsAny(c.token, " \t\r\n") {
		return errors.New("the bearer token must not contain spaces or line breaks")
	}
	if !isLoopbackHost(host) && c.token == "" {
		return fmt.Errorf("refusing to serve on %s without a token: a non-loopback address is reachable from other machines; pass --token-file FILE or set LLMWIKI_TOKEN (or bind 127.0.0.1)", c.addr)
	}
	if c.maxBodyMiB <= 0 {
		return errors.New("--max-body-mb must be positive")
	}
	if c.sessionIdle < time.Second {
		return errors.New("--session-idle must be at least 1s")
	}
	for _, o := range c.allowOrigins {
		if _, err := parseOrigin(o); err != nil {
			return fmt.Errorf("--allow-origin %q: %v", o, err)
		}
	}
	return nil
}

// splitAddr parses --http: "PORT", ":PORT", "HOST:PORT" or "[IPv6]:PORT".
// A missing host means 127.0.0.1, never every interface.
func splitAddr(addr string) (string, string, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return "", "", errors.New("--http needs an address, such as 127.0.0.1:" + defaultHTTPPort)
	}
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", "", fmt.Errorf("--http %q: %v", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return host, port, nil
}

// isLoopbackHost reports whether host (no port; IPv6 with or without
// brackets) names this machine's loopback interface.
func isLoopbackHost(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// httpServer serves one MCP server over streamable HTTP (/mcp) and legacy
// SSE (/sse, /message) behind the guard (see [httpServer.guard]).
type httpServer struct {
	cfg     httpConfig
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

	// abandoned, when set, is called when the shutdown leaves calls
	// running (see [stdio.Drain]).
	abandoned func()
}

// newHTTPServer wraps srv for HTTP. cfg must have been resolved.
// cancelled is the registry the server's [tools.Options.Cancelled] asks
// (nil: a new one, for tests that build srv without it).
func newHTTPServer(cfg httpConfig, st *wiki.Store, srv *server.MCPServer, log *slog.Logger, cancelled *jsonrpc.CancelledIDs) (*httpServer, error) {
	if cancelled == nil {
		cancelled = jsonrpc.NewCancelledIDs()
	}
	h := &httpServer{cfg: cfg, st: st, srv: srv, log: log, sessions: &sessionIDs{}, cancelled: cancelled}
	host, _, err := net.SplitHostPort(cfg.addr)
	if err != nil {
		return nil, err
	}
	h.hosts = allowedHosts(host, cfg.allowHosts)
	h.origins = map[string]bool{}
	for _, o := range cfg.allowOrigins {
		u, _ := parseOrigin(o)
		h.origins[u] = true
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
	heartbeat := min(30*time.Second, cfg.sessionIdle/3)
	streamOpts := []server.StreamableHTTPOption{
		server.WithEndpointPath("/mcp"),
		server.WithSessionIdManager(h.sessions),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			return postStreamNotifier(withRemote(ctx, r), r)
		}),
		server.WithSessionIdleTTL(cfg.sessionIdle),
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
	if len(cfg.allowOrigins) > 0 {
		streamOpts = append(streamOpts, server.WithStreamableHTTPCORS(server.WithCORSAllowedOrigins(cfg.allowOrigins...)))
		sseOpts = append(sseOpts, server.WithSSECORS(server.WithCORSAllowedOrigins(cfg.allowOrigins...)))
	}
	h.stream = server.NewStreamableHTTPServer(srv, streamOpts...)
	h.sse = server.NewSSEServer(srv, sseOpts...)
	mux := http.NewServeMux()
	mux.Handle("/mcp", withPostStreams(h.stream))
	mux.Handle("/sse", h.sse)
	mux.Handle("/message", h.sse)
	h.handler = h.guard(mux)
	return h, nil
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

// serve serves on ln until ctx ends, then shuts down gracefully in two
// steps. Draining: the listener stays open and every new request, on a new
// connection or an open one, gets 503 with Retry-After and Connection:
// close (the guard), while tool calls in flight run to the end (their writes
// are committed and answered) for up to cfg.shutdownTimeout. Closing: the
// listener and idle connections close, responses still queued for SSE
// streams are let out, the streams end, and serve returns.
func (h *httpServer) serve(ctx context.Context, ln net.Listener) error {
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
	h.log.Info("shutting down: finishing calls in flight", "calls", h.running.Load(), "timeout", h.cfg.shutdownTimeout)
	h.draining.Store(true)
	deadline, cancel := context.WithTimeout(context.Background(), h.cfg.shutdownTimeout)
	defer cancel()
	// Drain before Shutdown: once Shutdown starts, net/http drops requests
	// read on open connections without an answer, and a client deserves
	// the 503 that tells it to come back.
	done := make(chan struct{})
	go func() { h.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-deadline.Done():
		h.log.Error("shutdown timeout: calls still running are abandoned (their writes commit whole or not at all)", "calls", h.running.Load())
		if h.abandoned != nil {
			h.abandoned()
		}
	}
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(deadline) }() // closes the listener at once
	// Let responses queued for SSE streams reach their clients, then end
	// the long-lived streams so Shutdown can finish.
	time.Sleep(200 * time.Millisecond)
	_ = h.stream.Shutdown(deadline)
	h.sse.CloseSessions()
	var err error
	select {
	case err = <-shut:
	case <-deadline.Done():
		err = deadline.Err()
	}
	if err != nil {
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

// listenHTTP listens on cfg.addr. serve calls it before it opens the wiki,
// so an address in use fails at once and nothing is created or built.
func listenHTTP(cfg httpConfig) (net.Listener, error) {
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s (%v); is another server using it? Pick another with --http", cfg.addr, err)
	}
	return ln, nil
}

// runHTTP serves srv on ln until ctx ends (SIGINT, SIGTERM). The URLs go
// to stderr.
func runHTTP(ctx context.Context, e env, cfg httpConfig, ln net.Listener, st *wiki.Store, srv *server.MCPServer, log *slog.Logger, ntools int, cancelled *jsonrpc.CancelledIDs, abandoned func()) error {
	h, err := newHTTPServer(cfg, st, srv, log, cancelled)
	if err != nil {
		return err
	}
	h.abandoned = abandoned
	base := "http://" + ln.Addr().String()
	auth := "no token (loopback only)"
	if cfg.token != "" {
		auth = "bearer token required"
	}
	fmt.Fprintf(e.stderr, "llmwiki: serving %s on %s/mcp (streamable HTTP) and %s/sse (SSE); %s\n", st.Dir(), base, base, auth)
	log.Info("serving over HTTP", "addr", ln.Addr().String(), "tools", ntools, "token", cfg.token != "")
	return h.serve(ctx, ln)
}
