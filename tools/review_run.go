package tools

import (
	"context"
	"encoding/json"

	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// RunWrite returns the executor of change-set actions: it runs one call of
// a direct write tool (write_page, edit_page, move_page,
// atomic_write_context, research_save, file_answer) with its arguments as
// that tool's handler would, decoding and validating them against the
// tool's own input schema, in ctx (a dry run when ctx is one, see
// [store.WithDryRun]). A tool it does not know is CodeInvalid.
func RunWrite(d Deps) review.RunFunc {
	return func(ctx context.Context, tool string, args json.RawMessage) (any, error) {
		return nil, store.Errorf(store.CodeUnavailable, "running %s from a change set is not implemented yet", tool)
	}
}
