package eval

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/links"
)

// DanglingLink is a link in the wiki that resolves to no file.
type DanglingLink struct {
	Page   string `json:"page"`
	Target string `json:"target"`
	Line   int    `json:"line"`
}

// linkCheck names the link check in reports.
const linkCheck = "the link graph of wiki/links (goldmark with wikilinks, resolved the way Obsidian does), the one lint uses"

// danglingLinks lists the links of pages, context.md, index.md and
// guidelines.md that lead to no file or page alias (lint's dangling_link
// and missing_embed), from the store's link graph.
func danglingLinks(ctx context.Context, graph *links.Graph) ([]DanglingLink, string, error) {
	out := []DanglingLink{}
	v, err := graph.View(ctx)
	if err != nil {
		return out, linkCheck, err
	}
	for _, from := range v.Sources() {
		for _, l := range v.Links(from) {
			if l.Problem == links.ProblemDangling || l.Problem == links.ProblemMissingEmbed {
				out = append(out, DanglingLink{Page: from, Target: l.Target, Line: l.Line})
			}
		}
	}
	return out, linkCheck, nil
}
