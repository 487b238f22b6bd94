package tools

import (
	"os"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/search"
)

// TestMain applies the search index's process settings, as a program does
// before it opens an index (the optional tunings do not change results).
func TestMain(m *testing.M) {
	search.SetProcessSettings(search.ProcessSettings{})
	os.Exit(m.Run())
}
