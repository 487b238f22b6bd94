package tools_test

import (
	"flag"
	"testing"

	"github.com/llmwiki/llmwiki/agents"
	"github.com/llmwiki/llmwiki/agents/install"
	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestToolSchemasGoldenAgents keeps the files generated from the registry
// outside this package (the Claude Code plugin's agents, commands and
// manifests, and the golden installs of every client) in step, so the one command that refreshes the tool snapshots
// refreshes them too: go test ./tools -run TestToolSchemasGolden -update
func TestToolSchemasGoldenAgents(t *testing.T) {
	write := false
	if f := flag.Lookup("update"); f != nil {
		write = f.Value.String() == "true"
	}
	list := tools.Catalogue(tools.Deps{})
	files, err := agents.GeneratedFiles(list)
	if err != nil {
		t.Fatal(err)
	}
	installs, err := install.GoldenFiles(list)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range installs {
		files[k] = v
	}
	if err := agents.CheckFiles(wikitest.RepoRoot(t), files, write, agents.PluginDir, install.GoldenDir); err != nil {
		t.Fatal(err)
	}
}
