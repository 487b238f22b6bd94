package plan

import (
	"path"
	"strings"

	"github.com/llmwiki/llmwiki/wiki/links"
)

// wikiLinkTargets returns the targets of the [[wikilinks]] and ![[embeds]]
// in md, as wiki/links (goldmark) parses them: nothing in code spans or
// fenced code is a link.
func wikiLinkTargets(md string) []string {
	var out []string
	for _, l := range links.Parse("plan-action.md", []byte(md)).Links {
		if l.Kind == links.KindWiki {
			out = append(out, l.Target)
		}
	}
	return out
}

// pageTarget reduces a link target to the page it names: "" for a link
// within the page ("#Heading"), and ok=false for a link to a non-markdown
// file (an image embed), which is not a page.
func pageTarget(t string) (string, bool) {
	t = strings.TrimSpace(t)
	if i := strings.IndexAny(t, "#^"); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	if t == "" {
		return "", true
	}
	if ext := strings.ToLower(path.Ext(t)); ext != "" && ext != ".md" && !strings.ContainsAny(ext, " ") && len(ext) <= 5 && !isDigits(ext[1:]) {
		return "", false
	}
	return strings.TrimSuffix(strings.TrimSuffix(t, ".md"), ".MD"), true
}

// appendSection returns body with a "## heading" section added at the end.
func appendSection(body, heading, md string) string {
	body = strings.TrimRight(body, "\n")
	var b strings.Builder
	b.WriteString(body)
	if body != "" {
		b.WriteString("\n\n")
	}
	b.WriteString("## " + strings.TrimSpace(heading) + "\n\n")
	b.WriteString(strings.TrimRight(md, "\n") + "\n")
	return b.String()
}
