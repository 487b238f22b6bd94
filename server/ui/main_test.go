package ui

import (
	"os"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/search"
)

func TestMain(m *testing.M) {
	search.SetProcessSettings(search.ProcessSettings{})
	os.Exit(m.Run())
}
