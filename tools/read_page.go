package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// ReadPageInput names the file to read.
type ReadPageInput struct {
	Path     string `json:"path,omitempty" jsonschema:"project-relative path such as pages/topic.md or sources/notes.md or context.md or index.md; give this or page"`
	Page     string `json:"page,omitempty" jsonschema:"a page by slug, title or alias (case and separators do not matter); give this or path"`
	FromLine int    `json:"from_line,omitempty" jsonschema:"first line to return (1-based line of the whole file); use with to_line for long files"`
	ToLine   int    `json:"to_line,omitempty" jsonschema:"last line to return (inclusive)"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"most characters to return (default 60000; at most 400000)"`
}

// ReadPageOutput is the file's content and metadata.
type ReadPageOutput struct {
	wiki.FileContent
	// Backlinks are the links into the file from pages, index.md and
	// context.md (up to MaxBacklinks); BacklinksTotal counts them all.
	Backlinks      []links.Backlink `json:"backlinks" jsonschema:"links into this file from pages, index.md, context.md and guidelines.md: the linking file, line and link as written (an empty list means nothing links here)"`
	BacklinksTotal int              `json:"backlinks_total" jsonschema:"how many links lead here in all"`
	Notes
}

// MaxBacklinks is the most backlinks read_page returns.
const MaxBacklinks = 200

// ReadPage returns the read_page tool.
func ReadPage(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "read_page", Toolset: "core", Title: "Read page",
		Description: "Read one file of the wiki: a page (by path, or by slug or title as page), a source, context.md, index.md, schema.md, guidelines.md or log.md. Returns frontmatter, content, sha256 (pass it as base_sha256 when you update the page) and backlinks (the files that link here). Long files come in parts: read on from next_from_line. Binary files are described, not shown. Use search_wiki first when you do not know which page answers a question.",
		Hints:       readOnlyHints,
	},
		func(ctx context.Context, in ReadPageInput) (ReadPageOutput, error) {
			fc, err := d.Store.Read(ctx, wiki.ReadInput{Path: in.Path, Page: in.Page, FromLine: in.FromLine, ToLine: in.ToLine, MaxChars: in.MaxChars})
			if err != nil {
				return ReadPageOutput{}, err
			}
			out := ReadPageOutput{FileContent: fc, Backlinks: []links.Backlink{}}
			v, err := d.Links.View(ctx)
			if err != nil {
				store.CallFrom(ctx).AddWarning("backlinks unavailable: " + store.PublicMessage(err))
				return out, nil
			}
			bl := v.Backlinks(fc.Path)
			out.BacklinksTotal = len(bl)
			out.Backlinks = append(out.Backlinks, bl[:min(len(bl), MaxBacklinks)]...)
			return out, nil
		})
}
