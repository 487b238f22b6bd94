// Package teststore is the one test store of the repository's tests: a wiki
// made in a temporary folder, filled with files written as a person would,
// and opened, closed when the test ends.
package teststore

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// FixedNow is the time of [WithFixedClock].
var FixedNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// WithFixedClock is the store option that makes every write happen at
// FixedNow, for tests that compare dates.
func WithFixedClock() wiki.Option {
	return wiki.WithClock(func() time.Time { return FixedNow })
}

// Quiet returns a logger that discards everything.
func Quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// New makes a wiki (wiki.Init) in a fresh temporary folder, writes files
// (slash-separated path relative to the wiki → content) straight to disk,
// opens it with opts and closes it when the test ends. It returns the store
// and the wiki's folder.
func New(tb testing.TB, files map[string]string, opts ...wiki.Option) (*wiki.Store, string) {
	tb.Helper()
	dir := tb.TempDir()
	return NewAt(tb, dir, files, opts...), dir
}

// NewInParent is [New] with the wiki in the folder "wiki" of a fresh
// temporary folder, which it returns as parent: a test can put files beside
// the wiki, outside its root.
func NewInParent(tb testing.TB, files map[string]string, opts ...wiki.Option) (st *wiki.Store, dir, parent string) {
	tb.Helper()
	parent = tb.TempDir()
	dir = filepath.Join(parent, "wiki")
	return NewAt(tb, dir, files, opts...), dir, parent
}

// NewAt is [New] in dir, which need not exist.
func NewAt(tb testing.TB, dir string, files map[string]string, opts ...wiki.Option) *wiki.Store {
	tb.Helper()
	if _, err := wiki.Init(dir); err != nil {
		tb.Fatal(err)
	}
	for rel, content := range files {
		wikitest.WriteFile(tb, dir, rel, content)
	}
	st, err := wiki.Open(dir, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}
