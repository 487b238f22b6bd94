package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
)

// SaveSourceInput is a new raw source.
type SaveSourceInput struct {
	Path     string `json:"path" jsonschema:"where to save it under sources/, like sources/articles/x.md"`
	Content  string `json:"content" jsonschema:"the file's text, or its bytes in base64 when encoding is base64"`
	Encoding string `json:"encoding,omitempty" jsonschema:"text (default) or base64 for binary files,enum=text,enum=base64"`
}

// SaveSourceOutput reports the write.
type SaveSourceOutput struct {
	wiki.SourceWrite
	Notes
}

// SaveSource returns the save_source tool.
func SaveSource(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "save_source", Toolset: "sources", Title: "Save source",
		Description: "Add a new raw document under sources/ exactly as given. Sources are immutable: an existing path is refused, never overwritten. After saving, gather_sources lists it as pending until a build folds it into context.md.",
		Hints:       hints{},
	},
		func(ctx context.Context, in SaveSourceInput) (SaveSourceOutput, error) {
			w, err := d.Store.SaveSource(ctx, wiki.SourceInput{Path: in.Path, Content: in.Content, Encoding: in.Encoding})
			return SaveSourceOutput{SourceWrite: w}, err
		})
}
