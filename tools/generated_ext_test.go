package tools_test

import (
	"flag"
	"testing"

	"github.com/llmwiki/llmwiki/agents"
	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestToolSchemasGoldenAgents keeps the files generated from the registry
// outside this package (the Claude Code plugin's agents, commands and
// manifests) in step, so the one command that refreshes the tool snapshots
// refreshes them too: go test ./tools -run TestToolSchemasGolden -update
func TestToolSchemasGoldenAgents(t *testing.T) {
	write := false
	if f := flag.Lookup("update"); f != nil {
		write = f.Value.String() == "true"
	}
	files, err := agents.GeneratedFiles(tools.Catalogue(tools.Deps{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := agents.CheckFiles(wikitest.RepoRoot(t), files, write); err != nil {
		t.Fatal(err)
	}
}
