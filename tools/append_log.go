package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
)

// AppendLogInput is one log entry.
type AppendLogInput struct {
	Op      string `json:"op" jsonschema:"the operation,enum=ingest,enum=build,enum=query,enum=lint,enum=research,enum=edit,enum=move,enum=restore,enum=eval,enum=note"`
	Title   string `json:"title" jsonschema:"one line saying what was done"`
	Details string `json:"details,omitempty" jsonschema:"optional markdown lines under the entry: pages created or updated and why"`
}

// AppendLogOutput reports the entry written.
type AppendLogOutput struct {
	wiki.LogWrite
	Notes
}

// AppendLog returns the append_log tool.
func AppendLog(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "append_log", Toolset: "core", Title: "Append log entry",
		Description: "Record one operation in log.md as \"## [YYYY-MM-DD HH:MM] op | title\" plus optional details. Call it once at the end of every workflow (ingest, build, query, lint, research). Existing entries are never changed.",
		Hints:       hints{},
	},
		func(ctx context.Context, in AppendLogInput) (AppendLogOutput, error) {
			w, err := d.Store.AppendLog(ctx, wiki.LogInput{Op: in.Op, Title: in.Title, Details: in.Details})
			return AppendLogOutput{LogWrite: w}, err
		})
}
