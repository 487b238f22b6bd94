package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// LintFindingsInput selects findings.
type LintFindingsInput struct {
	Categories       []string `json:"categories,omitempty" jsonschema:"only these categories; default every category schema.md does not turn off (dangling_link missing_embed missing_heading ambiguous_link orphan_page page_without_sources missing_source missing_frontmatter stale_page duplicate_title duplicate_alias merge_candidate index_drift context_over_cap bad_frontmatter source_modified source_deleted sync_conflict contradiction stale_claim unsupported_claim gap)"`
	Path             string   `json:"path,omitempty" jsonschema:"only findings about files whose path starts with this, like pages/electron- or context.md"`
	Limit            int      `json:"limit,omitempty" jsonschema:"most findings to return (default 50; at most 500); errors come first"`
	Cursor           string   `json:"cursor,omitempty" jsonschema:"next_cursor from the previous call with the same filters, for the next page of findings"`
	IncludeDismissed bool     `json:"include_dismissed,omitempty" jsonschema:"also return findings a person dismissed (marked dismissed)"`
}

// LintFindingsOutput is one page of findings and the totals.
type LintFindingsOutput struct {
	Findings []lint.Finding `json:"findings" jsonschema:"findings sorted by severity (error, warning, info), category, file and line"`
	// Total is the number of findings matching; NextCursor is set when more follow.
	Total      int    `json:"total" jsonschema:"how many findings match in all"`
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the next page of findings; absent on the last page"`
	// Counts and Severities are over every reported finding.
	Counts     map[string]int `json:"counts" jsonschema:"reported findings per category"`
	Severities SeverityCounts `json:"severities" jsonschema:"reported findings per severity"`
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

// SeverityCounts counts findings by severity.
type SeverityCounts struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Info    int `json:"info"`
}

// LintFindings returns the lint_findings tool.
func LintFindings(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "lint_findings", Toolset: "lint", Title: "Lint findings",
		Description: "Check the wiki's health and list findings, each with kind, severity, path, line, message and a suggested action: dangling links, missing embeds and headings, ambiguous links, orphan pages, pages without sources, missing frontmatter, stale pages, duplicate titles or aliases, near-duplicate pages, index drift, context.md over its cap, bad frontmatter, sources changed or deleted outside llmwiki. It also reports the contradictions, stale or unsupported claims and gaps submitted with submit_lint_findings, each quote checked again against the file as it is now (verified: false when it is not found), and leaves out findings dismissed with dismiss_lint_findings. Read-only: it writes nothing.",
		Hints:       readOnlyHints,
	},
		func(ctx context.Context, in LintFindingsInput) (LintFindingsOutput, error) {
			var out LintFindingsOutput
			if in.Limit < 0 {
				return out, store.Errorf(store.CodeInvalid, "limit must not be negative")
			}
			offset, err := CursorOffset(in.Cursor)
			if err != nil {
				return out, err
			}
			limit := in.Limit
			if limit == 0 {
				limit = 50
			}
			limit = min(limit, 500)
			if err := d.Store.FlushIndex(ctx); err != nil { // else a pending regeneration reads as drift
				store.CallFrom(ctx).AddWarning("index.md may not list the latest pages: " + store.PublicMessage(err))
			}
			rep, err := lint.Run(ctx, d.Store, d.Links, lint.Options{Categories: in.Categories, Prefix: in.Path, IncludeDismissed: in.IncludeDismissed})
			if err != nil {
				return out, err
			}
			out.Total = len(rep.Findings)
			out.Findings = []lint.Finding{}
			if offset < len(rep.Findings) {
				end := min(offset+limit, len(rep.Findings))
				out.Findings = rep.Findings[offset:end]
				if end < len(rep.Findings) {
					out.NextCursor = NextCursor(end)
				}
			}
			out.Counts = rep.Counts
			out.Severities = SeverityCounts(rep.Severities)
			out.Dismissed, out.Unverified, out.Pages = rep.Dismissed, rep.Unverified, rep.Pages
			out.Disabled, out.Problems = rep.Disabled, rep.Problems
			out.Skipped, out.SkippedExamples = rep.Skipped, rep.SkippedExamples
			store.CallFrom(ctx).SetExtra("findings", out.Total)
			return out, nil
		})
}
