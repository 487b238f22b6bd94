// Package review is how a person approves what agents write.
//
// Modes (schema.md review:, [wiki.Settings.Review]): off, after, before.
//
//   - Change sets (mode before, and propose_changes in every mode): an
//     agent's proposed writes, each action a call of a direct write tool with
//     its own arguments ([plan.KindCall]), dry-run at proposal time
//     ([store.WithDryRun]) so every action is validated by the executor
//     itself and its files and diff are known. A change set is a
//     [plan.Plan] with Op [plan.OpChangeSet], kept in the plan book:
//     pending, expiring after [TTL], numbered for people (#N), reserving
//     the slugs it creates and the files it writes (a later write to one is
//     a conflict naming the set). A person approves the actions to run
//     (all, or some by number) or declines the set; approving runs each
//     selected action through the same executor, for real, and refuses only
//     the actions whose files changed since the proposal (the others still
//     apply).
//   - The review queue (mode after): every write an agent made under pages/
//     or context.md is an audit line marked for review ([MarkKey]); a person
//     accepts it (nothing changes on disk) or reverts it (an audited write
//     restoring the version before; a file changed since is a conflict, never
//     a silent loss). Decisions are kept in [DecisionsFile].
//
// Sources (what the person added) and log.md are never reviewed.
package review

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// TTL is how long a change set can be approved after it was proposed.
const TTL = 24 * time.Hour

// MarkKey is the audit record's Extra key that puts a write in the review
// queue (value: the review mode, "after").
const MarkKey = "review"

// DecisionsFile is where the queue's decisions (accepted, reverted) are
// appended, one JSON line each.
const DecisionsFile = ".llmwiki/review/decisions.jsonl"

// Reviewers: how a person decided.
const (
	ByElicitation = "elicitation"
	ByWeb         = "web"
	ByCLI         = "cli"
)

// RunFunc runs one call of a write tool with its arguments, as the tool's
// handler would (the same decoding, checks and executor), in ctx. With a
// dry-run ctx ([store.WithDryRun]) nothing is written and the error is
// [store.ErrDryRun] when every check passed. The tools layer provides it.
type RunFunc func(ctx context.Context, tool string, args json.RawMessage) error

// Service is the review of one wiki.
type Service struct {
	st   *wiki.Store
	g    *links.Graph
	run  RunFunc
	book *plan.Book
}

// New returns the review of st; run executes change-set actions.
func New(st *wiki.Store, g *links.Graph, run RunFunc) *Service {
	return &Service{st: st, g: g, run: run, book: plan.NewBook(st)}
}

// Mode is the wiki's review mode now.
func (s *Service) Mode() string { return s.st.Settings().Review }

// ActionInput is one proposed action: a write tool and its arguments.
type ActionInput struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// ProposeInput is a change set as an agent proposes it.
type ProposeInput struct {
	// Takeaways are what the agent learned, for the person.
	Takeaways []string
	Actions   []ActionInput
	// Client and Session name the proposer.
	Client, Session string
}

var errTODO = errors.New("review: not implemented yet")

// Propose validates every action by a dry run, in order (a later action
// sees the earlier ones as if applied only where the executor allows it;
// see the doc of the implementation), and saves the pending change set.
// A bad action fails the whole proposal with an error naming it
// ("action 2 (edit_page): ..."); nothing is saved then.
func (s *Service) Propose(ctx context.Context, in ProposeInput) (*plan.Plan, error) {
	return nil, errTODO
}

// Get returns a plan or change set by reference: "#12", "12" or its id.
func (s *Service) Get(ref string) (*plan.Plan, error) { return nil, errTODO }

// Pending returns the plans and change sets awaiting a person, newest first.
func (s *Service) Pending() ([]*plan.Plan, error) { return nil, errTODO }

// Approve runs the selected actions (1-based; nil selects all) of the
// pending change set or plan ref, recording reviewer (ByWeb, ...). Each
// action whose files changed since the proposal is refused (its Result says
// so, conflict); the others still run. The plan's Results say what each
// did.
func (s *Service) Approve(ctx context.Context, ref string, selected []int, reviewer string) (*plan.Plan, error) {
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

// Write is one audited write in the review queue.
type Write struct {
	// ID is the audit line's id.
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Client  string    `json:"client,omitempty"`
	Session string    `json:"session"`
	Tool    string    `json:"tool"`
	// Files are the reviewed files the call wrote (pages/, context.md).
	Files []store.WriteRecord `json:"files"`
	// Status is "unreviewed", "accepted" or "reverted".
	Status string `json:"status"`
}

// Queue returns the writes awaiting review, newest first, at most limit
// from cursor (an opaque position, "" for the start); next is "" at the
// end.
func (s *Service) Queue(limit int, cursor string) (ws []Write, next string, total int, err error) {
	return nil, "", 0, errTODO
}

// WriteDiffs returns the diffs of one queued write: from the version
// before it to the version it wrote (from snapshots and the current file).
func (s *Service) WriteDiffs(id string) ([]FileDiff, error) { return nil, errTODO }

// Accept marks the writes ids as accepted (nothing on disk changes).
func (s *Service) Accept(ctx context.Context, ids []string, reviewer string) error { return errTODO }

// AcceptAll accepts every write in the queue and returns how many.
func (s *Service) AcceptAll(ctx context.Context, reviewer string) (int, error) { return 0, errTODO }

// RevertResult says what a revert restored.
type RevertResult struct {
	ID    string   `json:"id"`
	Files []string `json:"files"`
}

// Revert restores, in one audited write, the version of every file the
// write id replaced (a file it created is deleted, one it deleted is put
// back), and marks it reverted. A file changed since the write is a
// conflict naming it, and nothing is restored.
func (s *Service) Revert(ctx context.Context, id, reviewer string) (RevertResult, error) {
	return RevertResult{}, errTODO
}

// Counts is what awaits a person.
type Counts struct {
	Pending    int `json:"pending"`
	Unreviewed int `json:"unreviewed"`
}

// Count returns what awaits a person.
func (s *Service) Count() (Counts, error) { return Counts{}, errTODO }
