package review

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/plan"
)

// Propose validates every action by a dry run of its own executor against
// the wiki as it is (the actions of one set are independent: two actions
// writing the same file are refused, "merge them into one"), checks that
// no other pending set holds a file or a new slug it writes, and saves the
// pending change set (numbered, expiring after [TTL]). A bad action fails
// the whole proposal with an error naming it ("action 2 (edit_page):
// ..."); nothing is saved then.
func (s *Service) Propose(ctx context.Context, in ProposeInput) (*plan.Plan, error) {
	return nil, errTODO
}

// Get returns a plan or change set by reference: "#12", "12" or its id.
func (s *Service) Get(ref string) (*plan.Plan, error) { return nil, errTODO }

// Pending returns the plans and change sets awaiting a person, newest first.
func (s *Service) Pending() ([]*plan.Plan, error) { return nil, errTODO }

// Outcome is what an approval did.
type Outcome struct {
	Plan *plan.Plan
	// Outputs are the tool outputs of the actions that ran, by action
	// number (1-based), as [RunFunc] returned them.
	Outputs map[int]any
}

// Approve runs the selected actions (1-based; nil selects all) of the
// pending change set or plan ref, recording reviewer (ByWeb, ...). Each
// action whose files changed since the proposal is refused (its Result says
// so, conflict); the others still run. The plan's Results say what each
// did. The writes are recorded in the [store.Call] of ctx (the tool call
// that asked the person, or the web page's or the CLI's own call).
func (s *Service) Approve(ctx context.Context, ref string, selected []int, reviewer string) (*Outcome, error) {
	return nil, errTODO
}

// Decline ends the pending change set or plan ref with nothing written,
// audited and logged as declined.
func (s *Service) Decline(ctx context.Context, ref, reviewer string) (*plan.Plan, error) {
	return nil, errTODO
}

// FileDiff is one file's change, as a unified diff.
type FileDiff struct {
	Path    string `json:"path"`
	Change  string `json:"change"` // created, updated, deleted
	Diff    string `json:"diff"`   // unified diff, "" when the bytes are not text
	Added   int    `json:"lines_added"`
	Removed int    `json:"lines_removed"`
}

// Diffs returns the diffs of action n (1-based) of change set p: from the
// file as it is now to what the action would write (a fresh dry run), or,
// for a finished set, what the action wrote.
func (s *Service) Diffs(ctx context.Context, p *plan.Plan, n int) ([]FileDiff, error) {
	return nil, errTODO
}
