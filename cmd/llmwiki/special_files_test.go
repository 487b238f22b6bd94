package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestFIFONeverBlocksAServer runs over stdio with the built binary: a FIFO
// in pages/ and in sources/; five concurrent read_page of it, then
// write_page of its slug, then append_log from a second server on the same
// root. Every call is answered (each within wikitest.BlockBound; the
// slowest is logged), the FIFO calls with an invalid error naming the wiki
// path, and the second server's write lands. A read that opened the FIFO
// would wait for a writer, taking a stdio worker each, and write_page would
// block in open(2) holding the project lock.
func TestFIFONeverBlocksAServer(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	wikitest.MakeSpecial(t, filepath.Join(root, "pages", "x.md"), "fifo")
	wikitest.MakeSpecial(t, filepath.Join(root, "sources", "y.md"), "fifo")
	var servers [2]*rpc
	for i := range servers {
		c, err := startRPC(t, root)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.kill) // before the FIFOs' cleanup, which releases a blocked open
		servers[i] = c
	}
	a, b := servers[0], servers[1]
	var mu sync.Mutex
	var slowest time.Duration
	call := func(c *rpc, name string, args map[string]any) toolResult {
		t.Helper()
		start := time.Now()
		r, err := wikitest.Within(t, name, func() (toolResult, error) { return c.tool(name, args) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		mu.Lock()
		slowest = max(slowest, time.Since(start))
		mu.Unlock()
		return r
	}
	refused := func(name string, r toolResult, rel string) {
		t.Helper()
		want := rel + " is not a regular file (a FIFO)"
		if !r.IsError || !strings.Contains(r.Text, want) || strings.Contains(r.Text, root) {
			t.Errorf("%s: %+v, want an error saying %q", name, r, want)
		}
	}

	var wg sync.WaitGroup
	results := make([]toolResult, 5)
	done := make(chan struct{})
	for i := range results {
		wg.Go(func() {
			start := time.Now()
			r, err := a.tool("read_page", map[string]any{"path": "pages/x.md"})
			if err != nil {
				r = toolResult{IsError: true, Text: err.Error()}
			}
			mu.Lock()
			slowest = max(slowest, time.Since(start))
			mu.Unlock()
			results[i] = r
		})
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wikitest.BlockBound):
		t.Fatalf("5 concurrent read_page of a FIFO not all answered within %v", wikitest.BlockBound)
	}
	for i, r := range results {
		refused("read_page "+string(rune('1'+i)), r, "pages/x.md")
	}
	refused("read_page sources/y.md", call(a, "read_page", map[string]any{"path": "sources/y.md"}), "sources/y.md")
	refused("write_page x", call(a, "write_page", map[string]any{"title": "x", "content": "replaces the FIFO?\n"}), "pages/x.md")

	r := call(b, "append_log", map[string]any{"op": "note", "title": "second server after the FIFO"})
	if r.IsError {
		t.Fatalf("append_log on the second server: %s", r.Text)
	}
	log, err := os.ReadFile(filepath.Join(root, "log.md"))
	if err != nil || !strings.Contains(string(log), "second server after the FIFO") {
		t.Errorf("the second server's append_log did not land: %v\n%s", err, log)
	}
	// The first server still answers, and its own writes land.
	if r := call(a, "append_log", map[string]any{"op": "note", "title": "first server too"}); r.IsError {
		t.Errorf("append_log on the first server: %s", r.Text)
	}
	v := call(a, "validate_structure", map[string]any{})
	for _, rel := range []string{"pages/x.md", "sources/y.md"} {
		if !strings.Contains(v.Text, `"kind":"not_regular","severity":"error","path":"`+rel+`"`) {
			t.Errorf("validate_structure does not list %s: %s", rel, v.Text)
		}
	}
	if fi, err := os.Lstat(filepath.Join(root, "pages", "x.md")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("pages/x.md is no longer the FIFO: %v %v", fi, err)
	}
	t.Logf("slowest call: %v (the issue's bound is 2 s)", slowest.Round(time.Millisecond))
}
