package store

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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

// newDir returns a fresh folder for a store, with a pages/ folder in it.
func newDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	if err := os.MkdirAll(filepath.Join(dir, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// newTestStore opens a store in a fresh folder (see openStore).
func newTestStore(t testing.TB, opts ...Option) (*Store, string) {
	t.Helper()
	dir := newDir(t)
	return openStore(t, dir, opts...), dir
}

// openStore opens the store at dir with a deterministic clock and a logger
// that writes to the test log, and waits for the temp-file sweep Open starts.
func openStore(t testing.TB, dir string, opts ...Option) *Store {
	t.Helper()
	clk := &testClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s, err := Open(dir, append([]Option{WithClock(clk.now), WithLogger(testLogger(t))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.StartSweep()
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

// findTemps lists the writer temp files under dir.
func findTemps(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && IsTempName(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func auditRecords(t testing.TB, dir string) []AuditRecord {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, AuditDir, "*.jsonl"))
	var out []AuditRecord
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if l == "" {
				continue
			}
			var r AuditRecord
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("audit line does not parse: %v: %s", err, l)
			}
			out = append(out, r)
		}
	}
	return out
}
