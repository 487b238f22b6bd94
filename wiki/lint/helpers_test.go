package lint

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
)

// fixedNow is the clock of test stores.
var fixedNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// newStore makes a wiki with the given files (path -> content) written as a
// person would, and opens it with a fixed clock.
func newStore(t testing.TB, files map[string]string) (*wiki.Store, string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		writeFile(t, dir, p, c)
	}
	st, err := wiki.Open(dir, wiki.WithClock(func() time.Time { return fixedNow }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
