package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestUICommand runs `llmwiki ui` in-process on a free loopback port: it
// prints the review page's URL on stderr, answers it, serves no MCP
// endpoint, and stops when its context ends (as at SIGINT).
func TestUICommand(t *testing.T) {
	tuneProcess()
	root := t.TempDir()
	// A folder without a wiki is refused (a mistyped --root), not created.
	if err := runUI(context.Background(), env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}, []string{"--root", root, "--addr", "127.0.0.1:0"}); err == nil || !strings.Contains(err.Error(), "no wiki at") {
		t.Fatalf("ui on a folder without a wiki: %v, want \"no wiki at\"", err)
	}
	if _, _, err := runIn(t, "", nil, "init", root); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var buf bytes.Buffer
	stderr := &lockedBuffer{mu: &mu, b: &buf}
	logged := func() string { mu.Lock(); defer mu.Unlock(); return buf.String() }
	e := env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: stderr, getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runUI(ctx, e, []string{"--root", root, "--addr", "127.0.0.1:0"}) }()
	urlRE := regexp.MustCompile(`http://127\.0\.0\.1:\d+/review`)
	var url string
	wikitest.WaitFor(t, func() bool { url = urlRE.FindString(logged()); return url != "" }, "the URL on stderr")

	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `id="review-mode"`) {
		t.Errorf("GET %s = %d, want 200 and the review page:\n%s", url, resp.StatusCode, body)
	}
	resp, err = http.Post(strings.TrimSuffix(url, "/review")+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Errorf("POST /mcp on llmwiki ui = 200, want no MCP endpoint")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ui ended with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ui did not stop within 20 s of its context ending")
	}
}

func TestUICommandRefusesNonLoopbackWithoutToken(t *testing.T) {
	_, _, err := runIn(t, "", nil, "ui", "--root", t.TempDir(), "--addr", "0.0.0.0:0")
	if err == nil || !strings.Contains(err.Error(), "without a token") {
		t.Errorf("ui on 0.0.0.0 without a token: %v, want a refusal naming the token", err)
	}
}

// TestUIAddressErrorsNameAddr: ui shares serve's address checks, and its
// messages name ui's flag, --addr, not serve's --http.
func TestUIAddressErrorsNameAddr(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, addr := range []string{"", "127.0.0.1:x:y", busy.Addr().String()} {
		_, _, err := runIn(t, "", nil, "ui", "--root", t.TempDir(), "--addr", addr)
		if err == nil || !strings.Contains(err.Error(), "--addr") || strings.Contains(err.Error(), "--http") {
			t.Errorf("ui --addr %q: %v, want an error naming --addr only", addr, err)
		}
	}
	_, _, err = runIn(t, "", nil, "serve", "--root", t.TempDir(), "--http", busy.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "--http") {
		t.Errorf("serve --http on a busy port: %v, want an error naming --http", err)
	}
}
