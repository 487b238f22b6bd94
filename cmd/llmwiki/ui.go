package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"runtime"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/server/httpserver"
	"github.com/llmwiki/llmwiki/server/ui"
)

// runUI serves the web app (review, pages, search, health, eval,
// activity) on loopback, under serve --http's guard (Host allow-list,
// Origin, token for a non-loopback address) without the MCP endpoints.
func runUI(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "ui", "ui [--root DIR] [--addr 127.0.0.1:"+defaultHTTPPort+"] [--token-file FILE] [--open]")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki); it must exist (llmwiki init creates one)")
	hc := &httpConfig{maxBodyMiB: defaultMaxBodyMiB, sessionIdle: defaultSessionIdle, addrFlag: "addr"}
	fs.StringVar(&hc.addr, "addr", "127.0.0.1:"+defaultHTTPPort, "address to serve the web app on; a bare port binds 127.0.0.1, a non-loopback address needs a token")
	fs.StringVar(&hc.tokenFile, "token-file", "", "file holding the token the login page asks for (else $LLMWIKI_TOKEN); required for a non-loopback address")
	fs.Var(&hc.allowHosts, "allow-host", "extra Host header value to accept (a name the page is reached by, e.g. behind a proxy); repeatable")
	fs.DurationVar(&hc.shutdownTimeout, "shutdown-timeout", defaultShutdownTimeout, "at SIGINT/SIGTERM, how long to wait for a decision in flight before exiting")
	open := fs.Bool("open", false, "open the review page in the default browser")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("ui takes no arguments (got %q); use --root DIR", fs.Arg(0))
	}
	if hc.shutdownTimeout <= 0 {
		return errors.New("--shutdown-timeout must be positive")
	}
	if err := hc.resolve(e.getenv); err != nil {
		return err
	}
	ln, err := listenHTTP(*hc)
	if err != nil {
		return err
	}
	defer ln.Close()
	log := newLogger(e)
	st, dir, err := openExistingRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	a := app.New(st, app.Options{Log: log})
	defer a.Close()
	web, err := webApp(a, hc.token)
	if err != nil {
		return err
	}
	h, err := httpserver.New(httpserver.Config{
		Addr:            hc.addr,
		Token:           hc.token,
		AllowHosts:      hc.allowHosts,
		MaxBodyMiB:      hc.maxBodyMiB,
		SessionIdle:     hc.sessionIdle,
		ShutdownTimeout: hc.shutdownTimeout,
		UI:              web,
	}, st, nil, log, nil)
	if err != nil {
		return err
	}
	a.Start()
	// Read the review queue's index of the audit log now, so the first
	// page does not pay for parsing every marked line.
	counts, err := a.Review.Count()
	if err != nil {
		log.Warn("the review queue could not be read", "err", err)
	}
	url := "http://" + ln.Addr().String() + "/review"
	auth := "no token (loopback only)"
	if hc.token != "" {
		auth = "log in with the token"
	}
	fmt.Fprintf(e.stderr, "llmwiki: the web app of %s is at %s (%d change sets pending, %d writes unreviewed); %s; Ctrl-C stops it\n", dir, url, counts.Pending, counts.Unreviewed, auth)
	if *open {
		if err := openBrowser(url); err != nil {
			log.Warn("could not open a browser; open the URL yourself", "url", url, "err", err)
		}
	}
	return h.Serve(ctx, ln)
}

// webApp is the web app of a, asking for token when it is set.
func webApp(a *app.App, token string) (http.Handler, error) {
	return ui.New(ui.Config{Store: a.Store, Review: a.Review, Search: a.Search, Links: a.Links, Log: a.Log, Token: token})
}

// openBrowser opens url in the desktop's default browser.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
