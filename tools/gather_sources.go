package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
)

// GatherSourcesInput selects sources and pages through them.
type GatherSourcesInput struct {
	Mode   string `json:"mode,omitempty" jsonschema:"pending (default): sources not yet folded into context.md or changed since; all: every source,enum=pending,enum=all"`
	Since  string `json:"since,omitempty" jsonschema:"only sources modified at or after this RFC 3339 time"`
	Under  string `json:"under,omitempty" jsonschema:"only sources under this folder of sources/"`
	Budget int    `json:"budget,omitempty" jsonschema:"most characters of content in this response (default 40000; at most 400000)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor from the previous call, to continue with the same mode/since/under"`
}

// GatherSourcesOutput is one page of sources.
type GatherSourcesOutput struct {
	wiki.GatherResult
	Notes
}

// GatherSources returns the gather_sources tool.
func GatherSources(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "gather_sources", Toolset: "build", Title: "Gather sources",
		Description: "Collect raw sources to fold into context.md: by default those not yet folded (new or changed since the last atomic_write_context), with their text up to a character budget. Call again with next_cursor until it is absent; every source comes exactly once. Binary files are listed with size, never dumped.",
		Hints:       readOnlyHints,
	},
		func(ctx context.Context, in GatherSourcesInput) (GatherSourcesOutput, error) {
			r, err := d.Store.GatherSources(ctx, wiki.GatherInput{Mode: in.Mode, Since: in.Since, Under: in.Under, Budget: in.Budget, Cursor: in.Cursor})
			return GatherSourcesOutput{GatherResult: r}, err
		})
}
