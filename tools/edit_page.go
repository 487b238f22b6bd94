package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/edit"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// EditPageInput is one targeted edit of a page.
type EditPageInput struct {
	Page        string         `json:"page" jsonschema:"the page: its path (pages/x.md), slug or title"`
	BaseSHA256  string         `json:"base_sha256" jsonschema:"sha256 of the version you read (read_page); a page changed since is a conflict and nothing is written"`
	Op          string         `json:"op" jsonschema:"append: add content at the end of the section under heading (created at the end of the page if missing); replace: replace that section's content (its heading stays); insert_before: insert content before the heading; insert_after: insert content after the section; add_links: list links under ## Related; find_replace: replace find with replace exactly count times; frontmatter: only merge frontmatter,enum=append,enum=replace,enum=insert_before,enum=insert_after,enum=add_links,enum=find_replace,enum=frontmatter"`
	Heading     string         `json:"heading,omitempty" jsonschema:"the section for append/replace/insert_before/insert_after: its heading text (Setup) or with its level (## Setup)"`
	Content     string         `json:"content,omitempty" jsonschema:"the markdown to add or to put in place (for insert_before/insert_after usually a new section with its own heading)"`
	Links       []string       `json:"links,omitempty" jsonschema:"add_links: pages to list, by slug, title or path, optionally with shown text after |; each must exist"`
	Find        string         `json:"find,omitempty" jsonschema:"find_replace: the exact text to replace"`
	Replace     string         `json:"replace,omitempty" jsonschema:"find_replace: the text to put in its place"`
	Count       int            `json:"count,omitempty" jsonschema:"find_replace: how many times find occurs in the body; any other number is an error and nothing is written"`
	Frontmatter map[string]any `json:"frontmatter,omitempty" jsonschema:"frontmatter keys to set with any op (null removes a key): title, summary, tags, aliases, sources or your own; created and updated are the server's"`
}

// EditPageOutput reports the edit.
type EditPageOutput struct {
	edit.Result
	UnresolvedLinks []links.Unresolved `json:"unresolved_links,omitempty" jsonschema:"wikilinks the edit added that lead to no file, each with the existing page it probably meant; the edit is written all the same"`
	Reviewed
	Notes
}

// EditPage returns the edit_page tool.
func EditPage(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "edit_page", Toolset: "pages", Title: "Edit page",
		Description: "Make a targeted change to a page you have read, without resending it: append to, replace, or insert before or after a section by its heading; add links under ## Related; find-and-replace text a stated number of times; merge frontmatter keys. Pass the sha256 read_page gave you as base_sha256: if the page changed since, nothing is written. The server snapshots the old version, sets updated and keeps index.md in step. Use write_page to rewrite a whole page.",
		Hints:       hints{destructive: true},
	},
		func(ctx context.Context, in EditPageInput) (EditPageOutput, error) {
			before := linksBefore(ctx, d, in.Page)
			r, err := edit.Edit(ctx, d.Store, d.Links, edit.Input{Page: in.Page, BaseSHA256: in.BaseSHA256, Op: in.Op, Heading: in.Heading, Content: in.Content,
				Links: in.Links, Find: in.Find, Replace: in.Replace, Count: in.Count, Frontmatter: in.Frontmatter})
			if err != nil {
				return EditPageOutput{}, err
			}
			if !r.Changed {
				store.CallFrom(ctx).AddWarning("nothing changed: " + r.Done)
			}
			out := EditPageOutput{Result: r}
			if r.Changed {
				out.UnresolvedLinks = unresolvedLinks(ctx, d, r.Path, before)
			}
			return out, nil
		})
}
