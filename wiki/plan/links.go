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

func openFence(t string) string {
	for _, ch := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == ch {
			n++
		}
		if n >= 3 {
			if ch == '`' && strings.Contains(t[n:], "`") {
				return ""
			}
			return t[:n]
		}
	}
	return ""
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

// addRelated adds "- [[slug]]" lines to the body's "## Related" section
// (created at the end when missing), skipping slugs the body already links
// to anywhere. It returns the new body and the slugs added.
func addRelated(body string, slugs []string, linked func(string) bool) (string, []string) {
	var add []string
	for _, s := range slugs {
		if !linked(s) {
			add = append(add, s)
		}
	}
	if len(add) == 0 {
		return body, nil
	}
	var items strings.Builder
	for _, s := range add {
		items.WriteString("- [[" + s + "]]\n")
	}
	lines := strings.SplitAfter(body, "\n")
	start, end := -1, len(lines)
	fence := ""
	for i, l := range lines {
		t := strings.TrimRight(l, "\r\n")
		tt := strings.TrimLeft(t, " ")
		if fence != "" {
			if strings.HasPrefix(tt, fence) && strings.TrimSpace(strings.TrimLeft(tt, fence[:1])) == "" {
				fence = ""
			}
			continue
		}
		if f := openFence(tt); f != "" && len(t)-len(tt) < 4 {
			fence = f
			continue
		}
		if strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "## ") {
			if start >= 0 {
				end = i
				break
			}
			if strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(t, "## ")), "Related") && strings.HasPrefix(t, "## ") {
				start = i
			}
		}
	}
	if start < 0 {
		return appendSection(body, "Related", items.String()), add
	}
	// insert after the section's last non-blank line
	at := end
	for at > start+1 && strings.TrimSpace(lines[at-1]) == "" {
		at--
	}
	prefix := strings.Join(lines[:at], "")
	if !strings.HasSuffix(prefix, "\n") {
		prefix += "\n"
	}
	if at == start+1 {
		prefix += "\n"
	}
	rest := strings.Join(lines[at:], "")
	if rest != "" && !strings.HasPrefix(rest, "\n") {
		rest = "\n" + rest
	}
	return prefix + items.String() + rest, add
}
