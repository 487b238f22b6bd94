package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
)

// RebuildIndexInput takes no arguments.
type RebuildIndexInput struct{}

// RebuildIndexOutput reports the regenerated index.
type RebuildIndexOutput struct {
	wiki.IndexResult
	Notes
}

// RebuildIndex returns the rebuild_index tool.
func RebuildIndex(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "rebuild_index", Toolset: "build", Title: "Rebuild index",
		Description: "Regenerate index.md from every page's frontmatter: one line per page with its summary, grouped by first tag. Deterministic; a no-op when nothing changed. Page writes keep it in step automatically unless schema.md sets index: manual.",
		Hints:       hints{idempotent: true},
	},
		func(ctx context.Context, _ RebuildIndexInput) (RebuildIndexOutput, error) {
			r, err := d.Store.RebuildIndex(ctx)
			return RebuildIndexOutput{IndexResult: r}, err
		})
}
