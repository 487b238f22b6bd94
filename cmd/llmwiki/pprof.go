package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"
)

// startPprof serves Go's runtime profiles (net/http/pprof: /debug/pprof/,
// /debug/pprof/profile?seconds=N for CPU, /debug/pprof/heap, /mutex and
// /block, whose sampling it switches on, ...) on addr
// when $LLMWIKI_PPROF names one, for measuring a running server (the load
// test's -cpuprofile uses it). The address must be a loopback one
// ("127.0.0.1:0" picks a free port); the profiles carry no wiki content but
// show the program's insides, so they are never served beyond the machine.
// It prints "llmwiki: pprof on http://ADDR/debug/pprof/" to stderr and
// stops when ctx ends. An empty addr does nothing.
func startPprof(ctx context.Context, e env, addr string, log *slog.Logger) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("LLMWIKI_PPROF=%q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("LLMWIKI_PPROF=%q: profiles are served on a loopback address only (e.g. 127.0.0.1:6060)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("LLMWIKI_PPROF: %w", err)
	}
	// Contention profiles (/debug/pprof/mutex, /debug/pprof/block): one
	// mutex wait in 10 is sampled, and blocking of 100 µs or more.
	runtime.SetMutexProfileFraction(10)
	runtime.SetBlockProfileRate(int((100 * time.Microsecond).Nanoseconds()))
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Warn("pprof server stopped", "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	fmt.Fprintf(e.stderr, "llmwiki: pprof on http://%s/debug/pprof/\n", ln.Addr())
	return nil
}
