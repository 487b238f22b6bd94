package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/edit"
)

// MovePageInput names a page and its new name.
type MovePageInput struct {
	Page       string `json:"page" jsonschema:"the page to rename: its path (pages/x.md), slug or title"`
	Slug       string `json:"slug" jsonschema:"the new name: a slug (new-name) or a path under pages/ (guides/new-name)"`
	BaseSHA256 string `json:"base_sha256,omitempty" jsonschema:"sha256 of the version you read; when given, a page changed since is a conflict"`
}

// MovePageOutput reports the move.
type MovePageOutput struct {
	edit.MoveResult
	Reviewed
	Notes
}

// MovePage returns the move_page tool.
func MovePage(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "move_page", Toolset: "pages", Title: "Move page",
		Description: "Rename a page and rewrite every link to it across the wiki (pages, index.md, context.md), keeping each link's shown text, heading and block reference. All files change or none: on any failure nothing is written. Links in log.md and sources/ are history and are left as they were. Use it instead of write_page plus deleting, which would leave dangling links.",
		Hints:       hints{destructive: true},
	},
		func(ctx context.Context, in MovePageInput) (MovePageOutput, error) {
			r, err := edit.Move(ctx, d.Store, d.Links, edit.MoveInput{From: in.Page, To: in.Slug, BaseSHA256: in.BaseSHA256})
			return MovePageOutput{MoveResult: r}, err
		})
}
