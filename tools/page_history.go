package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// PageHistoryInput names the page whose versions to list.
type PageHistoryInput struct {
	Page   string `json:"page,omitempty" jsonschema:"a page by slug, title or alias (case and separators do not matter); give this or path"`
	Path   string `json:"path,omitempty" jsonschema:"a file: pages/x.md (also a page that was moved away or deleted), context.md or guidelines.md; give this or page"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most versions to return, newest first (default 20, at most 100)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor from the previous call with the same page or path, to continue the list"`
}

// PageHistoryOutput lists a page's versions.
type PageHistoryOutput struct {
	git.History
	Notes
}

// PageHistory returns the page_history tool.
func PageHistory(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "page_history", Toolset: "pages", Title: "Page history",
		Description: "List the versions of a page (or context.md), newest first: with git on, its commits (when, author and client, the tool and log line, short hash, lines added and removed), following moves to its older names; with git off, its stored snapshots and the file as it is now. Read a version with read_page (at: the commit or snapshot) and bring it back with restore_snapshot (commit or snapshot).",
		Hints:       readOnlyHints,
	},
		func(ctx context.Context, in PageHistoryInput) (PageHistoryOutput, error) {
			if d.Git == nil && d.Store.Settings().Git != wiki.GitOff {
				store.CallFrom(ctx).AddWarning("git is on in schema.md but the wiki's repository could not be opened (see llmwiki status); these are the stored snapshots")
			}
			h, err := git.PageHistory(ctx, d.Store, d.Git, git.HistoryQuery{Page: in.Page, Path: in.Path, Limit: in.Limit, Cursor: in.Cursor})
			if err != nil {
				return PageHistoryOutput{}, err
			}
			return PageHistoryOutput{History: h}, nil
		})
}
