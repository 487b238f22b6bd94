package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/lint"
)

// LintQuote is one piece of evidence an agent submits.
type LintQuote struct {
	File  string `json:"file" jsonschema:"the file the quote comes from: pages/x.md, sources/y.md, context.md (or a page's slug)"`
	Quote string `json:"quote" jsonschema:"the passage copied verbatim from that file, 8 to 300 characters"`
}

// LintSubmission is a finding an agent found by reading.
type LintSubmission struct {
	Kind     string      `json:"kind" jsonschema:"contradiction: two places disagree (needs quotes from both); stale_claim: a claim a newer source overtook; unsupported_claim: a claim no cited source backs; gap: a topic mentioned but not covered,enum=contradiction,enum=stale_claim,enum=unsupported_claim,enum=gap"`
	File     string      `json:"file,omitempty" jsonschema:"the page the finding is about (default: the first quote's file)"`
	Message  string      `json:"message" jsonschema:"the finding in one or two sentences"`
	Action   string      `json:"action,omitempty" jsonschema:"the fix you suggest, one sentence"`
	Evidence []LintQuote `json:"evidence" jsonschema:"verbatim quotes that prove it (1 to 20; a contradiction needs two from two places)"`
}

// LintFindingsInput selects findings, and optionally submits or dismisses
// some first.
type LintFindingsInput struct {
	Categories       []string         `json:"categories,omitempty" jsonschema:"only these categories; default every category schema.md does not turn off (dangling_link missing_embed missing_heading ambiguous_link orphan_page page_without_sources missing_source missing_frontmatter stale_page duplicate_title duplicate_alias merge_candidate index_drift context_over_cap bad_frontmatter source_modified source_deleted contradiction stale_claim unsupported_claim gap)"`
	Path             string           `json:"path,omitempty" jsonschema:"only findings about files whose path starts with this, like pages/electron- or context.md"`
	Limit            int              `json:"limit,omitempty" jsonschema:"most findings to return (default 50; at most 500); errors come first"`
	Offset           int              `json:"offset,omitempty" jsonschema:"findings to skip (for the next page of results)"`
	IncludeDismissed bool             `json:"include_dismissed,omitempty" jsonschema:"also return findings a person dismissed (marked dismissed)"`
	Submit           []LintSubmission `json:"submit,omitempty" jsonschema:"findings you found by reading, each with verbatim quotes; the server checks every quote against the file and stores the finding as verified or unverified"`
	Dismiss          []string         `json:"dismiss,omitempty" jsonschema:"ids of findings the person decided to leave as they are; they are not reported again until their evidence changes"`
	Reason           string           `json:"reason,omitempty" jsonschema:"why the findings in dismiss are dismissed, in the person's words"`
	Undismiss        []string         `json:"undismiss,omitempty" jsonschema:"ids of dismissed findings to report again"`
}

// LintFindingsOutput is one page of findings and the totals.
type LintFindingsOutput struct {
	Findings []lint.Finding `json:"findings" jsonschema:"findings sorted by severity (error, warning, info), category, file and line"`
	// Total is the number of findings matching; NextOffset is set when more follow.
	Total      int `json:"total" jsonschema:"how many findings match in all"`
	NextOffset int `json:"next_offset,omitempty" jsonschema:"offset of the next page of findings; absent on the last page"`
	// Counts and severities are over every reported finding.
	Counts     map[string]int `json:"counts" jsonschema:"reported findings per category"`
	Errors     int            `json:"errors"`
	Warnings   int            `json:"warnings"`
	Infos      int            `json:"infos"`
	Dismissed  int            `json:"dismissed" jsonschema:"findings not shown because a person dismissed them and their evidence has not changed"`
	Unverified int            `json:"unverified" jsonschema:"submitted findings whose quotes were not all found: claims, not facts"`
	Pages      int            `json:"pages" jsonschema:"pages checked"`
	// Skipped counts the files under pages/ not checked.
	Skipped         map[string]int      `json:"skipped,omitempty" jsonschema:"files under pages/ not checked, counted by reason (not a regular file: a FIFO, socket or device, which is never opened; validate_structure names them)"`
	SkippedExamples map[string][]string `json:"skipped_examples,omitempty" jsonschema:"a few paths of each skipped reason"`
	Disabled        []string            `json:"disabled,omitempty" jsonschema:"categories schema.md turns off (lint_disabled)"`
	Problems        []string            `json:"problems,omitempty" jsonschema:"lint settings in schema.md that could not be used"`
	Submitted       []lint.Finding      `json:"submitted,omitempty" jsonschema:"the findings you submitted, as checked: each quote with verified and line, and the finding's verified"`
	// DismissedIDs are the ids dismissed by this call.
	DismissedIDs []string `json:"dismissed_ids,omitempty" jsonschema:"ids this call dismissed"`
	Notes
}

