package tools

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// ListPagesInput filters and pages the catalogue.
type ListPagesInput struct {
	Tag    string `json:"tag,omitempty" jsonschema:"only pages with this tag"`
	Prefix string `json:"prefix,omitempty" jsonschema:"only pages whose path under pages/ starts with this (a folder like en/Plugins or a slug prefix)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most pages to return (default 100; at most 500)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor from the previous call with the same filters, for the next page of results"`
}

// ListPagesOutput is one page of the catalogue.
type ListPagesOutput struct {
	Pages []wiki.PageInfo `json:"pages" jsonschema:"pages sorted by path"`
	// Total matching pages; NextCursor is set when more follow.
	Total      int    `json:"total" jsonschema:"how many pages match in all"`
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the next page of results; absent on the last page"`
	// Skipped counts the files under pages/ left out of the catalogue.
	Skipped         map[string]int      `json:"skipped,omitempty" jsonschema:"files under pages/ left out of the list, counted by reason (not a regular file: a FIFO, socket or device, which is never opened; validate_structure names them)"`
	SkippedExamples map[string][]string `json:"skipped_examples,omitempty" jsonschema:"a few paths of each skipped reason"`
	Notes
}

// ListPages returns the list_pages tool.
func ListPages(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "list_pages", Toolset: "core", Title: "List pages",
		Description: "List wiki pages with title, summary, tags and updated time, filtered by tag or path prefix, a page of results at a time. Use it to browse; use search_wiki to answer a question.",
		Hints:       readOnlyHints,
	},
		func(ctx context.Context, in ListPagesInput) (ListPagesOutput, error) {
			var out ListPagesOutput
			if in.Limit < 0 {
				return out, store.Errorf(store.CodeInvalid, "limit must not be negative")
			}
			offset, err := CursorOffset(in.Cursor)
			if err != nil {
				return out, err
			}
			limit := in.Limit
			if limit == 0 {
				limit = 100
			}
			if limit > 500 {
				limit = 500
			}
			// The catalogue's shared slice, read only: the page of results
			// is copied out of it, not every entry.
			pages, err := d.Store.PagesShared(ctx)
			if err != nil {
				return out, err
			}
			tag := strings.TrimPrefix(strings.ToLower(in.Tag), "#")
			prefix := []rune(strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(in.Prefix, "pages/"), "/")))
			out.Pages = []wiki.PageInfo{}
			for _, p := range pages {
				if !hasPrefixFold(p.Slug, prefix) || (tag != "" && !hasTag(p.Tags, tag)) {
					continue
				}
				if out.Total >= offset && len(out.Pages) < limit {
					if p.Updated == "" && !p.ModTime().IsZero() {
						p.Updated = p.ModTime().UTC().Format(time.RFC3339) // p is a copy
					}
					out.Pages = append(out.Pages, p)
				} else if len(out.Pages) == limit && out.NextCursor == "" {
					out.NextCursor = NextCursor(out.Total)
				}
				out.Total++
			}
			out.Skipped, out.SkippedExamples = d.Store.PagesSkipped()
			return out, nil
		})
}

// hasPrefixFold reports whether strings.ToLower(s) starts with lowPrefix
// (runes already lower case), without making the lower-case copy of s.
func hasPrefixFold(s string, lowPrefix []rune) bool {
	i := 0
	for _, r := range s {
		if i == len(lowPrefix) {
			return true
		}
		if unicode.ToLower(r) != lowPrefix[i] {
			return false
		}
		i++
	}
	return i == len(lowPrefix)
}

func hasTag(tags []string, tag string) bool {
	for _, t := range tags {
		if strings.EqualFold(strings.TrimPrefix(t, "#"), tag) {
			return true
		}
	}
	return false
}
