package wiki

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// testClock is a deterministic clock that advances one second per reading.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// newStore initialises a wiki in a temp folder and opens it with a
// deterministic clock and a logger that writes to the test log.
func newStore(t testing.TB, opts ...Option) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	return openStore(t, dir, opts...), dir
}

func openStore(t testing.TB, dir string, opts ...Option) *Store {
	t.Helper()
	clk := &testClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	all := append([]Option{WithClock(clk.now), WithLogger(testLogger(t))}, opts...)
	s, err := Open(dir, all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.StartSweep() // the temp-file cleanup Open starts, without waiting for a watcher
	s.WaitSweep()
	return s
}

type tbWriter struct{ t testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tbWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func ctxWithCall(tool string) (context.Context, *store.Call) {
	c := store.NewCall(tool, "test", nil)
	return store.WithCall(context.Background(), c), c
}

func mustWrite(t testing.TB, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// treeOf fingerprints the wiki at dir, skipping the audit log (which every
// call appends to) so a test can prove a refused write changed nothing else.
func treeOf(t testing.TB, dir string) map[string]string {
	return wikitest.TreeHashes(t, dir, func(rel string) bool {
		return rel == ".llmwiki/audit" || rel == ".llmwiki/lock" || rel == ".llmwiki/state.lock" || rel == syncDir
	})
}

func sameTree(t testing.TB, before, after map[string]string) {
	t.Helper()
	if d := wikitest.DiffHashes(before, after); len(d) > 0 {
		t.Errorf("the wiki changed: %v", d)
	}
}
