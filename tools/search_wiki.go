package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/search"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// SearchWikiInput is one search.
type SearchWikiInput struct {
	Query  string `json:"query" jsonschema:"the words to look for as plain text in any language; nothing in it is an operator (C++ / --dry-run / a:b / quotes are searched as written)"`
	Match  string `json:"match,omitempty" jsonschema:"best (default): pages matching more of the words rank higher and very common words are left out; all: every word must match; any: any word; phrase: the words in this order next to each other,enum=best,enum=all,enum=any,enum=phrase"`
	Scope  string `json:"scope,omitempty" jsonschema:"pages (default); sources; context (context.md); all,enum=pages,enum=sources,enum=context,enum=all"`
	Tag    string `json:"tag,omitempty" jsonschema:"only files with this frontmatter tag"`
	Prefix string `json:"prefix,omitempty" jsonschema:"only files whose path starts with this (pages/en/ or sources/papers; pages/ may be left out)"`
	Lang   string `json:"lang,omitempty" jsonschema:"only files in this language (en / de / ja / pt-br ...)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most hits to return (default 10; at most 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor from the previous call with the same query and filters, for the next page of hits"`
}

// SearchWikiOutput is the ranked hits and the index's health.
type SearchWikiOutput struct {
	search.Result
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the next page of hits; absent on the last page"`
	Notes
}

// SearchWiki returns the search_wiki tool.
func SearchWiki(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "search_wiki", Toolset: "core", Title: "Search the wiki",
		Description: "Ranked full-text search (BM25) over pages (default), sources or context.md: the first step to answer any question from the wiki. Give plain words in any language; hits come best first with a snippet centred on the best match (matches in **bold**), the heading it sits under, its line, and the code listing the matched text introduces. Read a hit with read_page. index.state says whether the index is ready, building, stale or failed; when it is not ready, results may be incomplete.",
		Hints:       readOnlyHints,
	},
		func(ctx context.Context, in SearchWikiInput) (SearchWikiOutput, error) {
			var out SearchWikiOutput
			if d.Search == nil {
				return out, store.Errorf(store.CodeInternal, "this server runs without a search index; use list_pages and read_page")
			}
			offset, err := CursorOffset(in.Cursor)
			if err != nil {
				return out, err
			}
			res, err := d.Search.Search(ctx, search.Query{
				Text: in.Query, Match: in.Match, Scope: in.Scope, Tag: in.Tag,
				Prefix: in.Prefix, Lang: in.Lang, Limit: in.Limit, Offset: offset,
			})
			out.Result = res
			out.NextCursor = NextCursor(res.NextOffset)
			if err == nil {
				store.CallFrom(ctx).SetExtra("hits", len(res.Hits))
				store.CallFrom(ctx).SetExtra("total", res.Total)
			}
			return out, err
		})
}
