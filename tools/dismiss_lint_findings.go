package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// DismissLintFindingsInput names findings to dismiss or to report again.
type DismissLintFindingsInput struct {
	Dismiss   []string `json:"dismiss,omitempty" jsonschema:"ids (from lint_findings) of findings the person decided to leave as they are; they are not reported again until their evidence changes"`
	Reason    string   `json:"reason,omitempty" jsonschema:"why the findings in dismiss are dismissed, in the person's words"`
	Undismiss []string `json:"undismiss,omitempty" jsonschema:"ids of dismissed findings to report again"`
}

// DismissLintFindingsOutput says what the call changed.
type DismissLintFindingsOutput struct {
	DismissedIDs []string `json:"dismissed_ids" jsonschema:"ids this call dismissed"`
	// Undismissed counts dismissals removed (ids not dismissed are ignored).
	Undismissed int `json:"undismissed" jsonschema:"how many dismissals this call removed"`
	Notes
}

// DismissLintFindings returns the dismiss_lint_findings tool.
func DismissLintFindings(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "dismiss_lint_findings", Toolset: "lint", Title: "Dismiss lint findings",
		Description: "Dismiss lint findings a person decided to leave as they are, by the ids lint_findings reports, with the person's reason: lint_findings leaves them out until their evidence changes. undismiss reports dismissed findings again. Only when the person asks: a dismissed error is hidden from every later check. An id no finding has now is refused and nothing is recorded. Writes only the server's lint state (.llmwiki/lint/), never the wiki.",
		Hints:       hints{idempotent: true},
	},
		func(ctx context.Context, in DismissLintFindingsInput) (DismissLintFindingsOutput, error) {
			out := DismissLintFindingsOutput{DismissedIDs: []string{}}
			if len(in.Dismiss) == 0 && len(in.Undismiss) == 0 {
				return out, store.Errorf(store.CodeInvalid, "name the ids of findings in dismiss or undismiss")
			}
			if len(in.Dismiss) > 0 {
				fs, err := lint.Dismiss(ctx, d.Store, d.Links, in.Dismiss, in.Reason, caller(ctx))
				if err != nil {
					return out, err
				}
				for _, f := range fs {
					out.DismissedIDs = append(out.DismissedIDs, f.ID)
				}
			}
			if len(in.Undismiss) > 0 {
				n, err := lint.Undismiss(ctx, d.Store, in.Undismiss)
				if err != nil {
					return out, err
				}
				out.Undismissed = n
			}
			return out, nil
		})
}
