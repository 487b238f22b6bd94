package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
)

// LoadProjectInput takes no arguments.
type LoadProjectInput struct{}

// LoadProjectOutput is the project's orientation.
type LoadProjectOutput struct {
	wiki.Project
	Notes
}

// LoadProject returns the load_project tool: the first call of every
// workflow.
func LoadProject(d Deps) Tool {
	return newTool(d, "load_project", "core", "Load project",
		"Orientation for this wiki; call it first in every workflow. Returns schema.md (the rules pages follow), guidelines.md (learned rules), context.md (the current synthesis), counts, sources not yet folded into context.md, pages changed since the last build, stale derived state and recent log entries.",
		readOnlyHints,
		func(ctx context.Context, _ LoadProjectInput) (LoadProjectOutput, error) {
			p, err := d.Store.LoadProject(ctx)
			return LoadProjectOutput{Project: p}, err
		})
}
