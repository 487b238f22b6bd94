package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/llmwiki/llmwiki/agents"
	"github.com/llmwiki/llmwiki/tools"
)

// runAgents lists the sub-agents and their allowlists, resolved against the
// registry this binary was built with.
func runAgents(_ context.Context, e env, args []string) error {
	fs := newFlags(e, "agents", "agents")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rs, err := agents.Resolve(tools.Catalogue(tools.Deps{}))
	if err != nil {
		return err
	}
	for _, r := range rs {
		mode := "read-only"
		if r.WritesWiki {
			mode = "writes through audited tools"
		}
		fmt.Fprintf(e.stdout, "%s (%s, workflow %q)\n  %s\n  tools: %s\n", r.Name(), mode, r.Workflow, r.Description, strings.Join(r.Tools, ", "))
		if r.HasCap(agents.CapWeb) {
			fmt.Fprintln(e.stdout, "  client tools: web search and fetch")
		}
		if len(r.Pending) > 0 {
			fmt.Fprintf(e.stdout, "  named but not in this build: %s\n", strings.Join(r.Pending, ", "))
		}
	}
	return nil
}
