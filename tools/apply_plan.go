package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// ApplyPlanInput names the plan and the approved actions.
type ApplyPlanInput struct {
	PlanID   string `json:"plan_id" jsonschema:"the plan_id propose_plan returned"`
	Selected []int  `json:"selected" jsonschema:"the numbers (n) of the actions your person approved; an empty list discards the plan"`
}

// ApplyPlanOutput reports what ran.
type ApplyPlanOutput struct {
	PlanID string `json:"plan_id"`
	// Status is applied, failed or discarded.
	Status  string        `json:"status" jsonschema:"applied, failed (see results), discarded, or pending (review mode before: the plan awaits the person; do not retry)"`
	Applied int           `json:"applied" jsonschema:"how many actions ran"`
	Results []plan.Result `json:"results" jsonschema:"one entry per approved action: ok, failed or not_run, with the file and its new sha256"`
	Reviewed
	Notes
}

// ApplyPlan returns the apply_plan tool.
func ApplyPlan(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "apply_plan", Toolset: "plans", Title: "Apply an approved plan",
		Description: "Run the actions of a plan from propose_plan that your person approved, by number, and only those; an empty selected discards the plan. Each action goes through the audited writers (validated, locked, snapshotted, atomic). An expired plan (10 minutes), a plan already applied, or a page changed since the proposal is refused with nothing written; on a failure midway, results say which actions ran. In review mode before, selected only pre-ticks the actions: the person approves them in the editor, or the plan stays pending for the review page (llmwiki ui) or `llmwiki review approve N`.",
		Hints:       hints{destructive: true},
	},
		func(ctx context.Context, in ApplyPlanInput) (ApplyPlanOutput, error) {
			if in.Selected == nil {
				return ApplyPlanOutput{}, store.Errorf(store.CodeInvalid, "selected is required: the approved action numbers, or [] to discard")
			}
			if len(in.Selected) > 0 && d.reviewMode() == wiki.ReviewBefore {
				return applyReviewed(ctx, d, in)
			}
			p, err := plan.Apply(ctx, d.Store, d.Links, in.PlanID, in.Selected)
			if p == nil {
				return ApplyPlanOutput{}, err
			}
			out := ApplyPlanOutput{PlanID: p.ID, Status: p.Status, Results: p.Results}
			if out.Results == nil {
				out.Results = []plan.Result{}
			}
			for _, r := range p.Results {
				if r.Status == "ok" {
					out.Applied++
				}
			}
			if err != nil {
				return out, err
			}
			return out, nil
		})
}

// applyReviewed is apply_plan in review mode before: the agent's selected
// are only the ticks the person starts from; the person approves (in the
// editor) or the plan stays pending for the review page or the CLI.
func applyReviewed(ctx context.Context, d Deps, in ApplyPlanInput) (ApplyPlanOutput, error) {
	p, err := d.Review.Get(in.PlanID)
	if err != nil {
		return ApplyPlanOutput{}, err
	}
	if p.Status != plan.StatusPending {
		return ApplyPlanOutput{}, store.Errorf(store.CodeConflict, "%s is %s, not pending; propose a new plan", p.Name(), p.Status)
	}
	recordPending(ctx, p)
	res, err := askPerson(ctx, d, p, in.Selected)
	if err != nil {
		return ApplyPlanOutput{}, err
	}
	p = res.plan
	out := ApplyPlanOutput{PlanID: p.ID, Status: res.status, Results: p.Results}
	if out.Results == nil {
		out.Results = []plan.Result{}
	}
	for _, r := range p.Results {
		if r.Status == "ok" {
			out.Applied++
		}
	}
	out.Review = res.review()
	return out, nil
}
