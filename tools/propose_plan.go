package tools

import (
	"context"
	"time"

	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// ProposePlanInput asks the server's model for a plan.
type ProposePlanInput struct {
	Operation string `json:"operation" jsonschema:"ingest: fold one source into pages; build: a new context.md from pages and pending sources,enum=ingest,enum=build"`
	Path      string `json:"path,omitempty" jsonschema:"ingest: the source to fold in, a path under sources/ (save it with save_source first)"`
	Note      string `json:"note,omitempty" jsonschema:"guidance from the person for the model, one or two sentences"`
}

// PlanAction is one numbered action of a plan, as shown to the person.
type PlanAction struct {
	N       int      `json:"n" jsonschema:"the action's number: pass it in apply_plan's selected"`
	Kind    string   `json:"kind" jsonschema:"create_page, update_page, append_page_section, add_links, update_context or append_context_section"`
	Path    string   `json:"path" jsonschema:"the file it writes: pages/<slug>.md or context.md"`
	Summary string   `json:"summary" jsonschema:"one line describing the action, for the checklist"`
	Title   string   `json:"title,omitempty"`
	Heading string   `json:"heading,omitempty"`
	Links   []string `json:"links,omitempty"`
	Why     string   `json:"why,omitempty"`
	// Chars is the markdown's length; Preview its first characters.
	Chars   int    `json:"chars" jsonschema:"length of the markdown in characters"`
	Preview string `json:"preview,omitempty" jsonschema:"the first 600 characters of the markdown"`
}

// ProposePlanOutput is a pending plan.
type ProposePlanOutput struct {
	PlanID    string       `json:"plan_id"`
	Operation string       `json:"operation"`
	Path      string       `json:"path,omitempty" jsonschema:"the source an ingest plan folds in"`
	Expires   string       `json:"expires" jsonschema:"RFC 3339 time after which the plan cannot be applied"`
	Takeaways []string     `json:"takeaways"`
	Actions   []PlanAction `json:"actions"`
	Model     model.Usage  `json:"model" jsonschema:"the endpoint, model, completions, tokens and time the proposal took"`
	Notes
}

// ProposePlan returns the propose_plan tool.
func ProposePlan(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "propose_plan", Toolset: "plans", Title: "Propose a plan",
		Description: "Ask the server's own model (an OpenAI-compatible endpoint; a local Ollama by default) to propose a plan: for ingest, takeaways from one source and page actions; for build, a new context.md. Nothing is written to the wiki: show the numbered actions to your person, then call apply_plan with the numbers they approve within 10 minutes. Use it when no editor model should do the work itself; an editor agent can instead write pages with write_page.",
		Hints:       hints{openWorld: true},
	},
		func(ctx context.Context, in ProposePlanInput) (ProposePlanOutput, error) {
			pr := &plan.Proposer{Store: d.Store, Model: d.Model}
			var p *plan.Plan
			var err error
			switch in.Operation {
			case "ingest":
				if in.Path == "" {
					return ProposePlanOutput{}, store.Errorf(store.CodeInvalid, "ingest needs path: a file under sources/ (save it with save_source first)")
				}
				p, err = pr.Ingest(ctx, plan.IngestInput{Source: in.Path, Note: in.Note})
			case "build":
				if in.Path != "" {
					return ProposePlanOutput{}, store.Errorf(store.CodeInvalid, "build takes no path: it folds in every pending source")
				}
				p, err = pr.Build(ctx, plan.BuildInput{Note: in.Note})
			default:
				return ProposePlanOutput{}, store.Errorf(store.CodeInvalid, "operation must be ingest or build")
			}
			if err != nil {
				return ProposePlanOutput{}, err
			}
			return planOutput(p), nil
		})
}

func planOutput(p *plan.Plan) ProposePlanOutput {
	out := ProposePlanOutput{PlanID: p.ID, Operation: p.Op, Path: p.Source, Expires: p.Expires.Format(time.RFC3339), Takeaways: p.Takeaways, Actions: []PlanAction{}}
	if out.Takeaways == nil {
		out.Takeaways = []string{}
	}
	if p.Model != nil {
		out.Model = *p.Model
	}
	for i, a := range p.Actions {
		r := []rune(a.Markdown)
		prev := a.Markdown
		if len(r) > 600 {
			prev = string(r[:600]) + "…"
		}
		out.Actions = append(out.Actions, PlanAction{N: i + 1, Kind: a.Kind, Path: a.Target(), Summary: a.Describe(), Title: a.Title, Heading: a.Heading, Links: a.Links, Why: a.Why, Chars: len(r), Preview: prev})
	}
	return out
}
