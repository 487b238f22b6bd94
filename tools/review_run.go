package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// RunWrite returns the executor of change-set actions: it runs one call of
// a direct write tool (write_page, edit_page, move_page,
// atomic_write_context, research_save, file_answer, restore_snapshot) with
// its arguments as
// that tool's handler would, decoding and validating them against the
// tool's own input schema, in ctx (a dry run when ctx is one, see
// [store.WithDryRun]). A tool it does not know is CodeInvalid. It writes no
// audit line of its own: the [store.Call] of ctx records the writes. It
// never goes to review itself: it is what an approval runs.
func RunWrite(d Deps) review.RunFunc {
	byName := sync.OnceValue(func() map[string]Tool {
		m := map[string]Tool{}
		for _, t := range Catalogue(d) {
			if slices.Contains(review.Tools, t.Tool.Name) {
				m[t.Tool.Name] = t
			}
		}
		return m
	})
	return func(ctx context.Context, tool string, args json.RawMessage) (any, error) {
		t, ok := byName()[tool]
		if !ok {
			return nil, store.Errorf(store.CodeInvalid, "tool %q cannot be an action of a change set; use one of %s", tool, strings.Join(review.Tools, ", "))
		}
		if err := d.Store.CheckWritable(); err != nil {
			return nil, err
		}
		var raw any
		if len(args) > 0 {
			if err := json.Unmarshal(args, &raw); err != nil {
				return nil, store.Errorf(store.CodeInvalid, "arguments of %s are not a JSON object", tool)
			}
		}
		return t.run(ctx, raw)
	}
}
