package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/eval"
)

// FileAnswerCitation is one piece of evidence for an answer.
type FileAnswerCitation struct {
	Path  string `json:"path" jsonschema:"the file the quote comes from, as read_page returned it (pages/x.md, sources/a.md, context.md); a page slug also works"`
	Quote string `json:"quote" jsonschema:"8 to 300 characters copied exactly from that file (case, spacing, line breaks, curly quotes and markdown markers are ignored; the words are not)"`
}

// FileAnswerInput is an answer to record.
type FileAnswerInput struct {
	Question  string               `json:"question" jsonschema:"the person's question, as they asked it"`
	Answer    string               `json:"answer" jsonschema:"the answer you are about to give"`
	Citations []FileAnswerCitation `json:"citations,omitempty" jsonschema:"the evidence for the answer: one entry per claim, each a file and a verbatim quote from it (at most 50)"`
	Topic     string               `json:"topic,omitempty" jsonschema:"the subject in a few words, as a page title would name it (sync conflicts); eval uses it to find topics asked again and again"`
	Replaces  string               `json:"replaces,omitempty" jsonschema:"answer_id of your earlier answer to the same question, when this one corrects it"`
}

// FileAnswerOutput is the verdict on each citation.
type FileAnswerOutput struct {
	eval.FileAnswerResult
	Reviewed
	Notes
}

// FileAnswer returns the file_answer tool.
func FileAnswer(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "file_answer", Toolset: "core", Title: "File answer",
		Description: "Record the answer to a person's question with its citations, before you give it. Each citation is a file and a quote of 8-300 characters copied exactly from it; the server checks every quote against the file at once and says which did not verify, so you can fix them (re-read, copy exactly, or drop the claim) and file again with replaces before the person sees the answer. Writes only llmwiki's eval store under .llmwiki/eval, never the wiki; llmwiki eval uses these records for hit rate, wasted reads, gaps and citation validity.",
		Hints:       hints{readOnly: false, destructive: false, idempotent: false, openWorld: false},
	},
		func(ctx context.Context, in FileAnswerInput) (FileAnswerOutput, error) {
			cs := make([]eval.Citation, len(in.Citations))
			for i, c := range in.Citations {
				cs[i] = eval.Citation{Path: c.Path, Quote: c.Quote}
			}
			r, err := eval.FileAnswer(ctx, d.Store, eval.AnswerInput{Question: in.Question, Answer: in.Answer, Citations: cs, Topic: in.Topic, Replaces: in.Replaces})
			return FileAnswerOutput{FileAnswerResult: r}, err
		})
}
