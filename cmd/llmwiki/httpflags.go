package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/server/httpserver"
	"github.com/llmwiki/llmwiki/server/jsonrpc"
	"github.com/llmwiki/llmwiki/wiki"
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

// httpConfig is what serve --http takes beyond the MCP server: the flags,
// checked and resolved into a [httpserver.Config] by runHTTP.
type httpConfig struct {
	addr      string
	tokenFile string
	token     string // resolved from tokenFile or $LLMWIKI_TOKEN
	// reviewTokenFile names the person's login token for the web app
	// under serve --http (else $LLMWIKI_REVIEW_TOKEN); reviewToken is it
	// resolved. It is never the bearer token: an agent holds that one.
	reviewTokenFile string
	reviewToken     string
	reviewGenerated bool // reviewToken was made at start, to be printed
	allowHosts      listFlag
	allowOrigins    listFlag
	maxBodyMiB      int
	sessionIdle     time.Duration
	shutdownTimeout time.Duration
	// addrFlag is the flag that set addr, for messages: "http" (serve),
	// "addr" (ui); "" is "http".
	addrFlag string
}

// flag is the address flag as the user typed it: --http or --addr.
func (c *httpConfig) flag() string {
	if c.addrFlag == "" {
		return "--http"
	}
	return "--" + c.addrFlag
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
	fs.StringVar(&c.reviewTokenFile, "review-token-file", "", "file holding the token a person logs in to the review page at / with (else $LLMWIKI_REVIEW_TOKEN); with a bearer token and none given, a one-time code is printed at start; never the bearer token, which agents hold")
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
	host, port, err := splitAddr(c.addr, c.flag())
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
		if _, err := httpserver.ParseOrigin(o); err != nil {
			return fmt.Errorf("--allow-origin %q: %v", o, err)
		}
	}
	return nil
}

// splitAddr parses the address flag (named flag in messages): "PORT",
// ":PORT", "HOST:PORT" or "[IPv6]:PORT". A missing host means 127.0.0.1,
// never every interface.
func splitAddr(addr, flag string) (string, string, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return "", "", errors.New(flag + " needs an address, such as 127.0.0.1:" + defaultHTTPPort)
	}
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", "", fmt.Errorf("%s %q: %v", flag, addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return host, port, nil
}

// resolveReviewToken reads the person's login token for the web app of
// serve --http. The bearer token authorises agents (every MCP client holds
// it), so it must not also log a browser in to approve their changes:
// with a bearer token and no review token given, a random one is made,
// and serve prints it where the person started the server.
func (c *httpConfig) resolveReviewToken(getenv func(string) string) error {
	env := strings.TrimSpace(getenv("LLMWIKI_REVIEW_TOKEN"))
	switch {
	case c.reviewTokenFile != "" && env != "":
		return errors.New("both --review-token-file and $LLMWIKI_REVIEW_TOKEN are set; use one")
	case c.reviewTokenFile != "":
		b, err := os.ReadFile(c.reviewTokenFile)
		if err != nil {
			return fmt.Errorf("read --review-token-file: %w", err)
		}
		if c.reviewToken = strings.TrimSpace(string(b)); c.reviewToken == "" {
			return fmt.Errorf("--review-token-file %s is empty", c.reviewTokenFile)
		}
	default:
		c.reviewToken = env
	}
	switch {
	case c.reviewToken == "" && c.token != "":
		c.reviewToken = rand.Text()
		c.reviewGenerated = true
	case c.reviewToken != "" && len(c.reviewToken) < minTokenLen:
		return fmt.Errorf("the review token is %d characters; use at least %d (e.g. openssl rand -hex 32)", len(c.reviewToken), minTokenLen)
	case c.reviewToken != "" && c.reviewToken == c.token:
		return errors.New("the review token is the bearer token: agents hold the bearer token, so it must not approve on the review page; use another")
	}
	return nil
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

// listenHTTP listens on cfg.addr. serve calls it before it opens the wiki,
// so an address in use fails at once and nothing is created or built.
func listenHTTP(cfg httpConfig) (net.Listener, error) {
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s (%v); is another server using it? Pick another with %s", cfg.addr, err, cfg.flag())
	}
	return ln, nil
}

// runHTTP serves srv on ln until ctx ends (SIGINT, SIGTERM), and web (the
// web app, nil: none) at every other path. The URLs go to stderr.
func runHTTP(ctx context.Context, e env, cfg httpConfig, ln net.Listener, st *wiki.Store, srv *server.MCPServer, web http.Handler, log *slog.Logger, ntools int, cancelled *jsonrpc.CancelledIDs, abandoned func()) error {
	h, err := httpserver.New(httpserver.Config{
		Addr:            cfg.addr,
		Token:           cfg.token,
		AllowHosts:      cfg.allowHosts,
		AllowOrigins:    cfg.allowOrigins,
		MaxBodyMiB:      cfg.maxBodyMiB,
		SessionIdle:     cfg.sessionIdle,
		ShutdownTimeout: cfg.shutdownTimeout,
		Abandoned:       abandoned,
		UI:              web,
	}, st, srv, log, cancelled)
	if err != nil {
		return err
	}
	useTestHang(e, srv, st)
	base := "http://" + ln.Addr().String()
	auth := "no token (loopback only)"
	if cfg.token != "" {
		auth = "bearer token required"
	}
	fmt.Fprintf(e.stderr, "llmwiki: serving %s on %s/mcp (streamable HTTP) and %s/sse (SSE); %s\n", st.Dir(), base, base, auth)
	if web != nil {
		switch {
		case cfg.reviewGenerated:
			fmt.Fprintf(e.stderr, "llmwiki: the review page is %s/review; log in with the one-time code %s (it changes at every start; --review-token-file sets one; the bearer token does not log in)\n", base, cfg.reviewToken)
		case cfg.reviewToken != "":
			fmt.Fprintf(e.stderr, "llmwiki: the review page is %s/review; log in with the review token\n", base)
		default:
			fmt.Fprintf(e.stderr, "llmwiki: the review page is %s/review\n", base)
		}
	}
	log.Info("serving over HTTP", "addr", ln.Addr().String(), "tools", ntools, "token", cfg.token != "")
	return h.Serve(ctx, ln)
}
