package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// AtomicWriteContextInput is the new synthesis.
type AtomicWriteContextInput struct {
	Content       string   `json:"content" jsonschema:"the whole new context.md body in markdown, without frontmatter"`
	FoldedSources []string `json:"folded_sources,omitempty" jsonschema:"paths under sources/ this synthesis folds in; recorded with their sha256 so gather_sources stops listing them"`
	OnOverflow    string   `json:"on_overflow,omitempty" jsonschema:"refuse (default): over the line cap nothing is written; spill: the tail moves to a new page and a pointer line is left,enum=refuse,enum=spill"`
	BaseSHA256    string   `json:"base_sha256,omitempty" jsonschema:"sha256 of the context.md you read; the write fails if it changed since"`
}

// AtomicWriteContextOutput reports the write.
type AtomicWriteContextOutput struct {
	wiki.ContextWrite
	Reviewed
	Notes
}

// AtomicWriteContext returns the atomic_write_context tool.
func AtomicWriteContext(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "atomic_write_context", Toolset: "build", Title: "Write context.md",
		Description: "Replace context.md, the wiki's synthesis, as a whole. The old version is snapshotted first and the write is atomic. Over the line cap (400 unless schema.md says otherwise) it refuses and reports the count, or with on_overflow=spill moves the tail to a new page. List the sources you folded in folded_sources. The same write appends a build entry to log.md (\"## [YYYY-MM-DD HH:MM] build | context.md: N sources folded, L of C lines\", the sources listed), returned as log_entry.",
		Hints:       hints{destructive: true},
	},
		func(ctx context.Context, in AtomicWriteContextInput) (AtomicWriteContextOutput, error) {
			w, err := d.Store.WriteContext(ctx, wiki.ContextInput{Content: in.Content, FoldedSources: in.FoldedSources, OnOverflow: in.OnOverflow, BaseSHA256: in.BaseSHA256, BuiltBy: clientName(ctx)})
			return AtomicWriteContextOutput{ContextWrite: w}, err
		})
}

func clientName(ctx context.Context) string {
	if c := store.CallFrom(ctx); c != nil && c.Client != "" {
		return c.Client
	}
	return "unknown client"
}
