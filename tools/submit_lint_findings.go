package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// LintQuote is one piece of evidence an agent submits.
type LintQuote struct {
	Path  string `json:"path" jsonschema:"the file the quote comes from: pages/x.md, sources/y.md, context.md (or a page's slug)"`
	Quote string `json:"quote" jsonschema:"the passage copied verbatim from that file, 8 to 300 characters"`
}

// LintSubmission is a finding an agent found by reading.
type LintSubmission struct {
	Kind     string      `json:"kind" jsonschema:"contradiction: two places disagree (needs quotes from both); stale_claim: a claim a newer source overtook; unsupported_claim: a claim no cited source backs; gap: a topic mentioned but not covered,enum=contradiction,enum=stale_claim,enum=unsupported_claim,enum=gap"`
	Path     string      `json:"path,omitempty" jsonschema:"the page the finding is about (default: the first quote's path)"`
	Message  string      `json:"message" jsonschema:"the finding in one or two sentences"`
	Action   string      `json:"action,omitempty" jsonschema:"the fix you suggest, one sentence"`
	Evidence []LintQuote `json:"evidence" jsonschema:"verbatim quotes that prove it (1 to 20; a contradiction needs two from two places)"`
}

// SubmitLintFindingsInput is the findings an agent submits.
type SubmitLintFindingsInput struct {
	Findings []LintSubmission `json:"findings" jsonschema:"findings you found by reading (1 to 100), each with verbatim quotes; the server checks every quote against the file and stores the finding as verified or unverified"`
}

// SubmitLintFindingsOutput is the submitted findings as checked.
type SubmitLintFindingsOutput struct {
	Submitted []lint.Finding `json:"submitted" jsonschema:"the findings you submitted, as checked: each quote with verified and line, and the finding's verified and id"`
	// Unverified counts the submitted findings whose quotes were not all found.
	Unverified int `json:"unverified" jsonschema:"how many of them are unverified: claims, not facts; report them as such"`
	Notes
}

// SubmitLintFindings returns the submit_lint_findings tool.
func SubmitLintFindings(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "submit_lint_findings", Toolset: "lint", Title: "Submit lint findings",
		Description: "Submit contradictions, stale or unsupported claims and gaps you found by reading, each with verbatim quotes from the files involved. The server checks every quote against the file and stores the finding with verified: false when it cannot prove it; lint_findings reports the stored findings from then on, each checked again. A finding with the same id replaces the earlier one. Writes only the server's lint state (.llmwiki/lint/), never the wiki; a malformed finding stores none of them.",
		Hints:       hints{idempotent: true},
	},
		func(ctx context.Context, in SubmitLintFindingsInput) (SubmitLintFindingsOutput, error) {
			var out SubmitLintFindingsOutput
			if len(in.Findings) == 0 {
				return out, store.Errorf(store.CodeInvalid, "findings is empty; submit at least one finding with its quotes")
			}
			ps := make([]lint.Proposal, len(in.Findings))
			for i, s := range in.Findings {
				p := lint.Proposal{Kind: s.Kind, Path: s.Path, Message: s.Message, Action: s.Action}
				for _, q := range s.Evidence {
					p.Evidence = append(p.Evidence, lint.Quote{Path: q.Path, Quote: q.Quote})
				}
				ps[i] = p
			}
			fs, err := lint.Submit(ctx, d.Store, "agent", caller(ctx), ps)
			if err != nil {
				return out, err
			}
			out.Submitted = fs
			for _, f := range fs {
				if !f.Verified {
					out.Unverified++
				}
			}
			store.CallFrom(ctx).SetExtra("findings", len(fs))
			return out, nil
		})
}

// caller names who made the call, for the lint state: the client, or the
// session when the client gave no name.
func caller(ctx context.Context) string {
	c := store.CallFrom(ctx)
	if c == nil {
		return ""
	}
	if c.Client != "" {
		return c.Client
	}
	return c.Session
}
