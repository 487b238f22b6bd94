package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// LintFindingsInput selects findings.
type LintFindingsInput struct {
	Categories       []string `json:"categories,omitempty" jsonschema:"only these categories; default every category schema.md does not turn off (dangling_link missing_embed missing_heading ambiguous_link orphan_page page_without_sources missing_source missing_frontmatter stale_page duplicate_title duplicate_alias merge_candidate index_drift context_over_cap bad_frontmatter source_modified source_deleted contradiction stale_claim unsupported_claim gap)"`
	Path             string   `json:"path,omitempty" jsonschema:"only findings about files whose path starts with this, like pages/electron- or context.md"`
	Limit            int      `json:"limit,omitempty" jsonschema:"most findings to return (default 50; at most 500); errors come first"`
	Offset           int      `json:"offset,omitempty" jsonschema:"findings to skip (for the next page of results)"`
	IncludeDismissed bool     `json:"include_dismissed,omitempty" jsonschema:"also return findings a person dismissed (marked dismissed)"`
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
	Notes
}

// LintFindings returns the lint_findings tool.
func LintFindings(d Deps) Tool {
	return newTool(d, "lint_findings", "lint", "Lint findings",
		"Check the wiki's health and list findings, each with kind, severity, file, line, message and a suggested action: dangling links, missing embeds and headings, ambiguous links, orphan pages, pages without sources, missing frontmatter, stale pages, duplicate titles or aliases, near-duplicate pages, index drift, context.md over its cap, bad frontmatter, sources changed or deleted outside llmwiki. It also reports the contradictions, stale or unsupported claims and gaps submitted with submit_lint_findings, each quote checked again against the file as it is now (verified: false when it is not found), and leaves out findings dismissed with dismiss_lint_findings. Read-only: it writes nothing.",
		readOnlyHints,
		func(ctx context.Context, in LintFindingsInput) (LintFindingsOutput, error) {
			var out LintFindingsOutput
			if in.Limit < 0 || in.Offset < 0 {
				return out, store.Errorf(store.CodeInvalid, "limit and offset must not be negative")
			}
			limit := in.Limit
			if limit == 0 {
				limit = 50
			}
			limit = min(limit, 500)
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
			store.CallFrom(ctx).SetExtra("findings", out.Total)
			return out, nil
		})
}
