package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestPprof: $LLMWIKI_PPROF serves the profiles on a loopback address and
// refuses any other.
func TestPprof(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:6060", "nonsense"} {
		var stderr bytes.Buffer
		if err := startPprof(context.Background(), env{stderr: &stderr}, addr, log); err == nil {
			t.Errorf("%q: served, want refused", addr)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	if err := startPprof(ctx, env{stderr: &stderr}, "127.0.0.1:0", log); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`pprof on (http://\S+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no address on stderr: %q", stderr.String())
	}
	resp, err := http.Get(m[1] + "goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "goroutine profile") {
		t.Errorf("goroutine profile: %s %.100q", resp.Status, body)
	}
}