// LintFindings returns the lint_findings tool.
func LintFindings(d Deps) Tool {
	return newTool(d, "lint_findings", "lint", "Lint findings",
		"Check the wiki's health and list findings, each with kind, severity, file, line, message and a suggested action: dangling links, missing embeds and headings, ambiguous links, orphan pages, pages without sources, missing frontmatter, stale pages, duplicate titles or aliases, near-duplicate pages, index drift, context.md over its cap, bad frontmatter, sources changed or deleted outside llmwiki. Submit contradictions, stale or unsupported claims and gaps you found by reading, with verbatim quotes: the server checks every quote against the file and marks findings it cannot prove verified: false. Dismiss findings a person wants left alone. Findings are kept in the server's state (.llmwiki/lint/), never in the wiki.",
		readOnlyHints,
		func(ctx context.Context, in LintFindingsInput) (LintFindingsOutput, error) {
			var out LintFindingsOutput
			if in.Limit < 0 || in.Offset < 0 {
				return out, wiki.Errorf(wiki.CodeInvalid, "limit and offset must not be negative")
			}
			limit := in.Limit
			if limit == 0 {
				limit = 50
			}
			limit = min(limit, 500)
			by := ""
			if c := wiki.CallFrom(ctx); c != nil {
				by = c.Client
				if by == "" {
					by = c.Session
				}
			}
			if len(in.Submit) > 0 {
				ps := make([]lint.Proposal, len(in.Submit))
				for i, s := range in.Submit {
					p := lint.Proposal{Kind: s.Kind, File: s.File, Message: s.Message, Action: s.Action}
					for _, q := range s.Evidence {
						p.Evidence = append(p.Evidence, lint.Quote{File: q.File, Quote: q.Quote})
					}
					ps[i] = p
				}
				fs, err := lint.Submit(ctx, d.Store, "agent", by, ps)
				if err != nil {
					return out, err
				}
				out.Submitted = fs
			}
			if len(in.Dismiss) > 0 {
				fs, err := lint.Dismiss(ctx, d.Store, in.Dismiss, in.Reason, by)
				if err != nil {
					return out, err
				}
				for _, f := range fs {
					out.DismissedIDs = append(out.DismissedIDs, f.ID)
				}
			}
			if len(in.Undismiss) > 0 {
				if _, err := lint.Undismiss(ctx, d.Store, in.Undismiss); err != nil {
					return out, err
				}
			}
			rep, err := lint.Run(ctx, d.Store, lint.Options{Categories: in.Categories, Prefix: in.Path, IncludeDismissed: in.IncludeDismissed})
			if err != nil {
				return out, err
			}
			out.Total = len(rep.Findings)
			out.Findings = []lint.Finding{}
			if in.Offset < len(rep.Findings) {
				end := min(in.Offset+limit, len(rep.Findings))
				out.Findings = rep.Findings[in.Offset:end]
				if end < len(rep.Findings) {
					out.NextOffset = end
				}
			}
			out.Counts, out.Errors, out.Warnings, out.Infos = rep.Counts, rep.Errors, rep.Warnings, rep.Infos
			out.Dismissed, out.Unverified, out.Pages = rep.Dismissed, rep.Unverified, rep.Pages
			out.Disabled, out.Problems = rep.Disabled, rep.Problems
			out.Skipped, out.SkippedExamples = rep.Skipped, rep.SkippedExamples
			wiki.CallFrom(ctx).SetExtra("findings", out.Total)
			return out, nil
		})
}
