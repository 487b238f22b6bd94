package plan

import (
	"path"
	"strings"
)

// wikiLinkTargets returns the targets of the [[wikilinks]] and ![[embeds]]
// in md (the part before "|"), skipping fenced code blocks and inline code
// spans, where nothing is a link. It is deliberately small: a plan's links
// are checked before they are written, and lint (goldmark) checks the wiki.
func wikiLinkTargets(md string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		trim := strings.TrimLeft(line, " ")
		indent := len(line) - len(trim)
		if fence != "" {
			if strings.HasPrefix(trim, fence) && strings.TrimSpace(strings.TrimLeft(trim, fence[:1])) == "" {
				fence = ""
			}
			continue
		}
		if indent < 4 {
			if f := openFence(trim); f != "" {
				fence = f
				continue
			}
		}
		out = append(out, lineLinks(line)...)
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

// lineLinks finds [[...]] outside inline code spans on one line.
func lineLinks(line string) []string {
	var out []string
	for i := 0; i < len(line); {
		switch {
		case line[i] == '`':
			n := 0
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			run := strings.Repeat("`", n)
			// the span closes at the next run of exactly n backticks
			j := i + n
			closed := -1
			for j < len(line) {
				k := strings.Index(line[j:], run)
				if k < 0 {
					break
				}
				k += j
				end := k + n
				if (end >= len(line) || line[end] != '`') && (k == 0 || line[k-1] != '`') {
					closed = end
					break
				}
				j = end
				for j < len(line) && line[j] == '`' {
					j++
				}
			}
			if closed < 0 {
				i += n // an unclosed run is literal text
			} else {
				i = closed
			}
		case strings.HasPrefix(line[i:], "[["):
			end := strings.Index(line[i+2:], "]]")
			if end < 0 {
				return out
			}
			inner := line[i+2 : i+2+end]
			if t, _, _ := strings.Cut(inner, "|"); !strings.Contains(inner, "[") {
				out = append(out, strings.TrimSuffix(t, `\`))
			}
			i += 2 + end + 2
		default:
			i++
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
