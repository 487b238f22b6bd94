package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/search"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// LoadProjectInput takes no arguments.
type LoadProjectInput struct{}

// LoadProjectOutput is the project's orientation.
type LoadProjectOutput struct {
	wiki.Project
	// Index is the search index's health (absent when the server has none).
	Index *search.Status `json:"index,omitempty" jsonschema:"the search index: state (ready, building, stale, failed), pages indexed and why it is not ready"`
	Notes
}

// readOnlyWarning is load_project's warning on a read-only wiki.
const readOnlyWarning = "the wiki is read-only: every tool that writes is refused (" + store.ReadOnlyMessage + "); reading and searching work"

// LoadProject returns the load_project tool: the first call of every
// workflow.
func LoadProject(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "load_project", Toolset: "core", Title: "Load project",
		Description: "Orientation for this wiki; call it first in every workflow. Returns schema.md (the rules pages follow), guidelines.md (learned rules), context.md (the current synthesis), counts, sources not yet folded into context.md, pages changed since the last build, stale derived state, the search index's state and recent log entries.",
		Hints:       readOnlyHints,
	},
		func(ctx context.Context, _ LoadProjectInput) (LoadProjectOutput, error) {
			p, err := d.Store.LoadProject(ctx)
			if d.Store.ReadOnly() {
				store.CallFrom(ctx).AddWarning(readOnlyWarning)
			}
			out := LoadProjectOutput{Project: p}
			if d.Search != nil {
				d.Search.Start()
				st := d.Search.Status()
				out.Index = &st
			}
			return out, err
		})
}
