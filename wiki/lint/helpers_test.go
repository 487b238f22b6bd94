package lint

import (
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// newStore is the test store (teststore.New) with the fixed clock.
func newStore(t testing.TB, files map[string]string) (*wiki.Store, string) {
	t.Helper()
	return teststore.New(t, files, teststore.WithFixedClock())
}
