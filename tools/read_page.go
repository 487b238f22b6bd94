package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
)

// ReadPageInput names the file to read.
type ReadPageInput struct {
	Path     string `json:"path,omitempty" jsonschema:"project-relative path such as pages/topic.md or sources/notes.md or context.md or index.md; give this or slug"`
	Slug     string `json:"slug,omitempty" jsonschema:"a page's slug or title (case and separators do not matter); give this or path"`
	FromLine int    `json:"from_line,omitempty" jsonschema:"first line to return (1-based line of the whole file); use with to_line for long files"`
	ToLine   int    `json:"to_line,omitempty" jsonschema:"last line to return (inclusive)"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"most characters to return (default 60000; at most 400000)"`
}

// ReadPageOutput is the file's content and metadata.
type ReadPageOutput struct {
	wiki.FileContent
	Notes
}

// ReadPage returns the read_page tool.
func ReadPage(d Deps) Tool {
	return newTool(d, "read_page", "core", "Read page",
		"Read one file of the wiki: a page (by path or slug), a source, context.md, index.md, schema.md, guidelines.md or log.md. Returns frontmatter, body and sha256 (pass it as base_sha256 when you update the page). Long files come in parts: read on from next_from_line. Binary files are described, not shown. Use search_wiki first when you do not know which page answers a question.",
		readOnlyHints,
		func(ctx context.Context, in ReadPageInput) (ReadPageOutput, error) {
			fc, err := d.Store.Read(ctx, wiki.ReadInput{Path: in.Path, Slug: in.Slug, FromLine: in.FromLine, ToLine: in.ToLine, MaxChars: in.MaxChars})
			return ReadPageOutput{FileContent: fc}, err
		})
}
