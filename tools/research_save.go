package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
)

// ResearchSaveInput is one research section.
type ResearchSaveInput struct {
	Topic   string   `json:"topic" jsonschema:"what the research is about; names the note sources/research/<slug>.md"`
	Content string   `json:"content" jsonschema:"the findings in markdown"`
	Heading string   `json:"heading,omitempty" jsonschema:"a short title for this section (the date is added)"`
	URLs    []string `json:"urls,omitempty" jsonschema:"http(s) addresses consulted"`
}

// ResearchSaveOutput reports the write.
type ResearchSaveOutput struct {
	wiki.ResearchWrite
	Reviewed
	Notes
}

// ResearchSave returns the research_save tool.
func ResearchSave(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "research_save", Toolset: "sources", Title: "Save research",
		Description: "Save research findings as a dated section of sources/research/<topic-slug>.md, creating the note on first use. It only appends: earlier sections are never changed. Record the URLs you used.",
		Hints:       hints{},
	},
		func(ctx context.Context, in ResearchSaveInput) (ResearchSaveOutput, error) {
			w, err := d.Store.ResearchSave(ctx, wiki.ResearchInput{Topic: in.Topic, Heading: in.Heading, Content: in.Content, URLs: in.URLs})
			return ResearchSaveOutput{ResearchWrite: w}, err
		})
}
