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
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/plan"
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
// handler would (the same decoding, checks and executor), in ctx, and
// returns the tool's output. With a dry-run ctx ([store.WithDryRun])
// nothing is written and the error is [store.ErrDryRun] when every check
// passed. The tools layer provides it.
type RunFunc func(ctx context.Context, tool string, args json.RawMessage) (out any, err error)

// Service is the review of one wiki.
type Service struct {
	st   *wiki.Store
	g    *links.Graph
	run  RunFunc
	book *plan.Book
	held heldFiles
	// queue is the review queue's index of the audit log (queue_index.go).
	queue queueIndex
}

// New returns the review of st; run executes change-set actions.
func New(st *wiki.Store, g *links.Graph, run RunFunc) *Service {
	s := &Service{st: st, g: g, run: run, book: plan.NewBook(st)}
	st.SetHeld(s.holder)
	st.SetKeepSnapshots(s.keepVersions)
	s.recoverStale(context.Background())
	return s
}

// Mode is the wiki's review mode now.
func (s *Service) Mode() string { return s.st.Settings().Review }

// Reviewed reports whether a write to rel (slash-separated, relative to the
// root) is one a person reviews: a page under pages/ or context.md. The
// generated index.md (at the root), sources, log.md, schema.md and
// .llmwiki/ are not.
func Reviewed(rel string) bool {
	switch wiki.LayerOf(rel) {
	case wiki.LayerContext:
		return true
	case wiki.LayerPages:
		return strings.HasSuffix(rel, ".md")
	}
	return false
}

// ActionInput is one proposed action: a write tool and its arguments.
type ActionInput struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	// Why is one line for the person (optional).
	Why string `json:"why,omitempty"`
}

// ProposeInput is a change set as an agent proposes it.
type ProposeInput struct {
	// Takeaways are what the agent learned, for the person.
	Takeaways []string
	Actions   []ActionInput
	// Client and Session name the proposer.
	Client, Session string
}
