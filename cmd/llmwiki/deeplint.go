package main

import (
	"context"
	"fmt"
	"io"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// deepResult is what lint --deep found: the findings whose quotes the
// verifier found in the files (stored under .llmwiki/lint/ with source
// "model"), and the proposals it dropped.
type deepResult struct {
	Findings []lint.Finding `json:"findings"`
	Proposed int            `json:"proposed"`
	Dropped  int            `json:"dropped"`
	// DroppedWhy says, per dropped proposal, why it did not verify.
	DroppedWhy []string    `json:"dropped_why,omitempty"`
	Pages      int         `json:"pages"`
	Total      int         `json:"total_pages"`
	Model      model.Usage `json:"model"`
}

// deepLint asks the model for contradictions and stale claims with quotes
// (one completion, one retry), checks every proposal with the lint
// verifier, keeps only the verified ones and stores them. The model's
// unverified claims are counted and explained, never stored or shown as
// findings.
func deepLint(ctx context.Context, st *wiki.Store, mc *model.Client, budget int) (*deepResult, error) {
	rev, err := (&plan.Proposer{Store: st, Model: mc}).DeepLint(ctx, budget)
	if err != nil {
		return nil, err
	}
	res := &deepResult{Findings: []lint.Finding{}, Proposed: len(rev.Claims), Pages: rev.Pages, Total: rev.Total, Model: rev.Usage}
	v := lint.NewVerifier(st)
	var keep []lint.Proposal
	for i, c := range rev.Claims {
		p := lint.Proposal{Kind: c.Kind, Path: c.File, Message: c.Message, Action: c.Action}
		for _, q := range c.Evidence {
			p.Evidence = append(p.Evidence, lint.Quote{Path: q.File, Quote: q.Quote})
		}
		f, err := v.Check(p)
		switch {
		case err != nil:
			res.DroppedWhy = append(res.DroppedWhy, fmt.Sprintf("%d (%s): %s", i+1, c.Kind, store.PublicMessage(err)))
		case !f.Verified:
			why := f.Note
			for _, ev := range f.Evidence {
				if !ev.Verified {
					why += "; " + ev.Reason
					break
				}
			}
			res.DroppedWhy = append(res.DroppedWhy, fmt.Sprintf("%d (%s): %s", i+1, c.Kind, why))
		default:
			keep = append(keep, p)
		}
	}
	res.Dropped = len(res.DroppedWhy)
	if len(keep) > 0 {
		stored, err := lint.Submit(ctx, st, "model", mc.Config().Model, keep)
		if err != nil {
			return nil, err
		}
		for _, f := range stored {
			if f.Verified { // checked twice: the files could change in between
				res.Findings = append(res.Findings, f)
			} else {
				res.Dropped++
			}
		}
	}
	call := store.CallFrom(ctx)
	call.SetExtra("deep_proposed", res.Proposed)
	call.SetExtra("deep_verified", len(res.Findings))
	call.SetExtra("deep_dropped", res.Dropped)
	return res, nil
}

// printDeep writes the deep-lint part of lint's output.
func printDeep(w io.Writer, r *deepResult) {
	fmt.Fprintf(w, "\nDeep lint (model, %d of %d pages shown): %d proposed, %d verified, %d dropped because their quotes were not found in the files.\n", r.Pages, r.Total, r.Proposed, len(r.Findings), r.Dropped)
	for _, f := range r.Findings {
		loc := f.Path
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d", f.Path, f.Line)
		}
		fmt.Fprintf(w, "  %s %s [%s] %s\n", f.Severity, loc, f.Kind, f.Message)
		for _, ev := range f.Evidence {
			fmt.Fprintf(w, "      %s:%d \"%s\"\n", ev.Path, ev.Line, ev.Quote)
		}
		if f.Action != "" {
			fmt.Fprintf(w, "      fix: %s\n", f.Action)
		}
	}
	for _, d := range r.DroppedWhy {
		fmt.Fprintf(w, "  dropped %s\n", d)
	}
	fmt.Fprintln(w, r.Model.String())
}
