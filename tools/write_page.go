package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// WritePageInput is a page to create or update.
type WritePageInput struct {
	Title      string         `json:"title" jsonschema:"the page title; the slug is derived from it unless slug is given"`
	Content    string         `json:"content" jsonschema:"the markdown after the frontmatter: definition first, then substance, then a Related section with wikilinks"`
	Slug       string         `json:"slug,omitempty" jsonschema:"the page name, lowercase words joined by -; a page in a folder under pages/ is folder/name (en/plugins/graph-view); case and separators are folded"`
	Summary    string         `json:"summary,omitempty" jsonschema:"one line for index.md; kept from the old version when omitted"`
	Tags       []string       `json:"tags,omitempty" jsonschema:"one-word tags; omitted keeps the old ones and an empty list clears them"`
	Aliases    []string       `json:"aliases,omitempty" jsonschema:"other names links may use for this page"`
	Sources    []string       `json:"sources,omitempty" jsonschema:"paths under sources/ or http(s) URLs the page is based on"`
	Extra      map[string]any `json:"extra,omitempty" jsonschema:"other frontmatter keys to set (null removes one)"`
	BaseSHA256 string         `json:"base_sha256,omitempty" jsonschema:"sha256 of the version you read (read_page); required to update an existing page, omit to create"`
}

// WritePageOutput reports the write.
type WritePageOutput struct {
	wiki.PageWrite
	UnresolvedLinks []links.Unresolved `json:"unresolved_links,omitempty" jsonschema:"wikilinks in the page that lead to no file, each with the existing page it probably meant; the page is written all the same"`
	Reviewed
	Notes
}

// WritePage returns the write_page tool.
func WritePage(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "write_page", Toolset: "pages", Title: "Write page",
		Description: "Create a wiki page from its title and markdown content (omit base_sha256), or replace one you have read (pass its sha256 as base_sha256; a stale value is a conflict, never a silent overwrite). The server writes the frontmatter (created/updated set for you), snapshots the old version and keeps index.md in step. Names differing only by case, separators or accents are the same page.",
		Hints:       hints{destructive: true},
	},
		func(ctx context.Context, in WritePageInput) (WritePageOutput, error) {
			w, err := d.Store.WritePage(ctx, wiki.PageInput{Title: in.Title, Slug: in.Slug, Summary: in.Summary, Tags: in.Tags, Aliases: in.Aliases, Sources: in.Sources, Extra: in.Extra, Content: in.Content, BaseSHA256: in.BaseSHA256})
			if err != nil {
				return WritePageOutput{}, err
			}
			return WritePageOutput{PageWrite: w, UnresolvedLinks: unresolvedLinks(ctx, d, w.Path, nil)}, nil
		})
}

// unresolvedLinks returns the wikilinks of the page rel, just written, that
// lead to no file, less those in before (its links before the write), and
// adds each as a warning sentence. A link graph that cannot be read is a
// warning too: the write itself succeeded.
func unresolvedLinks(ctx context.Context, d Deps, rel string, before []links.Resolved) []links.Unresolved {
	if d.Links.Walking() {
		// The write does not wait for the graph's first walk of every file.
		store.CallFrom(ctx).AddWarning("links not checked: the link graph is still reading the wiki for the first time; lint_findings checks them")
		return nil
	}
	v, err := d.Links.View(ctx)
	if err != nil {
		store.CallFrom(ctx).AddWarning("links not checked: " + store.PublicMessage(err))
		return nil
	}
	us := v.UnresolvedLinks(rel, before)
	for _, u := range us {
		store.CallFrom(ctx).AddWarning(u.Message())
	}
	return us
}

// linksBefore returns the links the page name has now, for
// [unresolvedLinks] after a change to it; nil when it cannot tell.
func linksBefore(ctx context.Context, d Deps, name string) []links.Resolved {
	if d.Links.Walking() {
		return nil // unresolvedLinks will not check either
	}
	rel, err := d.Store.ResolvePage(name)
	if err != nil {
		return nil
	}
	v, err := d.Links.View(ctx)
	if err != nil {
		return nil
	}
	return v.Links(rel)
}
