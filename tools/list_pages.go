package tools

import (
	"context"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
)

// ListPagesInput filters and pages the catalogue.
type ListPagesInput struct {
	Tag    string `json:"tag,omitempty" jsonschema:"only pages with this tag"`
	Prefix string `json:"prefix,omitempty" jsonschema:"only pages whose path under pages/ starts with this (a folder like en/Plugins or a slug prefix)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most pages to return (default 100; at most 500)"`
	Offset int    `json:"offset,omitempty" jsonschema:"pages to skip (for the next page of results)"`
}

// ListPagesOutput is one page of the catalogue.
type ListPagesOutput struct {
	Pages []wiki.PageInfo `json:"pages" jsonschema:"pages sorted by path"`
	// Total matching pages; NextOffset is set when more follow.
	Total      int `json:"total" jsonschema:"how many pages match in all"`
	NextOffset int `json:"next_offset,omitempty" jsonschema:"offset of the next page of results; absent on the last page"`
	Notes
}

// ListPages returns the list_pages tool.
func ListPages(d Deps) Tool {
	return newTool(d, "list_pages", "core", "List pages",
		"List wiki pages with title, summary, tags and updated time, filtered by tag or path prefix, a page of results at a time. Use it to browse; use search_wiki to answer a question.",
		readOnlyHints,
		func(ctx context.Context, in ListPagesInput) (ListPagesOutput, error) {
			var out ListPagesOutput
			if in.Limit < 0 || in.Offset < 0 {
				return out, wiki.Errorf(wiki.CodeInvalid, "limit and offset must not be negative")
			}
			limit := in.Limit
			if limit == 0 {
				limit = 100
			}
			if limit > 500 {
				limit = 500
			}
			pages, err := d.Store.Pages()
			if err != nil {
				return out, err
			}
			tag := strings.TrimPrefix(strings.ToLower(in.Tag), "#")
			prefix := strings.TrimPrefix(strings.TrimPrefix(in.Prefix, "pages/"), "/")
			var match []wiki.PageInfo
			for _, p := range pages {
				if prefix != "" && !strings.HasPrefix(strings.ToLower(p.Slug), strings.ToLower(prefix)) {
					continue
				}
				if tag != "" && !hasTag(p.Tags, tag) {
					continue
				}
				match = append(match, p)
			}
			out.Total = len(match)
			out.Pages = []wiki.PageInfo{}
			if in.Offset < len(match) {
				end := min(in.Offset+limit, len(match))
				out.Pages = match[in.Offset:end]
				if end < len(match) {
					out.NextOffset = end
				}
			}
			return out, nil
		})
}

func hasTag(tags []string, tag string) bool {
	for _, t := range tags {
		if strings.EqualFold(strings.TrimPrefix(t, "#"), tag) {
			return true
		}
	}
	return false
}
