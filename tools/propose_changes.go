package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// ProposeChangesInput is a change set: what the agent learned and the
// writes it proposes, each a call of a direct write tool.
type ProposeChangesInput struct {
	Takeaways []string             `json:"takeaways" jsonschema:"what you learned from the source, one point each, as you discussed them with the person"`
	Actions   []ProposeActionInput `json:"actions" jsonschema:"the writes to make, each a call of write_page, edit_page, move_page or atomic_write_context with that tool's own arguments (base_sha256 included)"`
}

// ProposeActionInput is one proposed write.
type ProposeActionInput struct {
	Tool      string         `json:"tool" jsonschema:"the write tool: write_page, edit_page, move_page or atomic_write_context"`
	Arguments map[string]any `json:"arguments" jsonschema:"the tool's arguments, exactly as you would pass them to it"`
	Why       string         `json:"why,omitempty" jsonschema:"one line for the person: why this write"`
}

// ProposeChangesOutput is the change set as saved, and where it stands.
type ProposeChangesOutput struct {
	ChangeSet int              `json:"change_set" jsonschema:"the change set's number (#N), what the person approves it by"`
	ID        string           `json:"id" jsonschema:"the change set's id"`
	Status    string           `json:"status" jsonschema:"pending (awaiting the person), applied, failed (see results) or declined"`
	Expires   time.Time        `json:"expires" jsonschema:"when the change set can no longer be approved"`
	Actions   []ProposedAction `json:"actions" jsonschema:"the actions, numbered as the person sees them"`
	Results   []plan.Result    `json:"results,omitempty" jsonschema:"what each approved action did, once the person approved"`
	Reviewed
	Notes
}

// ProposedAction is one action of a change set with the files it writes.
type ProposedAction struct {
	N     int               `json:"n" jsonschema:"the action's number"`
	Tool  string            `json:"tool" jsonschema:"the write tool it calls"`
	Files []plan.FileChange `json:"files" jsonschema:"the files it writes: path, created/updated/deleted and the lines added and removed"`
	Why   string            `json:"why,omitempty" jsonschema:"the line you gave the person"`
}

// ProposeChanges returns the propose_changes tool.
func ProposeChanges(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "propose_changes", Toolset: "pages", Title: "Propose changes for review",
		Description: "Submit writes of pages and context.md for a person to approve: your takeaways and a list of actions, each a call of write_page, edit_page, move_page or atomic_write_context with that tool's own arguments. Every action is checked now as the tool would check it (names, base hashes, caps) and nothing is written until the person approves: in the editor when it asks them, otherwise on the review page (llmwiki ui) or with `llmwiki review approve N`. You cannot approve it yourself, so never retry a pending set. In review mode before (load_project says the mode), discuss the takeaways with the person first, then send one change set per source rather than one write at a time; sources, research notes and log entries need no review: write them directly.",
		// Not read-only: when the person approves in the editor, the
		// actions run within this call and may replace pages, as
		// write_page does.
		Hints: hints{destructive: true},
	},
		func(ctx context.Context, in ProposeChangesInput) (ProposeChangesOutput, error) {
			if d.Review == nil {
				return ProposeChangesOutput{}, store.Errorf(store.CodeUnavailable, "review is not available on this server; use the write tools directly")
			}
			if len(in.Actions) == 0 {
				return ProposeChangesOutput{}, store.Errorf(store.CodeInvalid, "actions is empty: propose at least one write")
			}
			pin := review.ProposeInput{Takeaways: in.Takeaways, Client: store.CallFrom(ctx).Client, Session: store.CallFrom(ctx).Session}
			for _, a := range in.Actions {
				args, err := json.Marshal(a.Arguments)
				if err != nil || a.Arguments == nil {
					args = json.RawMessage("{}")
				}
				pin.Actions = append(pin.Actions, review.ActionInput{Tool: a.Tool, Arguments: args, Why: a.Why})
			}
			p, err := d.Review.Propose(ctx, pin)
			if err != nil {
				return ProposeChangesOutput{}, err
			}
			recordPending(ctx, p)
			res, err := askPerson(ctx, d, p, nil)
			if err != nil {
				return ProposeChangesOutput{}, err
			}
			return changeSetOutput(res), nil
		})
}

// changeSetOutput is propose_changes' output for the set res.plan.
func changeSetOutput(res askResult) ProposeChangesOutput {
	p := res.plan
	out := ProposeChangesOutput{ChangeSet: p.Number, ID: p.ID, Status: res.status, Expires: p.Expires, Actions: []ProposedAction{}, Results: p.Results}
	for i, a := range p.Actions {
		files := a.Files
		if files == nil {
			files = []plan.FileChange{}
		}
		out.Actions = append(out.Actions, ProposedAction{N: i + 1, Tool: a.Tool, Files: files, Why: a.Why})
	}
	out.Review = res.review()
	return out
}
