package tools

import (
	"context"
	"strconv"
	"time"

	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
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
	// Review is what awaits a person (absent when the server has no review).
	Review *ReviewSummary `json:"review,omitempty" jsonschema:"the review mode and what awaits the person: pending change sets and plans, and writes not yet reviewed"`
	// Git is the wiki's git state (absent with git: off).
	Git *git.Status `json:"git,omitempty" jsonschema:"the wiki's git state under git: commit or sync: branch, head commit, writes on disk not yet committed and why, the remote and the last sync, open sync conflicts"`
	Notes
}

// ReviewSummary is what awaits a person, for orientation.
type ReviewSummary struct {
	Mode       string       `json:"mode" jsonschema:"off (writes apply at once), after (writes apply and wait in the review queue) or before (writes wait for the person's approval: use propose_changes)"`
	Pending    []PendingSet `json:"pending" jsonschema:"change sets and plans awaiting the person, newest first; do not propose them again"`
	Unreviewed int          `json:"unreviewed" jsonschema:"writes in the review queue the person has not accepted or reverted"`
}

// PendingSet is one change set or plan awaiting a person.
type PendingSet struct {
	ChangeSet  int       `json:"change_set" jsonschema:"its number (#N)"`
	ID         string    `json:"id"`
	Op         string    `json:"op" jsonschema:"change_set, ingest or build"`
	Actions    int       `json:"actions" jsonschema:"how many actions it holds"`
	ProposedBy string    `json:"proposed_by,omitempty" jsonschema:"the client that proposed it"`
	Expires    time.Time `json:"expires" jsonschema:"when it can no longer be approved"`
}

// reviewSummary is load_project's review section; problems reading it are
// warnings.
func reviewSummary(ctx context.Context, d Deps) *ReviewSummary {
	if d.Review == nil {
		return nil
	}
	sum := &ReviewSummary{Mode: d.reviewMode(), Pending: []PendingSet{}}
	ps, err := d.Review.Pending()
	if err != nil {
		store.CallFrom(ctx).AddWarning("pending change sets not listed: " + store.PublicMessage(err))
	}
	for _, p := range ps {
		sum.Pending = append(sum.Pending, PendingSet{ChangeSet: p.Number, ID: p.ID, Op: p.Op, Actions: len(p.Actions), ProposedBy: p.Client, Expires: p.Expires})
	}
	_, _, unreviewed, err := d.Review.Queue(1, "")
	if err != nil {
		store.CallFrom(ctx).AddWarning("review queue not counted: " + store.PublicMessage(err))
	}
	sum.Unreviewed = unreviewed
	return sum
}

// gitSummary is load_project's git section; writes not committed and a
// repository that could not be opened are warnings too.
func gitSummary(ctx context.Context, d Deps) *git.Status {
	mode := d.Store.Settings().Git
	switch {
	case mode == wiki.GitOff:
		return nil
	case d.Git == nil:
		if d.GitError == "" {
			return nil
		}
		store.CallFrom(ctx).AddWarning(d.GitError)
		return &git.Status{Mode: mode, CommitError: d.GitError}
	}
	st := d.Git.Status(ctx)
	if st.Uncommitted > 0 {
		store.CallFrom(ctx).AddWarning(strconv.Itoa(st.Uncommitted) + " " + english.Plural(st.Uncommitted, "write is", "writes are") + " on disk but not committed to git (" + st.CommitError + "); the next write commits them")
	}
	return &st
}

// readOnlyWarning is load_project's warning on a read-only wiki.
const readOnlyWarning = "the wiki is read-only: every tool that writes is refused (" + store.ReadOnlyMessage + "); reading and searching work"

// LoadProject returns the load_project tool: the first call of every
// workflow.
func LoadProject(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "load_project", Toolset: "core", Title: "Load project",
		Description: "Orientation for this wiki; call it first in every workflow. Returns schema.md (the rules pages follow), guidelines.md (learned rules), context.md (the current synthesis), counts, sources not yet folded into context.md, pages changed since the last build, stale derived state, the search index's state, the review mode with the change sets awaiting the person, the git state (with git on), and recent log entries.",
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
			out.Review = reviewSummary(ctx, d)
			out.Git = gitSummary(ctx, d)
			return out, err
		})
}
