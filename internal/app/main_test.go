package app_test

import (
	"os"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/search"
)

// TestMain applies the search package's process settings (BM25 b only), as
// cmd/llmwiki does before it opens a wiki.
func TestMain(m *testing.M) {
	search.SetProcessSettings(search.ProcessSettings{})
	os.Exit(m.Run())
}
